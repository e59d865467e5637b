/*
 * turn.c: one chat turn (turn.h). The loop reads events until the final
 * one; each event type has a small printer, and approval_pending also
 * looks the approval up on admin.sock and, interactively, asks.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <jansson.h>

#include "bxctl/admin.h"
#include "bxctl/answer.h"
#include "bxctl/cli.h"
#include "bxctl/escape.h"
#include "bxctl/jsonout.h"
#include "bxctl/peer.h"
#include "bxctl/show.h"
#include "bxctl/sock.h"
#include "bxctl/turn.h"
#include "proto/json.h"

/* What a turn remembers between its events. */
struct turn_state {
	const struct turn_opts	*opts;
	char			*session;
	char			*last_text;	/* the last text event */
	int			 timeout_ms;	/* for the next event */
	bool			 failed;
};

int
turn_json(FILE *fp, const char *line, size_t len)
{
	json_t *obj;
	int rc;

	if (bx_json_parse(line, len, &obj, NULL) == -1)
		return -1;
	rc = jsonout_print(fp, obj);
	json_decref(obj);
	return rc;
}

/* "model: <text>", escaped, on one line. */
static void
print_model(FILE *fp, const char *text)
{
	fprintf(fp, "model: ");
	escape_puts(fp, text);
	fprintf(fp, "\n");
}

void
turn_print_event(FILE *fp, const struct bx_turn_event *ev,
    const char *session, const char *last_text)
{
	switch (ev->type) {
	case BX_EVENT_STARTED:
		if (strcmp(session, ev->session) != 0) {
			fprintf(fp, "session ");
			escape_puts(fp, ev->session);
			fprintf(fp, "\n");
		}
		break;
	case BX_EVENT_TEXT:
		print_model(fp, ev->text);
		break;
	case BX_EVENT_TOOL_CALL:
		fprintf(fp, "call ");
		escape_puts(fp, ev->call);
		fprintf(fp, ": ");
		escape_puts(fp, ev->tool);
		fprintf(fp, " ");
		escape_puts(fp, ev->arguments);
		fprintf(fp, "\n");
		break;
	case BX_EVENT_TOOL_RESULT:
		fprintf(fp, "result ");
		escape_puts(fp, ev->call);
		fprintf(fp, ": %s (%s%s): ", bx_status_name(ev->status),
		    bx_class_name(ev->class), ev->untrusted ? ", untrusted" :
		    "");
		escape_puts(fp, ev->content);
		fprintf(fp, "\n");
		break;
	case BX_EVENT_DONE:
		/* A reply already shown as the last text is not shown twice. */
		if (last_text == NULL || strcmp(last_text, ev->text) != 0)
			print_model(fp, ev->text);
		break;
	case BX_EVENT_ERROR:
		fprintf(fp, "error: ");
		escape_puts(fp, ev->text);
		fprintf(fp, "\n");
		break;
	default:
		break;
	}
}

/* Looks the approval up on admin.sock and prints its two lines. */
static void
print_approval(const struct turn_opts *opts, const struct bx_turn_event *ev)
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
			show_approval(stdout, &list->approval_list.items[i],
			    now);
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
	printf("%" PRIu64 "  expires in %s  ", ev->approval, left);
	escape_puts(stdout, ev->tool);
	printf("\n");
	fflush(stdout);
	cli_fail("%s", err.msg);
}

/* Asks "approve N? [y/N]" on stderr; y or yes approves, the rest refuses. */
static void
ask(const struct turn_opts *opts, uint64_t id)
{
	char line[TURN_ANSWER_MAX];
	size_t len;
	int c;

	fflush(stdout);
	fprintf(stderr, "approve %" PRIu64 "? [y/N] ", id);
	fflush(stderr);
	if (fgets(line, sizeof(line), opts->answers) == NULL) {
		fprintf(stderr, "\n");
		line[0] = '\0';
	}
	len = strlen(line);
	if (len > 0 && line[len - 1] != '\n')
		while ((c = getc(opts->answers)) != EOF && c != '\n')
			;
	line[strcspn(line, "\r\n")] = '\0';
	if (strcasecmp(line, "y") == 0 || strcasecmp(line, "yes") == 0)
		answer_approve(opts->admin_path, id, stdout);
	else
		answer_refuse(opts->admin_path, id, NULL, stdout);
}

