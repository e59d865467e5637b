/*
 * approvals.c: `bxctl approvals`, the list of calls waiting for the
 * owner's answer, two lines each (show.h).
 */
#include <stddef.h>
#include <stdio.h>

#include "bxctl/admin.h"
#include "bxctl/commands.h"
#include "bxctl/options.h"
#include "bxctl/show.h"

static const char approvals_help[] =
    "Lists the tool calls brokerd holds for the owner's answer.\n"
    "\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

/* Asks brokerd for the list and prints it; the exit status. */
static int
list(const char *path)
{
	struct bx_msg *req, *answer;
	struct bx_error err;
	int64_t now;
	size_t i;
	int r;

	if ((req = bx_msg_new(BX_MSG_APPROVALS)) == NULL)
		return cli_fail("out of memory");
	r = admin_call(path, req, BX_MSG_APPROVAL_LIST, &answer, &err);
	bx_msg_free(req);
	if (r == -1)
		return cli_fail("%s", err.msg);
	now = show_now();
	if (answer->approval_list.nitems == 0)
		printf("approvals: none\n");
	for (i = 0; i < answer->approval_list.nitems; i++)
		show_approval(stdout, &answer->approval_list.items[i], now);
	bx_msg_free(answer);
	return CLI_OK;
}

int
cmd_approvals(const struct cli_command *cmd, int argc, char **argv)
{
	char path[SOCK_PATH_MAX];
	int status;

	if (options_admin_only(cmd, argc, argv, approvals_help, path,
	    &status) == -1)
		return status;
	return list(path);
}
