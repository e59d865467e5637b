/*
 * sessions.c: `bxctl sessions`, brokerd's sessions through admin.sock:
 * each one's taint, untrusted flag, number of calls and last call, the
 * one last called last. brokerd counts them from the audit log and the
 * state files; it sends the SESSION_LIST_MAX last called, and says how
 * many there are.
 */
#include <inttypes.h>
#include <stdio.h>

#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/options.h"
#include "bxctl/common/show.h"
#include "bxctl/common/table.h"
#include "bxctl/common/when.h"

static const char sessions_help[] =
    "Lists the sessions brokerd knows, the one called last at the end:\n"
    "each one's taint (the most sensitive data its model has seen), whether\n"
    "it has seen untrusted data, its number of calls, and when it last\n"
    "called a tool. A session whose state file is damaged shows as secret\n"
    "and untrusted: brokerd denies its calls.\n"
    "\n"
    "  --json               one JSON object per session\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

enum { C_SESSION, C_TAINT, C_UNTRUSTED, C_CALLS, C_LAST, NCOLS };

static void
row(struct table *t, const struct table_col *cols,
    const struct bx_session_info *s, int64_t now)
{
	char calls[32], last[WHEN_LOCAL_LEN + SHOW_DURATION_MAX + 8];
	char ago[SHOW_DURATION_MAX], when[WHEN_LOCAL_LEN];

	snprintf(calls, sizeof(calls), "%" PRIu64, s->calls);
	if (s->has_last_call) {
		when_local(s->last_call, when);
		show_duration(now - s->last_call, ago);
		snprintf(last, sizeof(last), "%s (%s ago)", when, ago);
	} else
		snprintf(last, sizeof(last), "-");
	table_cell(t, s->session, cols[C_SESSION].width, NULL);
	table_cell(t, bx_class_name(s->taint), cols[C_TAINT].width,
	    s->taint == BX_CLASS_SECRET ? TABLE_RED : NULL);
	table_cell(t, s->untrusted ? "yes" : "no", cols[C_UNTRUSTED].width,
	    s->untrusted ? TABLE_YELLOW : NULL);
	table_cell(t, calls, cols[C_CALLS].width, NULL);
	table_cell(t, last, 0, NULL);
	table_end(t);
}

static void
json_session(const struct bx_session_info *s)
{
	json_t *o = json_pack("{s:s, s:s, s:b, s:I, s:o}", "session",
	    s->session, "taint", bx_class_name(s->taint), "untrusted",
	    s->untrusted, "calls", (json_int_t)s->calls, "last_call",
	    s->has_last_call ? jsonout_time(s->last_call) : json_null());

	if (o != NULL)
		jsonout_print(stdout, o);
	json_decref(o);
}

static int
list(const char *path, bool json)
{
	struct table_col cols[NCOLS] = {
		{ "SESSION", 20, 8, 1, 0 }, { "TAINT", 7, 7, 9, 0 },
		{ "UNTRUSTED", 9, 3, 2, 0 }, { "CALLS", 8, 5, 3, 0 },
		{ "LAST CALL", 10, 10, 9, 0 },
	};
	const struct bx_session_list *l;
	struct bx_msg *answer;
	struct bx_error err;
	struct table t;
	int64_t now = show_now();
	size_t i;

	if (admin_ask(path, BX_MSG_SESSIONS, BX_MSG_SESSION_LIST, &answer,
	    &err) == -1)
		return cli_fail("%s", err.msg);
	l = &answer->session_list;
	table_open(&t, stdout);
	table_layout(&t, cols, NCOLS);
	if (!json && l->nitems == 0)
		printf("sessions: none\n");
	else if (!json)
		table_header(&t, cols, NCOLS);
	for (i = 0; i < l->nitems; i++) {
		if (json)
			json_session(&l->items[i]);
		else
			row(&t, cols, &l->items[i], now);
	}
	if (!json && l->total > l->nitems)
		printf("sessions: %" PRIu64 " in all; the %zu last called are "
		    "shown\n", l->total, l->nitems);
	bx_msg_free(answer);
	return CLI_OK;
}

int
cmd_sessions(const struct cli_command *cmd, int argc, char **argv)
{
	char path[SOCK_PATH_MAX];
	int status;
	bool json;

	if (options_admin_json(cmd, argc, argv, sessions_help, path, &json,
	    &status) == -1)
		return status;
	return list(path, json);
}
