/*
 * test-grantprune.c: `bxctl grants prune` and grantprune.c against a
 * grants directory in a temp directory, run as the owner would: bxctl's
 * grants expired for longer than the bound go, each in one step; one
 * expired more recently stays; a grant the owner wrote is listed and
 * never removed, even one named approved-*; a file the loader refuses and
 * a live grant are untouched; a file changed since the scan stays; the
 * set left loads without problems.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxctl/grants/grantprune.h"
#include "bxctl/grants/grantwrite.h"
#include "bxctl/common/show.h"
#include "run.h"

#define DAY_MS		(24LL * 3600 * 1000)
#define BXCTL_NOTE	"Written by bxctl approve 7 --for: approval 7, " \
			"asked by grant notes.\nIt lets the same call " \
			"through without asking until it expires."

struct dirs {
	char	*top;
	char	 grants[4096];
	char	 config[4096];
	int64_t	 now;
};

static int
setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));
	FILE *f;

	assert_non_null(d);
	d->top = run_tempdir();
	d->now = show_now();
	snprintf(d->grants, sizeof(d->grants), "%s/grants", d->top);
	assert_int_equal(mkdir(d->grants, 0700), 0);
	snprintf(d->config, sizeof(d->config), "%s/brokerd.toml", d->top);
	assert_non_null(f = fopen(d->config, "w"));
	fprintf(f, "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n", d->top,
	    d->grants);
	fclose(f);
	*state = d;
	return 0;
}

static int
teardown(void **state)
{
	struct dirs *d = *state;

	run_rmdir(d->top);
	free(d);
	return 0;
}

/* Writes the grant id, expiring at expires, with note as its comment. */
static void
put(const struct dirs *d, const char *id, const char *note, int64_t expires)
{
	const char *paths[1] = { "/home/kyle/notes/a.md" };
	struct grant_text gt = { 0 };
	struct bx_error err;
	char *text;
	size_t len;

	gt.gt_comment = note;
	gt.gt_tool = "read_file";
	gt.gt_mode = "auto";
	gt.gt_max_taint = "private";
	gt.gt_class = "private";
	gt.gt_expires = expires;
	gt.gt_paths = paths;
	gt.gt_npaths = 1;
	if (grantwrite_text(&gt, &text, &len, &err) == -1 ||
	    grantwrite_put(d->grants, id, text, len, &err) == -1)
		fail_msg("writing %s: %s", id, err.msg);
	free(text);
}

static bool
present(const struct dirs *d, const char *id)
{
	char path[4200];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s.toml", d->grants, id);
	return lstat(path, &st) == 0;
}

