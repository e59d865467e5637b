/*
 * grants_list.c: `bxctl grants list`, every grant file as brokerd loads it
 * for a call, one row each: id, tool, mode, max_taint, result_class,
 * untrusted, expiry (marked when it has passed or is under a week away),
 * and the paths or hosts. The problems of invalid files follow with their
 * file and line, and the exit status is then 1: one invalid file denies
 * every call.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/options.h"
#include "bxctl/common/show.h"
#include "bxctl/common/table.h"
#include "bxctl/common/when.h"

/* Expiry under this far away is marked ("in 3 d"). */
#define GRANTS_SOON_MS	(7LL * 24 * 3600 * 1000)

static const char grants_list_help[] =
    "Asks brokerd to load the grant files as it does for every call and\n"
    "lists each grant: id, tool, mode, max_taint, result_class,\n"
    "untrusted, when it expires (\"expired\", or \"in 3 d\" when that is\n"
    "under a week away) and its paths or hosts. The problems of invalid\n"
    "files follow as FILE:LINE: PROBLEM, with exit status 1: one invalid\n"
    "file denies every call.\n"
    "\n"
    "  --json               one JSON object per grant and per problem\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

enum { C_ID, C_TOOL, C_MODE, C_MAX, C_RESULT, C_UNTRUSTED, C_EXPIRES,
	C_WHERE, NCOLS };

/* "2027-01-01 00:00:00", with "(expired)" or "(in 3 d)"; its colour. */
static const char *
expiry(int64_t expires, int64_t now, char *buf, size_t size)
{
	char when[WHEN_LOCAL_LEN], left[SHOW_DURATION_MAX];

	when_local(expires, when);
	if (expires <= now) {
		snprintf(buf, size, "%s (expired)", when);
		return TABLE_RED;
	}
	if (expires - now < GRANTS_SOON_MS) {
		show_duration(expires - now, left);
		snprintf(buf, size, "%s (in %s)", when, left);
		return TABLE_YELLOW;
	}
	snprintf(buf, size, "%s", when);
	return NULL;
}

/* The paths, or else the hosts, joined by ", "; a new string. */
static char *
joined(const struct bx_grant_info *g)
{
	char *const *list = g->npaths > 0 ? g->paths : g->hosts;
	size_t n = g->npaths > 0 ? g->npaths : g->nhosts, i, len = 2;
	char *s;

	for (i = 0; i < n; i++)
		len += strlen(list[i]) + 2;
	if ((s = malloc(len)) == NULL)
		return NULL;
	strcpy(s, n == 0 ? "-" : "");
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, ", ");
		strcat(s, list[i]);
	}
	return s;
}

static void
row(struct table *t, const struct table_col *cols,
    const struct bx_grant_info *g, int64_t now)
{
	char expires[WHEN_LOCAL_LEN + 32], *where = joined(g);
	const char *colour = expiry(g->expires, now, expires, sizeof(expires));

	table_cell(t, g->id, cols[C_ID].width, NULL);
	table_cell(t, g->tool, cols[C_TOOL].width, NULL);
	table_cell(t, g->mode, cols[C_MODE].width, NULL);
	table_cell(t, bx_class_name(g->max_taint), cols[C_MAX].width, NULL);
	table_cell(t, bx_class_name(g->result_class), cols[C_RESULT].width,
	    NULL);
	table_cell(t, g->untrusted ? "yes" : "no", cols[C_UNTRUSTED].width,
	    NULL);
	table_cell(t, expires, cols[C_EXPIRES].width, colour);
	table_cell(t, where != NULL ? where : "?", 0, NULL);
	table_end(t);
	free(where);
}

static json_t *
strings(char *const *list, size_t n)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; a != NULL && i < n; i++)
		json_array_append_new(a, json_string(list[i]));
	return a;
}

