/*
 * turn_ask.c: an approval during a chat turn (turn.h): its two lines,
 * looked up on admin.sock, and, interactively, the owner's answer:
 *
 *	approve 41? [y]es once, [f]or a while, [N]o f
 *	for how long? [1h] 30m
 *
 * y or yes approves once; f or for asks how long (a whole number and s,
 * m, h, d or w; empty is TURN_FOR_DEFAULT) and approves with a grant for
 * that long (approve_for.h); anything else refuses. A Ctrl-C while asking
 * answers nothing: it stops the turn, and with it the approval.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "bxctl/approvals/answer.h"
#include "bxctl/chat/interrupt.h"
#include "bxctl/chat/linein.h"
#include "bxctl/chat/prompt.h"
#include "bxctl/chat/turn.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/cli.h"
#include "proto/escape.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/grants/approve_for.h"

/* Looks the approval up on admin.sock and prints its two lines. */
void
turn_show_approval(const struct turn_opts *opts, FILE *out,
    const struct bx_turn_event *ev)
{
	struct bx_msg *req, *list = NULL;
	char left[SHOW_DURATION_MAX];
	struct bx_error err;
	int64_t now;
	size_t i;

	if ((req = bx_msg_new(BX_MSG_APPROVALS)) == NULL)
		snprintf(err.msg, sizeof(err.msg), "out of memory");
	else if (admin_call(opts->admin_path, req, BX_MSG_APPROVAL_LIST,
	    &list, &err) == 0) {
		now = show_now();
		for (i = 0; i < list->approval_list.nitems; i++) {
			if (list->approval_list.items[i].approval !=
			    ev->approval)
				continue;
			show_approval(out, &list->approval_list.items[i], now);
			bx_msg_free(list);
			bx_msg_free(req);
			return;
		}
		snprintf(err.msg, sizeof(err.msg), "brokerd does not list "
		    "approval %" PRIu64 "; it may have been answered or "
		    "expired", ev->approval);
	}
	bx_msg_free(list);
	bx_msg_free(req);
	/* The event alone, then why the block is missing. */
	show_duration(ev->expires - show_now(), left);
	fprintf(out, "%" PRIu64 "  expires in %s  ", ev->approval, left);
	escape_puts(out, ev->tool);
	fprintf(out, "\n");
	fflush(out);
	cli_fail("%s", err.msg);
}

/*
 * One answer line into buf (no newline), from the prompt or plainly from
 * opts->answers; "" at end of file. Returns -1 if a Ctrl-C came instead.
 */
static int
answer_line(const struct turn_opts *opts, const char *question, char *buf)
{
	const char *line;
	bool interrupted;
	size_t len;

	buf[0] = '\0';
	if (opts->prompt != NULL) {
		line = prompt_ask(opts->prompt, question, &interrupted);
		if (interrupted)
			return -1;
		if (line != NULL)
			snprintf(buf, TURN_ANSWER_MAX, "%s", line);
		return 0;
	}
	fprintf(stderr, "%s", question);
	fflush(stderr);
	if (opts->answers == NULL ||
	    linein_read(opts->answers, &line, &len) != 1) {
		if (interrupt_pending())
			return -1;
		fprintf(stderr, "\n");
		return 0;
	}
	snprintf(buf, TURN_ANSWER_MAX, "%s", line);
	buf[strcspn(buf, "\r")] = '\0';
	return 0;
}

/* [f]or a while: how long, then the grant and the approval. */
static int
ask_for(const struct turn_opts *opts, uint64_t id)
{
	char line[TURN_ANSWER_MAX];
	struct bx_error err;
	int64_t ms;

	for (;;) {
		if (answer_line(opts, "for how long? [" TURN_FOR_DEFAULT "] ",
		    line) == -1)
			return -1;
		if (when_duration(line[0] == '\0' ? TURN_FOR_DEFAULT : line,
		    APPROVE_FOR_MAX_MS, &ms, &err) == 0)
			break;
		/* A plain reader has no second chance: it would loop. */
		if (opts->prompt == NULL) {
			cli_fail("%s; not approved", err.msg);
			answer_refuse(opts->admin_path, id, NULL, stdout);
			return 0;
		}
		fprintf(stderr, "%s\n", err.msg);
	}
	answer_approve_for(opts->admin_path, opts->config, id, ms, stdout);
	return 0;
}

int
turn_ask(const struct turn_opts *opts, uint64_t id)
{
	char line[TURN_ANSWER_MAX], question[80];

	fflush(stdout);
	snprintf(question, sizeof(question), "approve %" PRIu64 "? [y]es "
	    "once, [f]or a while, [N]o ", id);
	if (answer_line(opts, question, line) == -1)
		return -1;
	if (strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0)
		answer_approve(opts->admin_path, id, stdout);
	else if (strcasecmp(line, "f") == 0 || strcasecmp(line, "for") == 0)
		return ask_for(opts, id);
	else
		answer_refuse(opts->admin_path, id, NULL, stdout);
	return 0;
}
