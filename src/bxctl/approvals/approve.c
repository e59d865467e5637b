/*
 * approve.c: `bxctl approve ID [--for DURATION]` and `bxctl refuse ID`,
 * the owner's answer to one pending approval. --for also leaves a grant
 * behind (approve_for.h).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/approvals/answer.h"
#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "proto/escape.h"
#include "bxctl/common/options.h"
#include "bxctl/common/when.h"
#include "bxctl/grants/approve_for.h"

static const char approve_help[] =
    "Approves pending approval ID. brokerd decides again with the grants\n"
    "and the session as they are now, and prints whether the call runs.\n"
    "With --for, it first writes a grant that lets the same call through\n"
    "without asking for that long: grants/approved-<tool>-<ID>.toml, for\n"
    "that exact path (read_file, write_file) or host (http_fetch), mode\n"
    "auto, with the classes of the grant that asked and never outliving\n"
    "it. A shell call is refused (a shell grant would let every command\n"
    "run in its directory) and still waits.\n"
    "\n"
    "  --for DURATION       a whole number and s, m, h, d or w (30m, 1h,\n"
    "                       2d); at most 30 d\n"
    "  --config PATH        brokerd.toml, for the grants directory\n"
    "                       (default: brokerd's own default)\n"
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

/* What the command line of approve or refuse said. */
struct answer_opts {
	char		 ao_socket[SOCK_PATH_MAX];
	uint64_t	 ao_id;
	const char	*ao_reason;	/* refuse */
	const char	*ao_for;	/* approve; NULL: once */
	const char	*ao_config;	/* approve --for */
};

static int
check_reason(const struct cli_command *cmd, const char *reason)
{
	if (strlen(reason) > OPTIONS_REASON_MAX ||
	    !escape_valid_utf8(reason, strlen(reason)))
		return cli_usage_error(cmd, "--reason must be UTF-8 text of "
		    "at most %d bytes", OPTIONS_REASON_MAX);
	return CLI_OK;
}

/*
 * Parses the options of approve or refuse. Returns 0 to go on, or -1 with
 * *ret_status the exit status (--help, or a usage error already printed).
 */
static int
parse(const struct cli_command *cmd, int argc, char **argv, int refuse,
    struct answer_opts *o, int *ret_status)
{
	static const struct option approve_opts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "config", required_argument, NULL, 'c' },
		{ "for", required_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static const struct option refuse_opts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "reason", required_argument, NULL, 'r' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket = NULL;
	int ch, r = CLI_OK;

	memset(o, 0, sizeof(*o));
	optind = 0;
	opterr = 0;
	while (r == CLI_OK && (ch = getopt_long(argc, argv, ":h",
	    refuse ? refuse_opts : approve_opts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			socket = optarg;
			break;
		case 'c':
			o->ao_config = optarg;
			break;
		case 'f':
			o->ao_for = optarg;
			break;
		case 'r':
			if ((r = check_reason(cmd, optarg)) == CLI_OK)
				o->ao_reason = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, refuse ? refuse_help :
			    approve_help);
			return -1;
		default:
			r = cli_option_error(cmd, ch, argv);
			break;
		}
	}
	if (r == CLI_OK && o->ao_config != NULL && o->ao_for == NULL)
		r = cli_usage_error(cmd, "--config is only for --for");
	if (r == CLI_OK)
		r = options_operands(cmd, argc, argv, 1, "approval ID");
	if (r == CLI_OK)
		r = options_approval_id(cmd, argv[optind], &o->ao_id);
	if (r == CLI_OK)
		r = options_socket(cmd, socket, BX_HOME_ADMIN_SOCKET,
		    o->ao_socket);
	if (r != CLI_OK) {
		*ret_status = r;
		return -1;
	}
	return 0;
}

/* approve --for: the duration checked, then answer_approve_for(). */
static int
approve_with_grant(const struct cli_command *cmd, struct answer_opts *o)
{
	struct bx_error err;
	int64_t ms;

	if (when_duration(o->ao_for, APPROVE_FOR_MAX_MS, &ms, &err) == -1)
		return cli_usage_error(cmd, "--for: %s", err.msg);
	return answer_approve_for(o->ao_socket, o->ao_config, o->ao_id, ms,
	    stdout);
}

int
cmd_approve(const struct cli_command *cmd, int argc, char **argv)
{
	struct answer_opts o;
	int status;

	if (parse(cmd, argc, argv, 0, &o, &status) == -1)
		return status;
	if (o.ao_for != NULL)
		return approve_with_grant(cmd, &o);
	return answer_approve(o.ao_socket, o.ao_id, stdout);
}

int
cmd_refuse(const struct cli_command *cmd, int argc, char **argv)
{
	struct answer_opts o;
	int status;

	if (parse(cmd, argc, argv, 1, &o, &status) == -1)
		return status;
	return answer_refuse(o.ao_socket, o.ao_id, o.ao_reason, stdout);
}