static void
on_event(struct turn_state *ts, const struct bx_turn_event *ev)
{
	int64_t wait;

	if (ev->type != BX_EVENT_APPROVAL_PENDING)
		turn_print_event(stdout, ev, ts->session, ts->last_text);
	switch (ev->type) {
	case BX_EVENT_STARTED:
		snprintf(ts->session, BX_ID_MAX + 1, "%s", ev->session);
		break;
	case BX_EVENT_TEXT:
		free(ts->last_text);
		ts->last_text = strdup(ev->text);
		break;
	case BX_EVENT_APPROVAL_PENDING:
		print_approval(ts->opts, ev);
		if (ts->opts->ask)
			ask(ts->opts, ev->approval);
		/* loopd waits for brokerd until the expiry and then some. */
		wait = ev->expires - show_now() + TURN_EXPIRY_GRACE_MS;
		if (wait > ts->timeout_ms)
			ts->timeout_ms = wait > INT32_MAX ? INT32_MAX :
			    (int)wait;
		break;
	case BX_EVENT_ERROR:
		ts->failed = true;
		break;
	default:
		break;
	}
	fflush(stdout);
}

/* Reads and prints events until the final one. */
static int
events(struct turn_state *ts, struct bx_frame_reader *fr,
    struct bx_error *err)
{
	const char *line;
	struct bx_msg *msg;
	size_t len;
	bool final;

	for (;;) {
		if (peer_read(fr, ts->timeout_ms, "loopd", &msg, &line, &len,
		    err) == -1)
			return -1;
		if (ts->opts->json) {
			turn_json(stdout, line, len);
			fflush(stdout);
		}
		if (msg->kind == BX_MSG_ERROR) {
			peer_error(msg, "loopd", err);
			bx_msg_free(msg);
			return -1;
		}
		if (msg->kind != BX_MSG_TURN_EVENT) {
			bx_fail(err, "loopd answered %s to chat",
			    bx_msg_kind_name(msg->kind));
			bx_msg_free(msg);
			return -1;
		}
		ts->timeout_ms = TURN_EVENT_TIMEOUT_MS;
		if (ts->opts->json) {
			if (msg->turn_event.type == BX_EVENT_STARTED)
				snprintf(ts->session, BX_ID_MAX + 1, "%s",
				    msg->turn_event.session);
			if (msg->turn_event.type == BX_EVENT_ERROR)
				ts->failed = true;
		} else
			on_event(ts, &msg->turn_event);
		final = bx_msg_is_final(msg);
		bx_msg_free(msg);
		if (final)
			return 0;
	}
}

int
turn_run(const struct turn_opts *opts, char *session, const char *text,
    bool *ret_failed, struct bx_error *err)
{
	struct turn_state ts = { opts, session, NULL, TURN_EVENT_TIMEOUT_MS,
	    false };
	struct bx_frame_reader fr;
	struct bx_msg *chat;
	int fd, rc = -1;

	if (sock_connect(opts->loop_path, "loopd", &fd, err) == -1)
		return -1;
	bx_frame_reader_init(&fr, fd);
	chat = bx_msg_chat(session[0] == '\0' ? NULL : session, text);
	if (chat == NULL) {
		bx_fail(err, "out of memory");
		goto out;
	}
	if (bx_msg_send(fd, chat, TURN_SEND_TIMEOUT_MS, err) == -1) {
		bx_error_prefix(err, "sending chat to loopd at %s",
		    opts->loop_path);
		goto out;
	}
	if (events(&ts, &fr, err) == -1)
		goto out;
	*ret_failed = ts.failed;
	rc = 0;
out:
	bx_msg_free(chat);
	free(ts.last_text);
	bx_frame_reader_free(&fr);
	close(fd);
	return rc;
}
