/*
 * grants.c: `bxctl grants check`, brokerd's report on the grant files:
 * one line per problem, or "grants: ok".
 */
#include <getopt.h>
#include <stddef.h>

#include "bxctl/commands.h"
#include "bxctl/options.h"

static const char grants_help[] =
    "Asks brokerd to load the grant files as it would for a call, and\n"
    "prints each problem as FILE:LINE: PROBLEM, or \"grants: ok\".\n"
    "Exit status 1 if there are problems.\n"
    "\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       $BOXMAKER_HOME/run/owner-broker/admin.sock)\n"
    "  --help               this text\n";

int
cmd_grants_check(const struct cli_command *cmd, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	char path[SOCK_PATH_MAX];
	const char *socket = NULL;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			socket = optarg;
			break;
		case 'h':
			return cli_help(cmd, grants_help);
		default:
			return cli_option_error(cmd, ch, argv);
		}
	}
	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	if ((r = options_socket(cmd, socket, SOCK_ADMIN_REL, path)) != CLI_OK)
		return r;
	return cli_fail("grants check: not implemented yet in this build");
}
