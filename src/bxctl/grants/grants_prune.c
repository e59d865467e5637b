/*
 * grants_prune.c: `bxctl grants prune`, the grants that `approve --for`
 * wrote removed once expired for longer than --expired-for (7 days by
 * default); the expired grants the owner wrote listed, never removed
 * (grantprune.h).
 */
#include <getopt.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/commands.h"
#include "proto/escape.h"
#include "bxctl/grants/grantprune.h"
#include "bxctl/common/options.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"

static const char grants_prune_help[] =
    "Removes the grants that bxctl approve --for wrote (ids approved-*,\n"
    "with bxctl's comment first) once they have been expired for longer\n"
    "than DURATION, since brokerd reads every grant file at every call.\n"
    "A grant you wrote is never removed: the expired ones are listed for\n"
    "you to remove with bxctl grants remove, or to renew.\n"
    "\n"
    "  --expired-for DURATION  how long an expired grant of bxctl's is\n"
    "                       kept, as 30m, 12h, 7d or 2w (default 7d)\n"
    "  --dry-run            say what would go, and remove nothing\n"
    "  --config PATH        brokerd.toml, for the grants directory\n"
    "                       (default: brokerd's own default)\n"
    "  --help               this text\n";

struct prune_args {
	const char	*config;
	int64_t		 keep_ms;
	bool		 dry_run;
};

/* Returns 0 with *a, or -1 with *ret_status. */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    struct prune_args *a, int *ret_status)
{
	static const struct option longopts[] = {
		{ "expired-for", required_argument, NULL, 'e' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct bx_error err;
	int ch;

	a->config = NULL;
	a->keep_ms = GRANTPRUNE_KEEP_MS;
	a->dry_run = false;
	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'e':
			if (when_duration(optarg, GRANTPRUNE_KEEP_MAX_MS,
			    &a->keep_ms, &err) == -1) {
				*ret_status = cli_fail("--expired-for: %s",
				    err.msg);
				return -1;
			}
			break;
		case 'n':
			a->dry_run = true;
			break;
		case 'c':
			a->config = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, grants_prune_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	*ret_status = options_operands(cmd, argc, argv, 0, NULL);
	return *ret_status == CLI_OK ? 0 : -1;
}

/*
 * One line per grant: its id and how long ago it expired; with only,
 * just those it marks.
 */
static void
list(const char *what, const struct grant *const *gs, size_t n,
    const bool *only, int64_t now)
{
	char ago[SHOW_DURATION_MAX];
	size_t i;

	for (i = 0; i < n; i++) {
		if (only != NULL && !only[i])
			continue;
		show_duration(now - gs[i]->g_expires, ago);
		printf("%s ", what);
		escape_puts(stdout, gs[i]->g_id);
		printf(" (expired %s ago)\n", ago);
	}
}

/* How many files the problems are in (they are sorted by file). */
static size_t
bad_files(const struct grants *set)
{
	size_t i, n = 0;

	for (i = 0; i < set->gs_nproblems; i++)
		if (i == 0 || strcmp(set->gs_problems[i].gp_file,
		    set->gs_problems[i - 1].gp_file) != 0)
			n++;
	return n;
}

/* What was kept and why, after the removals. */
static void
summary(const struct grantprune *gp, const struct prune_args *a,
    size_t removed, int64_t now)
{
	char keep[SHOW_DURATION_MAX];

	show_duration(a->keep_ms, keep);
	list("kept", gp->gp_kept, gp->gp_nkept, NULL, now);
	list("yours, expired:", gp->gp_hand, gp->gp_nhand, NULL, now);
	printf("%s %zu of %zu expired grants (bxctl's, expired more than %s "
	    "ago); grants left: %zu\n", a->dry_run ? "would remove" :
	    "removed", removed, gp->gp_expired, keep, gp->gp_set->gs_len -
	    (a->dry_run ? 0 : removed));
	if (gp->gp_nhand > 0)
		printf("the expired grants you wrote stay: bxctl grants remove "
		    "ID takes one out\n");
	if (bad_files(gp->gp_set) > 0)
		printf("grant files with problems, not looked at: %zu (bxctl "
		    "grants check lists them)\n", bad_files(gp->gp_set));
}

int
cmd_grants_prune(const struct cli_command *cmd, int argc, char **argv)
{
	struct grantprune *gp = NULL;
	struct prune_args a;
	struct bx_error err;
	size_t removed = 0;
	int64_t now = show_now();
	char *dir;
	int status;

	if (parse(cmd, argc, argv, &a, &status) == -1)
		return status;
	if ((status = options_grants_dir(a.config, &dir)) != CLI_OK)
		return status;
	if (grantprune_scan(dir, now, a.keep_ms, &gp, &err) == -1) {
		status = cli_fail("%s", err.msg);
		goto out;
	}
	if (a.dry_run) {
		list("would remove", gp->gp_prunable, gp->gp_nprunable, NULL,
		    now);
		removed = gp->gp_nprunable;
	} else {
		if (grantprune_remove(dir, gp, &err) == -1)
			status = cli_fail("%s", err.msg);
		removed = grantprune_removed(gp);
		list("removed", gp->gp_prunable, gp->gp_nprunable,
		    gp->gp_gone, now);
	}
	summary(gp, &a, removed, now);
out:
	grantprune_free(gp);
	free(dir);
	return status;
}
