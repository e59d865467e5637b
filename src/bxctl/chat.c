/*
 * chat.c: `bxctl chat`, a conversation with loopd: one chat frame per
 * line the owner types (or the one --say text), its turn events printed
 * as they arrive, and approvals asked for on the terminal.
 */
#include <getopt.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>

#include "bxctl/commands.h"
#include "bxctl/options.h"
#include "proto/types.h"

static const char chat_help[] =
    "Talks to loopd. Without --say, reads one message per line from\n"
    "stdin until end of file, and asks on stderr whether to approve each\n"
    "call that waits for approval (y approves, anything else refuses).\n"
    "\n"
    "  --session ID         go on with session ID (default: a new one)\n"
    "  --say TEXT           send TEXT as one message, print the events\n"
    "                       and exit; approvals are not asked for\n"
    "  --json               print each turn event as one JSON line;\n"
    "                       approvals are not asked for\n"
    "  --loop-socket PATH   loopd's socket (default\n"
    "                       $BOXMAKER_HOME/run/owner-loop/loop.sock)\n"
    "  --admin-socket PATH  brokerd's admin socket, to show and answer\n"
    "                       approvals (default\n"
    "                       $BOXMAKER_HOME/run/owner-broker/admin.sock)\n"
    "  --help               this text\n";

int
cmd_chat(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "say", required_argument, NULL, 'm' },
		{ "json", no_argument, NULL, 'j' },
		{ "loop-socket", required_argument, NULL, 'l' },
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char loop_path[SOCK_PATH_MAX], admin_path[SOCK_PATH_MAX];
	const char *session = NULL, *say = NULL, *loop = NULL, *admin = NULL;
	struct bx_error err;
	bool json = false;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 's':
			session = optarg;
			break;
		case 'm':
			say = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'l':
			loop = optarg;
			break;
		case 'a':
			admin = optarg;
			break;
		case 'h':
			return cli_help(cmd, chat_help);
		default:
			return cli_option_error(cmd, ch, argv);
		}
	}
	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	if (session != NULL && bx_session_id_check(session, &err) == -1)
		return cli_usage_error(cmd, "--session: %s", err.msg);
	if ((r = options_socket(cmd, loop, SOCK_LOOP_REL, loop_path)) != CLI_OK)
		return r;
	if ((r = options_socket(cmd, admin, SOCK_ADMIN_REL, admin_path)) !=
	    CLI_OK)
		return r;
	(void)say;
	(void)json;
	return cli_fail("chat: not implemented yet in this build");
}
