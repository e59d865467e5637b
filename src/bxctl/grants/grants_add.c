/*
 * grants_add.c: `bxctl grants add`, a grant file written as a person would
 * write it (grants/<id>.toml), judged by brokerd's own loader first and
 * refused in its words, and never written over another (grantwrite.h).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bxctl/commands.h"
#include "bxctl/common/options.h"
#include "bxctl/common/problems.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/grants/grantwrite.h"
#include "proto/types.h"

/* How far ahead --expires may be: what a Timestamp holds is far more. */
#define GRANTS_ADD_MAX_MS	(100LL * 366 * 24 * 3600 * 1000)

static const char grants_add_help[] =
    "Writes a grant file, grants/ID.toml, as you would write it by hand\n"
    "(boxmaker-grant(5)). brokerd's own loader judges it first: what\n"
    "brokerd would refuse is refused in its words, and nothing is\n"
    "written. An existing file is never replaced.\n"
    "\n"
    "  --path PATH          an absolute path (read_file, write_file, shell);\n"
    "                       give it again for more\n"
    "  --host HOST          a host or *.host pattern (http_fetch); again\n"
    "                       for more\n"
    "  --mode MODE          auto, ask or deny\n"
    "  --expires WHEN       a duration from now (30m, 1h, 2d, 52w) or an\n"
    "                       RFC 3339 date-time (2027-01-01T00:00:00Z)\n"
    "  --max-taint CLASS    public, private or secret (default private)\n"
    "  --class CLASS        result_class (default private)\n"
    "  --untrusted          results may carry instructions\n"
    "  --secret NAME        http_fetch only: send the secret NAME\n"
    "                       (secrets/NAME.toml, boxmaker-secret(5)) to\n"
    "                       the hosts, which must be exact names\n"
    "  --id ID              the grant id (default TOOL-YYYYMMDD-HHMMSS,\n"
    "                       UTC, with - for _)\n"
    "  --config PATH        brokerd.toml, for the grants directory\n"
    "                       (default: brokerd's own default)\n"
    "  --help               this text\n";

/* The command line, its lists pointing into argv. */
struct add_opts {
	const char	*ad_tool;
	const char	*ad_mode;
	const char	*ad_expires;
	const char	*ad_max_taint;
	const char	*ad_class;
	const char	*ad_id;
	const char	*ad_config;
	const char	*ad_secret;
	bool		 ad_untrusted;
	const char	**ad_paths;
	size_t		 ad_npaths;
	const char	**ad_hosts;
	size_t		 ad_nhosts;
};

static int
parse(const struct cli_command *cmd, int argc, char **argv,
    struct add_opts *o)
{
	static const struct option longopts[] = {
		{ "path", required_argument, NULL, 'p' },
		{ "host", required_argument, NULL, 'H' },
		{ "mode", required_argument, NULL, 'm' },
		{ "expires", required_argument, NULL, 'e' },
		{ "max-taint", required_argument, NULL, 't' },
		{ "class", required_argument, NULL, 'k' },
		{ "untrusted", no_argument, NULL, 'u' },
		{ "secret", required_argument, NULL, 's' },
		{ "id", required_argument, NULL, 'i' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'p':
			o->ad_paths[o->ad_npaths++] = optarg;
			break;
		case 'H':
			o->ad_hosts[o->ad_nhosts++] = optarg;
			break;
		case 'm':
			o->ad_mode = optarg;
			break;
		case 'e':
			o->ad_expires = optarg;
			break;
		case 't':
			o->ad_max_taint = optarg;
			break;
		case 'k':
			o->ad_class = optarg;
			break;
		case 'u':
			o->ad_untrusted = true;
			break;
		case 's':
			o->ad_secret = optarg;
			break;
		case 'i':
			o->ad_id = optarg;
			break;
		case 'c':
			o->ad_config = optarg;
			break;
		case 'h':
			cli_help(cmd, grants_add_help);
			return -1;
		default:
			return cli_option_error(cmd, ch, argv);
		}
	}
	if (options_operands(cmd, argc, argv, 1, "TOOL") != CLI_OK)
		return CLI_USAGE;
	o->ad_tool = argv[optind];
	if (o->ad_mode == NULL)
		return cli_usage_error(cmd, "missing --mode auto|ask|deny");
	if (o->ad_expires == NULL)
		return cli_usage_error(cmd, "missing --expires DURATION|TIME");
	return CLI_OK;
}

