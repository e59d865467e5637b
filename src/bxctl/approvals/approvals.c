/*
 * approvals.c: `bxctl approvals`, the list of calls waiting for the
 * owner's answer, two lines each (show.h), and with --follow each one as
 * it comes and goes (approvals_follow.h).
 */
#include <getopt.h>
#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bxctl/approvals/approvals_follow.h"
#include "bxctl/audit/audit_read.h"
#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/options.h"
#include "bxctl/common/show.h"

static const char approvals_help[] =
    "Lists the tool calls brokerd holds for the owner's answer.\n"
    "\n"
    "  --follow             then go on: each new approval as it starts to\n"
    "                       wait, and its answer or expiry when it comes,\n"
    "                       read from the audit log, until interrupted\n"
    "  --json               with --follow, one JSON object per line\n"
    "  --home PATH          with --follow, the Boxmaker home whose audit\n"
    "                       log is read (default $BOXMAKER_HOME, else\n"
    "                       /var/lib/boxmaker for root and\n"
    "                       ~/.local/share/boxmaker for anyone else)\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

/* The command line: --follow, --json, --home, --admin-socket. */
struct approvals_args {
	bool		 follow, json;
	const char	*home, *socket;
};

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

/* CLI_OK to go on; else the exit status (help printed: -1, then 0). */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    struct approvals_args *a)
{
	static const struct option longopts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "follow", no_argument, NULL, 'f' },
		{ "home", required_argument, NULL, 'H' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	memset(a, 0, sizeof(*a));
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (ch == 'a')
			a->socket = optarg;
		else if (ch == 'f')
			a->follow = true;
		else if (ch == 'H')
			a->home = optarg;
		else if (ch == 'j')
			a->json = true;
		else if (ch == 'h')
			return cli_help(cmd, approvals_help) == CLI_OK ? -1 :
			    CLI_FAIL;
		else
			return cli_option_error(cmd, ch, argv);
	}
	if (!a->follow && (a->json || a->home != NULL))
		return cli_usage_error(cmd, "--json and --home go with --follow");
	return options_operands(cmd, argc, argv, 0, "");
}

int
cmd_approvals(const struct cli_command *cmd, int argc, char **argv)
{
	struct approvals_args a;
	struct bx_error err;
	char path[SOCK_PATH_MAX], home[PATH_MAX];
	int status;

	if ((status = parse(cmd, argc, argv, &a)) != CLI_OK)
		return status == -1 ? CLI_OK : status;
	if ((status = options_socket(cmd, a.socket, BX_HOME_ADMIN_SOCKET,
	    path)) != CLI_OK)
		return status;
	if (!a.follow)
		return list(path);
	if (audit_home(a.home, home, &err) == -1)
		return cli_usage_error(cmd, "%s", err.msg);
	return approvals_follow(home, path, a.json);
}
