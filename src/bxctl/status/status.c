/*
 * status.c: `bxctl status`, is everything up and is anything waiting for
 * the owner: brokerd (up, version, runtime, uptime, through admin.sock),
 * loopd (up), the grant set, pending approvals, the audit log (read and
 * verified here, as audit verify reads it), the number of sessions and
 * the Mattermost bridge (status_bridge.c). Each thing that needs the owner gets a line naming its runbook entry,
 * and the exit status is then 1. The facts are gathered by status_facts.c.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>

#include "bxctl/commands.h"
#include "proto/escape.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/status/status.h"

static const char status_help[] =
    "Shows whether brokerd and loopd are up (brokerd's version, runtime\n"
    "and uptime), whether the grant files are valid, how many approvals\n"
    "wait and for how long, whether the audit log verifies (its records,\n"
    "head and last record's time; read here, as bxctl audit verify reads\n"
    "it), how many sessions brokerd knows, and the Mattermost bridge (from\n"
    "<home>/bridge/state.json: running or not, whether it reaches\n"
    "Mattermost and brokerd, its last error). Each thing that needs you\n"
    "gets a line naming its runbook entry, and the exit status is 1.\n"
    "\n"
    "  --home PATH          the home whose audit log to read and under\n"
    "                       which the sockets are (default $BOXMAKER_HOME,\n"
    "                       else /var/lib/boxmaker for root and\n"
    "                       ~/.local/share/boxmaker for anyone else)\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --loop-socket PATH   loopd's socket (default\n"
    "                       <home>/" BX_HOME_LOOP_SOCKET ")\n"
    "  --json               the status as one JSON object\n"
    "  --help               this text\n";

/* Why something brokerd answers is not known. */
static const char *
unknown(const struct status *st)
{
	return st->broker == NULL ? "brokerd is not running" :
	    "brokerd did not answer";
}

/* "label      " then the rest of the line. */
static void
label(const char *name)
{
	printf("%-11s", name);
}

static void
broker(const struct status *st)
{
	const struct bx_broker_status *b;
	char since[WHEN_LOCAL_LEN], up[SHOW_DURATION_MAX];

	label("brokerd");
	if (st->broker == NULL) {
		printf("not running\n");
		return;
	}
	b = &st->broker->broker_status;
	when_local(b->started, since);
	show_duration(b->now - b->started, up);
	printf("up: version ");
	escape_puts(stdout, b->version);
	printf(", runtime %s, up %s (since %s)\n", b->runtime, up, since);
}

static void
audit(const struct status *st)
{
	char when[WHEN_LOCAL_LEN], head[ANCHOR_TEXT_MAX];

	label("audit log");
	if (st->audit == NULL) {
		printf("cannot be read\n");
		return;
	}
	if (st->audit->failed) {
		printf("does not verify\n");
		return;
	}
	printf("ok: %" PRIu64 " records", st->audit->records);
	if (st->audit->has_head) {
		anchor_format(st->audit->next_seq - 1, &st->audit->head, head);
		when_local(st->last_time, when);
		printf(", head %s, last record %s", head, when);
	}
	printf("\n");
}

/* The grant set: ok, or each of its problems on a line of its own. */
static void
grants(const struct status *st)
{
	const struct bx_grant_problem *p;
	size_t i;

	label("grants");
	if (st->grants == NULL) {
		printf("unknown (%s)\n", unknown(st));
		return;
	}
	if (st->grants->grant_list.nproblems == 0) {
		printf("ok: %zu grants, %zu expired\n",
		    st->grants->grant_list.ngrants, st->expired);
		if (st->prunable > 0) {
			label("");
			printf("%zu of them approve --for's, expired over 7 d "
			    "ago: bxctl grants prune removes them, and every "
			    "call reads fewer files\n", st->prunable);
		}
		return;
	}
	printf("invalid: %zu problems\n", st->grants->grant_list.nproblems);
	for (i = 0; i < st->grants->grant_list.nproblems; i++) {
		p = &st->grants->grant_list.problems[i];
		label("");
		escape_problem(stdout, p->file, p->has_line, p->line,
		    p->problem);
	}
}

static void
daemons_and_grants(const struct status *st)
{
	char age[SHOW_DURATION_MAX];

	label("loopd");
	if (!st->loop_up)
		printf("not running\n");
	else if (st->loop_jailed)
		printf("up, its turn loop jailed as uid %u\n",
		    (unsigned)st->loop_uid);
	else
		printf("up, its turn loop not jailed (it runs as you)\n");
	grants(st);
	label("approvals");
	if (st->approvals == NULL)
		printf("unknown (%s)\n", unknown(st));
	else if (st->npending == 0)
		printf("none pending\n");
	else {
		show_duration(st->now - st->oldest, age);
		printf("%zu pending, the oldest for %s\n", st->npending, age);
	}
}

static void
text(const struct status *st)
{
	size_t i;

	broker(st);
	daemons_and_grants(st);
	audit(st);
	label("sessions");
	if (st->sessions == NULL)
		printf("unknown (%s)\n", unknown(st));
	else
		printf("%" PRIu64 "\n", st->sessions->session_list.total);
	status_bridge_text(st);
	for (i = 0; i < st->nattention; i++) {
		printf("needs you: ");
		escape_puts(stdout, st->attention[i]);
		printf("\n");
	}
}

int
cmd_status(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "home", required_argument, NULL, 'H' },
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "loop-socket", required_argument, NULL, 'l' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct status_args a = { NULL, NULL, NULL, false };
	struct status st;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'H')
			a.home = optarg;
		else if (ch == 'a')
			a.admin = optarg;
		else if (ch == 'l')
			a.loop = optarg;
		else if (ch == 'j')
			a.json = true;
		else if (ch == 'h')
			return cli_help(cmd, status_help);
		else
			return cli_option_error(cmd, ch, argv);
	}
	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	if ((r = status_gather(cmd, &a, &st)) != CLI_OK)
		return r;
	if (a.json)
		status_json(&st);
	else
		text(&st);
	r = st.nattention > 0 ? CLI_FAIL : CLI_OK;
	status_free(&st);
	return r;
}
