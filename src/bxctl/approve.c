/*
 * approve.c: `bxctl approve ID` and `bxctl refuse ID`, the owner's answer
 * to one pending approval.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "bxctl/answer.h"
#include "bxctl/commands.h"
#include "bxctl/escape.h"
#include "bxctl/options.h"

static const char approve_help[] =
    "Approves pending approval ID. brokerd decides again with the grants\n"
    "and the session as they are now, and prints whether the call runs.\n"
    "\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --help               this text\n";

static const char refuse_help[] =
    "Refuses pending approval ID: the call is denied (approval_refused).\n"
    "\n"
    "  --admin-socket PATH  brokerd's admin socket (default\n"
    "                       <home>/" BX_HOME_ADMIN_SOCKET ")\n"
    "  --reason TEXT        why, kept in the audit log\n"
    "  --help               this text\n";

/*
 * Parses the options both commands share; refuse also takes --reason.
 * Returns 0 to go on, or -1 with *ret_status the exit status (--help, or a
 * usage error already printed).
 */
static int
parse(const struct cli_command *cmd, int argc, char **argv, int refuse,
    char *path, uint64_t *ret_id, const char **ret_reason, int *ret_status)
{
	static const struct option approve_opts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option refuse_opts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket = NULL, *reason = NULL;
	int ch, r;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h",
	    refuse ? refuse_opts : approve_opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			socket = optarg;
			break;
		case 'r':
			if (strlen(optarg) > OPTIONS_REASON_MAX ||
			    !escape_valid_utf8(optarg, strlen(optarg))) {
				*ret_status = cli_usage_error(cmd, "--reason must "
				    "be UTF-8 text of at most %d bytes",
				    OPTIONS_REASON_MAX);
				return -1;
			}
			reason = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, refuse ? refuse_help :
			    approve_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	if ((r = options_operands(cmd, argc, argv, 1, "approval ID")) ==
	    CLI_OK)
		r = options_approval_id(cmd, argv[optind], ret_id);
	if (r == CLI_OK)
		r = options_socket(cmd, socket, BX_HOME_ADMIN_SOCKET, path);
	if (r != CLI_OK) {
		*ret_status = r;
		return -1;
	}
	*ret_reason = reason;
	return 0;
}

int
cmd_approve(const struct cli_command *cmd, int argc, char **argv)
{
	char path[SOCK_PATH_MAX];
	const char *reason;
	uint64_t id;
	int status;

	if (parse(cmd, argc, argv, 0, path, &id, &reason, &status) == -1)
		return status;
	(void)reason;
	return answer_approve(path, id, stdout);
}

int
cmd_refuse(const struct cli_command *cmd, int argc, char **argv)
{
	char path[SOCK_PATH_MAX];
	const char *reason;
	uint64_t id;
	int status;

	if (parse(cmd, argc, argv, 1, path, &id, &reason, &status) == -1)
		return status;
	return answer_refuse(path, id, reason, stdout);
}