static void
json_grant(const struct bx_grant_info *g, int64_t now)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s, s:b, s:o, s:b, "
	    "s:o, s:o}", "type", "grant", "id", g->id, "tool", g->tool,
	    "mode", g->mode, "max_taint", bx_class_name(g->max_taint),
	    "result_class", bx_class_name(g->result_class), "untrusted",
	    g->untrusted, "expires", jsonout_time(g->expires), "expired",
	    g->expires <= now, "paths", strings(g->paths, g->npaths), "hosts",
	    strings(g->hosts, g->nhosts));

	if (o != NULL)
		jsonout_print(stdout, o);
	json_decref(o);
}

/* The problems: FILE:LINE: PROBLEM lines, or JSON objects. */
static void
problems(const struct bx_grant_list *l, bool json)
{
	const struct bx_grant_problem *p;
	json_t *o;
	size_t i;

	for (i = 0; i < l->nproblems; i++) {
		p = &l->problems[i];
		if (json) {
			o = json_pack("{s:s, s:s, s:o, s:s}", "type", "problem",
			    "file", p->file, "line", p->has_line ?
			    json_integer((json_int_t)p->line) : json_null(),
			    "problem", p->problem);
			if (o != NULL)
				jsonout_print(stdout, o);
			json_decref(o);
			continue;
		}
		printf("problem: ");
		escape_problem(stdout, p->file, p->has_line, p->line,
		    p->problem);
	}
	if (!json && l->nproblems > 0)
		printf("grants: invalid, so every call is denied; see "
		    "docs/runbook.md#grants-invalid\n");
}

/*
 * The ID column is as wide as the longest id, so the ids bxctl approve
 * --for writes (approved-read-file-12) are not cut on a wide terminal.
 */
static size_t
id_width(const struct bx_grant_list *l, size_t least)
{
	size_t i, w = least;

	for (i = 0; i < l->ngrants; i++)
		if (table_chars(l->grants[i].id) > w)
			w = table_chars(l->grants[i].id);
	return w;
}

static int
list(const char *path, bool json)
{
	struct table_col cols[NCOLS] = {
		{ "ID", 16, 6, 1, 0 }, { "TOOL", 10, 6, 2, 0 },
		{ "MODE", 4, 4, 9, 0 }, { "MAX_TAINT", 9, 7, 3, 0 },
		{ "RESULT_CLASS", 12, 7, 3, 0 }, { "UNTRUSTED", 9, 3, 4, 0 },
		{ "EXPIRES", 30, 19, 5, 0 }, { "PATHS OR HOSTS", 6, 6, 9, 0 },
	};
	const struct bx_grant_list *l;
	struct bx_msg *answer;
	struct bx_error err;
	struct table t;
	int64_t now = show_now();
	size_t i;
	int rv;

	if (admin_ask(path, BX_MSG_LIST_GRANTS, BX_MSG_GRANT_LIST, &answer,
	    &err) == -1)
		return cli_fail("%s", err.msg);
	l = &answer->grant_list;
	cols[C_ID].pref = id_width(l, cols[C_ID].pref);
	table_open(&t, stdout);
	table_layout(&t, cols, NCOLS);
	if (!json && l->ngrants > 0)
		table_header(&t, cols, NCOLS);
	if (!json && l->ngrants == 0)
		printf("grants: none\n");
	for (i = 0; i < l->ngrants; i++) {
		if (json)
			json_grant(&l->grants[i], now);
		else
			row(&t, cols, &l->grants[i], now);
	}
	problems(l, json);
	rv = l->nproblems == 0 ? CLI_OK : CLI_FAIL;
	bx_msg_free(answer);
	return rv;
}

int
cmd_grants_list(const struct cli_command *cmd, int argc, char **argv)
{
	char path[SOCK_PATH_MAX];
	int status;
	bool json;

	if (options_admin_json(cmd, argc, argv, grants_list_help, path, &json,
	    &status) == -1)
		return status;
	return list(path, json);
}
