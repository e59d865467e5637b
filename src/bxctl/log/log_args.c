/*
 * log_args.c: `bxctl log`'s options (log_args.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/audit/audit_read.h"
#include "bxctl/common/options.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/log/log_args.h"
#include "proto/types.h"

static const char log_help[] =
    "Reads the audit log in HOME/audit itself (brokerd need not run),\n"
    "verifies the chain as it reads, and prints one line per call, newest\n"
    "last: local time, session, tool, outcome (allowed; ask, then who\n"
    "approved or refused it, or expired, pending or abandoned; denied and\n"
    "why), grant, result and bytes, class, taint after, and arguments.\n"
    "Recoveries and accepted breaks have lines of their own. It ends by\n"
    "saying the chain verified, or stops at the first failure with its\n"
    "FILE:LINE, exit status 1.\n"
    "\n"
    "  --session ID      only the calls of session ID\n"
    "  --tool NAME       only calls of tool NAME\n"
    "  --outcome WHAT    only calls that were allowed (ran without\n"
    "                    asking), ask (waited for the owner), denied (did\n"
    "                    not run) or failed (ran and failed)\n"
    "  --since TIME      only calls from TIME on: RFC 3339\n"
    "                    (2025-09-18T12:00:00Z) or a time before now\n"
    "                    (30s, 90m, 2h, 3d, 1w)\n"
    "  --until TIME      only calls up to TIME\n"
    "  -n N              only the last N lines\n"
    "  --call ID         every record of call ID, each field in full\n"
    "                    (with --session, of that session only)\n"
    "  --json            one JSON object per line, times in UTC\n"
    "  --follow          go on printing calls as they are recorded, across\n"
    "                    the day's new file, until interrupted\n"
    "  --home PATH       the Boxmaker home (default $BOXMAKER_HOME, else\n"
    "                    /var/lib/boxmaker for root and\n"
    "                    ~/.local/share/boxmaker for anyone else)\n"
    "  --help            this text\n";

static int
outcome(const struct cli_command *cmd, const char *s, int *ret)
{
	static const char *names[] = { "allowed", "ask", "denied", "failed" };
	int i;

	for (i = 0; i < 4; i++)
		if (strcmp(s, names[i]) == 0) {
			*ret = i;
			return CLI_OK;
		}
	return cli_usage_error(cmd, "--outcome '%s': give allowed, ask, "
	    "denied or failed", s);
}

static int
lines(const struct cli_command *cmd, const char *s, size_t *ret)
{
	uintmax_t v;
	char *end;

	errno = 0;
	v = s[0] >= '0' && s[0] <= '9' ? strtoumax(s, &end, 10) : 0;
	if (v == 0 || errno != 0 || *end != '\0' || v > LOG_LINES_MAX)
		return cli_usage_error(cmd, "-n '%s': give a number from 1 to "
		    "%d", s, LOG_LINES_MAX);
	*ret = (size_t)v;
	return CLI_OK;
}

static int
when(const struct cli_command *cmd, const char *opt, const char *s,
    bool *ret_has, int64_t *ret)
{
	struct bx_error err;

	if (when_parse(s, show_now(), ret, &err) == -1)
		return cli_usage_error(cmd, "%s: %s", opt, err.msg);
	*ret_has = true;
	return CLI_OK;
}

/* One option; the exit status so far. */
static int
option(const struct cli_command *cmd, int ch, struct log_args *a,
    const char **home)
{
	struct bx_error err;

	switch (ch) {
	case 's':
		if (bx_session_id_check(optarg, &err) == -1)
			return cli_usage_error(cmd, "--session: %s", err.msg);
		a->session = a->filter.session = optarg;
		return CLI_OK;
	case 't':
		a->filter.tool = optarg;
		return CLI_OK;
	case 'o':
		return outcome(cmd, optarg, &a->filter.outcome);
	case 'S':
		return when(cmd, "--since", optarg, &a->filter.has_since,
		    &a->filter.since);
	case 'U':
		return when(cmd, "--until", optarg, &a->filter.has_until,
		    &a->filter.until);
	case 'n':
		return lines(cmd, optarg, &a->tail);
	case 'c':
		if (bx_call_id_check(optarg, &err) == -1)
			return cli_usage_error(cmd, "--call: %s", err.msg);
		a->call = optarg;
		return CLI_OK;
	case 'j':
		a->json = true;
		return CLI_OK;
	case 'f':
		a->follow = true;
		return CLI_OK;
	case 'H':
		*home = optarg;
		return CLI_OK;
	default:
		return CLI_USAGE;
	}
}

/* What the options add up to; the exit status. */
static int
check(const struct cli_command *cmd, int argc, char **argv,
    struct log_args *a, const char *home)
{
	const struct log_filter *f = &a->filter;
	struct bx_error err;
	int r;

	if ((r = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return r;
	if (a->call != NULL && (f->tool != NULL || f->outcome != -1 ||
	    f->has_since || f->has_until || a->tail > 0))
		return cli_usage_error(cmd, "--call prints every record of one "
		    "call; it takes only --session, --json, --follow and "
		    "--home");
	if (f->has_since && f->has_until && f->since > f->until)
		return cli_usage_error(cmd, "--since is after --until");
	if (audit_home(home, a->home, &err) == -1 ||
	    audit_dir(a->home, a->dir, &err) == -1)
		return cli_usage_error(cmd, "%s", err.msg);
	return CLI_OK;
}

int
log_args_parse(const struct cli_command *cmd, int argc, char **argv,
    struct log_args *ret, int *ret_status)
{
	static const struct option longopts[] = {
		{ "session", required_argument, NULL, 's' },
		{ "tool", required_argument, NULL, 't' },
		{ "outcome", required_argument, NULL, 'o' },
		{ "since", required_argument, NULL, 'S' },
		{ "until", required_argument, NULL, 'U' },
		{ "call", required_argument, NULL, 'c' },
		{ "json", no_argument, NULL, 'j' },
		{ "follow", no_argument, NULL, 'f' },
		{ "home", required_argument, NULL, 'H' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct log_args args, *a = &args;
	const char *home = NULL;
	int ch, r = CLI_OK;

	memset(a, 0, sizeof(*a));
	a->filter.outcome = -1;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":hn:", longopts, NULL)) != -1) {
		if (ch == 'h')
			r = cli_help(cmd, log_help);
		else if (ch == '?' || ch == ':')
			r = cli_option_error(cmd, ch, argv);
		else
			r = option(cmd, ch, a, &home);
		if (ch == 'h' || r != CLI_OK) {
			*ret_status = r;
			return -1;
		}
	}
	if ((*ret_status = check(cmd, argc, argv, a, home)) != CLI_OK)
		return -1;
	*ret = args;
	return 0;
}
