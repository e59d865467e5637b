/*
 * grants_check.c: `bxctl grants check`, brokerd's report on the grant files:
 * one line per problem, or "grants: ok".
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/escape.h"
#include "bxctl/common/options.h"

static const char grants_help[] =
    "Asks brokerd to load the grant files as it would for a call, and\n"
    "prints each problem as FILE:LINE: PROBLEM, or \"grants: ok\".\n"
    "Exit status 1 if there are problems.\n"
    "\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

/* Asks brokerd for the report and prints it; the exit status. */
static int
check(const char *path)
{
	struct bx_grants_report *report;
	struct bx_grant_problem *gp;
	struct bx_msg *req, *answer;
	struct bx_error err;
	size_t i;
	int r;

	if ((req = bx_msg_new(BX_MSG_CHECK_GRANTS)) == NULL)
		return cli_fail("out of memory");
	r = admin_call(path, req, BX_MSG_GRANTS_REPORT, &answer, &err);
	bx_msg_free(req);
	if (r == -1)
		return cli_fail("%s", err.msg);
	report = &answer->grants_report;
	if (report->nproblems == 0)
		printf("grants: ok\n");
	for (i = 0; i < report->nproblems; i++) {
		gp = &report->problems[i];
		escape_puts(stdout, gp->file);
		if (gp->has_line)
			printf(":%" PRIu64, gp->line);
		printf(": ");
		escape_puts(stdout, gp->problem);
		printf("\n");
	}
	r = report->nproblems == 0 ? CLI_OK : CLI_FAIL;
	bx_msg_free(answer);
	return r;
}

int
cmd_grants_check(const struct cli_command *cmd, int argc, char **argv)
{
	char path[SOCK_PATH_MAX];
	int status;

	if (options_admin_only(cmd, argc, argv, grants_help, path,
	    &status) == -1)
		return status;
	return check(path);
}