/* TOOL-YYYYMMDD-HHMMSS of now, UTC, into buf (BX_ID_MAX + 1 bytes). */
static void
default_id(const char *tool, int64_t now, char *buf)
{
	time_t t = (time_t)(now / 1000);
	char stamp[32];
	struct tm tm;
	char *p;

	gmtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(buf, BX_ID_MAX + 1, "%.40s-%s", tool, stamp);
	for (p = buf; *p != '\0'; p++)
		if (*p == '_')
			*p = '-';
}

/* Prints the loader's problems with the text, as `grants check` would. */
static int
refused(const struct grants *set)
{
	struct problem_list problems = { NULL, 0 };
	size_t i;
	int status = CLI_FAIL;

	for (i = 0; i < set->gs_nproblems; i++)
		if (problems_add(&problems, set->gs_problems[i].gp_file,
		    set->gs_problems[i].gp_line,
		    set->gs_problems[i].gp_problem) == -1) {
			status = cli_fail("out of memory");
			goto out;
		}
	problems_refused(&problems, "grants add", "grant");
out:
	problems_clear(&problems);
	return status;
}

/* Builds, judges and writes the grant; the exit status. */
static int
add(const struct cli_command *cmd, const struct add_opts *o,
    const char *dir)
{
	struct grant_text gt = { 0 };
	struct grants *set = NULL;
	struct bx_error err;
	char id[BX_ID_MAX + 1], *text = NULL;
	int64_t now = show_now();
	size_t len;
	int status = CLI_FAIL;

	if (when_future(o->ad_expires, now, GRANTS_ADD_MAX_MS, &gt.gt_expires,
	    &err) == -1)
		return cli_usage_error(cmd, "--expires: %s", err.msg);
	if (o->ad_id != NULL)
		snprintf(id, sizeof(id), "%s", o->ad_id);
	else
		default_id(o->ad_tool, now, id);
	gt.gt_comment = "Written by bxctl grants add.";
	gt.gt_tool = o->ad_tool;
	gt.gt_mode = o->ad_mode;
	gt.gt_max_taint = o->ad_max_taint != NULL ? o->ad_max_taint :
	    "private";
	gt.gt_class = o->ad_class != NULL ? o->ad_class : "private";
	gt.gt_untrusted = o->ad_untrusted;
	gt.gt_paths = o->ad_paths;
	gt.gt_npaths = o->ad_npaths;
	gt.gt_hosts = o->ad_hosts;
	gt.gt_nhosts = o->ad_nhosts;
	gt.gt_secret = o->ad_secret;
	if (o->ad_id != NULL && strlen(o->ad_id) >= sizeof(id))
		status = cli_fail("'%s' is not a valid grant id (1 to %d "
		    "characters of a-z, 0-9 and -)", o->ad_id, BX_ID_MAX);
	else if (grantwrite_text(&gt, &text, &len, &err) == -1 ||
	    grantwrite_check(dir, id, text, len, &set, &err) == -1)
		status = cli_fail("%s", err.msg);
	else if (!grants_valid(set))
		status = refused(set);
	else if (grantwrite_put(dir, id, text, len, &err) == -1)
		status = cli_fail("%s", err.msg);
	else {
		problems_written(stdout, "added grant", id, dir);
		status = CLI_OK;
	}
	grants_free(set);
	free(text);
	return status;
}

int
cmd_grants_add(const struct cli_command *cmd, int argc, char **argv)
{
	struct add_opts o;
	char *dir = NULL;
	int status;

	memset(&o, 0, sizeof(o));
	/* Each --path or --host takes two words at least. */
	o.ad_paths = calloc((size_t)argc, sizeof(*o.ad_paths));
	o.ad_hosts = calloc((size_t)argc, sizeof(*o.ad_hosts));
	if (o.ad_paths == NULL || o.ad_hosts == NULL)
		status = cli_fail("out of memory");
	else if ((status = parse(cmd, argc, argv, &o)) == -1)
		status = CLI_OK;
	else if (status == CLI_OK &&
	    (status = options_grants_dir(o.ad_config, &dir)) == CLI_OK)
		status = add(cmd, &o, dir);
	free(dir);
	free(o.ad_paths);
	free(o.ad_hosts);
	return status;
}
