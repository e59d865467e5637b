/*
 * test-pathsearch.c: bx_path_search (src/proto/pathsearch.h) on a tree the
 * test makes: PATH's absolute directories in order, relative and empty
 * entries skipped, files that are not executable passed over, a root that
 * stands in for "/", and ret untouched when nothing is found.
 */
#include <sys/stat.h>

#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/pathsearch.h"

struct tree {
	char	dir[PATH_MAX];
};

static void
put(const struct tree *t, const char *rel, mode_t mode)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", t->dir, rel);
	assert_non_null(fp = fopen(path, "w"));
	fputs("#!/bin/sh\n", fp);
	fclose(fp);
	assert_int_equal(chmod(path, mode), 0);
}

static int
setup(void **state)
{
	struct tree *t = calloc(1, sizeof(*t));
	char path[PATH_MAX * 2];

	snprintf(t->dir, sizeof(t->dir), "%s/bx-pathsearch-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(t->dir) == NULL)
		return -1;
	snprintf(path, sizeof(path), "%s/a", t->dir);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/b", t->dir);
	mkdir(path, 0755);
	put(t, "a/plain", 0644);
	put(t, "b/plain", 0755);
	put(t, "b/prog", 0755);
	put(t, "a/prog", 0755);
	*state = t;
	return 0;
}

static int
teardown(void **state)
{
	struct tree *t = *state;
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		return -1;
	free(t);
	return 0;
}

static void
test_first_absolute_directory_wins(void **state)
{
	struct tree *t = *state;
	char list[PATH_MAX * 3], want[PATH_MAX * 2], got[PATH_MAX];

	snprintf(list, sizeof(list), "/nonexistent:%s/a:%s/b", t->dir, t->dir);
	assert_int_equal(bx_path_search(list, "prog", "/", got, sizeof(got)),
	    0);
	snprintf(want, sizeof(want), "%s/a/prog", t->dir);
	assert_string_equal(got, want);
	/* a/plain is not executable: b's is found. */
	assert_int_equal(bx_path_search(list, "plain", "/", got, sizeof(got)),
	    0);
	snprintf(want, sizeof(want), "%s/b/plain", t->dir);
	assert_string_equal(got, want);
}

static void
test_relative_entries_are_skipped(void **state)
{
	struct tree *t = *state;
	char got[PATH_MAX] = "untouched", cwd[PATH_MAX];

	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(t->dir), 0);
	assert_int_equal(bx_path_search("a:./b::b", "prog", "/", got,
	    sizeof(got)), -1);
	assert_int_equal(chdir(cwd), 0);
	assert_string_equal(got, "untouched");
}

static void
test_root_stands_in_for_slash(void **state)
{
	struct tree *t = *state;
	char got[PATH_MAX];

	assert_int_equal(bx_path_search("/x:/b", "prog", t->dir, got,
	    sizeof(got)), 0);
	assert_string_equal(got, "/b/prog");
	assert_int_equal(bx_path_search("/x", "prog", t->dir, got,
	    sizeof(got)), -1);
}

static void
test_a_path_that_does_not_fit_is_not_found(void **state)
{
	struct tree *t = *state;
	char list[PATH_MAX * 2], got[8] = "same";

	snprintf(list, sizeof(list), "%s/b", t->dir);
	assert_int_equal(bx_path_search(list, "prog", "/", got, sizeof(got)),
	    -1);
	assert_string_equal(got, "same");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_absolute_directory_wins),
		cmocka_unit_test(test_relative_entries_are_skipped),
		cmocka_unit_test(test_root_stands_in_for_slash),
		cmocka_unit_test(test_a_path_that_does_not_fit_is_not_found),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