/* Only the files the loader reads, and no file left aside by a removal. */
static int
files(const struct dirs *d)
{
	struct dirent *e;
	DIR *dir;
	int n = 0;

	assert_non_null(dir = opendir(d->grants));
	while ((e = readdir(dir)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (e->d_name[0] == '.')
			fail_msg("%s was left in the grants directory",
			    e->d_name);
		n++;
	}
	closedir(dir);
	return n;
}

/* The mixed directory every test starts from: 8 files. */
static void
populate(const struct dirs *d)
{
	FILE *f;
	char path[4200];

	put(d, "approved-read-file-1", BXCTL_NOTE, d->now - 30 * DAY_MS);
	put(d, "approved-read-file-2", BXCTL_NOTE, d->now - 8 * DAY_MS);
	put(d, "approved-read-file-3", BXCTL_NOTE, d->now - 1 * DAY_MS);
	put(d, "approved-read-file-4", BXCTL_NOTE, d->now + 1 * DAY_MS);
	put(d, "approved-by-hand", "I wrote this one myself.",
	    d->now - 30 * DAY_MS);
	put(d, "notes", "Mine.", d->now - 30 * DAY_MS);
	put(d, "notes-live", "Mine.", d->now + 30 * DAY_MS);
	snprintf(path, sizeof(path), "%s/approved-broken.toml", d->grants);
	assert_non_null(f = fopen(path, "w"));
	fprintf(f, "# " "Written by bxctl approve 9 --for\ntool = 1\n");
	fclose(f);
}

static void
test_prunes_only_bxctls_expired_past_the_bound(void **state)
{
	struct dirs *d = *state;
	struct grantprune *gp;
	struct bx_error err;

	populate(d);
	assert_int_equal(files(d), 8);
	if (grantprune_scan(d->grants, d->now, GRANTPRUNE_KEEP_MS, &gp,
	    &err) == -1)
		fail_msg("%s", err.msg);
	assert_int_equal(gp->gp_set->gs_len, 7);
	assert_int_equal(gp->gp_expired, 5);
	assert_int_equal(gp->gp_nprunable, 2);
	assert_int_equal(gp->gp_nkept, 1);
	assert_int_equal(gp->gp_nhand, 2);
	assert_string_equal(gp->gp_kept[0]->g_id, "approved-read-file-3");
	if (grantprune_remove(d->grants, gp, &err) == -1)
		fail_msg("%s", err.msg);
	assert_int_equal(grantprune_removed(gp), 2);
	grantprune_free(gp);
	assert_false(present(d, "approved-read-file-1"));
	assert_false(present(d, "approved-read-file-2"));
	assert_true(present(d, "approved-read-file-3"));
	assert_true(present(d, "approved-read-file-4"));
	assert_true(present(d, "approved-by-hand"));
	assert_true(present(d, "notes"));
	assert_true(present(d, "approved-broken"));
	assert_int_equal(files(d), 6);
}

/* A file the owner edited between the scan and the removal stays. */
static void
test_changed_since_the_scan_stays(void **state)
{
	struct dirs *d = *state;
	struct grantprune *gp;
	struct bx_error err;
	char path[4200];
	FILE *f;

	populate(d);
	if (grantprune_scan(d->grants, d->now, GRANTPRUNE_KEEP_MS, &gp,
	    &err) == -1)
		fail_msg("%s", err.msg);
	snprintf(path, sizeof(path), "%s/approved-read-file-1.toml",
	    d->grants);
	assert_non_null(f = fopen(path, "a"));
	fprintf(f, "# renewed by hand\n");
	fclose(f);
	if (grantprune_remove(d->grants, gp, &err) == -1)
		fail_msg("%s", err.msg);
	assert_int_equal(grantprune_removed(gp), 1);
	grantprune_free(gp);
	assert_true(present(d, "approved-read-file-1"));
	assert_false(present(d, "approved-read-file-2"));
	assert_int_equal(files(d), 7);
}

/* The command: what it says, --dry-run, --expired-for, a bad duration. */
static void
test_command(void **state)
{
	struct dirs *d = *state;
	struct run_result r;
	const char *dry[] = { "grants", "prune", "--dry-run", "--config",
	    d->config, NULL };
	const char *hour[] = { "grants", "prune", "--expired-for", "1h",
	    "--config", d->config, NULL };
	const char *bad[] = { "grants", "prune", "--expired-for", "soon",
	    "--config", d->config, NULL };

	populate(d);
	run_bxctl(dry, d->top, NULL, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "would remove approved-read-file-1 "
	    "(expired 30 d ago)\n"));
	assert_non_null(strstr(r.out, "kept approved-read-file-3 "));
	assert_non_null(strstr(r.out, "yours, expired: notes "));
	assert_non_null(strstr(r.out, "yours, expired: approved-by-hand "));
	assert_non_null(strstr(r.out, "would remove 2 of 5 expired grants"));
	run_result_free(&r);
	assert_int_equal(files(d), 8);

	run_bxctl(hour, d->top, NULL, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "removed approved-read-file-3 "));
	assert_non_null(strstr(r.out, "removed 3 of 5 expired grants "
	    "(bxctl's, expired more than 1 h ago); grants left: 4\n"));
	assert_non_null(strstr(r.out, "grant files with problems, not looked at: 1 "));
	run_result_free(&r);
	assert_int_equal(files(d), 5);
	assert_true(present(d, "notes"));
	assert_true(present(d, "approved-by-hand"));

	run_bxctl(bad, d->top, NULL, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "--expired-for"));
	run_result_free(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_prunes_only_bxctls_expired_past_the_bound, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_changed_since_the_scan_stays, setup, teardown),
		cmocka_unit_test_setup_teardown(test_command, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
