/*
 * cases-write.c: bxtool write PATH: missing directories made 0755 and a
 * new file 0644 under the test's umask of 077; an existing file's mode
 * kept; a symlink replaced, its target untouched; a directory, a file in
 * the way and content past the limit refused with nothing changed; never
 * a temporary file left behind.
 */
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cases.h"

/* bxtool write PATH with content on stdin; final is its last word. */
static void
expect_write(const char *path, const char *content, size_t len,
    const char *final)
{
	const char *args[] = { "write", path, NULL };
	char want[CASE_PATH_MAX + 64];
	struct spawn s;

	spawn_run(&s, args, content, len, 0);
	if (strcmp(final, "ok") == 0) {
		snprintf(want, sizeof(want), "wrote %zu bytes to %s", len, path);
		expect_bytes(&s, 0, want, strlen(want), final);
	} else
		expect_bytes(&s, 0, "", 0, final);
	spawn_free(&s);
}

static void
expect_content(const char *path, const char *want, size_t wantlen)
{
	char *got;
	size_t len;

	got = read_back(path, &len);
	assert_int_equal(len, wantlen);
	assert_memory_equal(got, want, wantlen);
	free(got);
}

static void
expect_mode(const char *path, mode_t type, mode_t mode)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	assert_int_equal(st.st_mode & S_IFMT, type);
	assert_int_equal(st.st_mode & 07777, mode);
}

void
test_write_parents(void **state)
{
	char path[CASE_PATH_MAX];

	(void)state;
	expect_write(at(path, "a/b/new.txt"), "h\xc3\xa9llo\n", 7, "ok");
	expect_content(path, "h\xc3\xa9llo\n", 7);
	expect_mode(path, S_IFREG, 0644);
	expect_mode(at(path, "a"), S_IFDIR, 0755);
	expect_mode(at(path, "a/b"), S_IFDIR, 0755);
	assert_false(has_temporary(path));
	assert_false(has_temporary(case_dir));
	/* Empty content, and a doubled slash on the way. */
	expect_write(at(path, "a//c/empty"), "", 0, "ok");
	expect_content(path, "", 0);
	expect_mode(at(path, "a/c"), S_IFDIR, 0755);
}

void
test_write_keeps_mode(void **state)
{
	char path[CASE_PATH_MAX];

	(void)state;
	make_file(at(path, "f"), "old content", 11, 0600);
	expect_write(path, "new", 3, "ok");
	expect_content(path, "new", 3);
	expect_mode(path, S_IFREG, 0600);
	make_file(path, "x", 1, 0751);
	expect_write(path, "again", 5, "ok");
	expect_mode(path, S_IFREG, 0751);
	assert_false(has_temporary(case_dir));
}

void
test_write_replaces_symlink(void **state)
{
	char outside[CASE_PATH_MAX], link[CASE_PATH_MAX];

	(void)state;
	make_file(at(outside, "outside"), "keep", 4, 0600);
	assert_int_equal(mkdir(at(link, "in"), 0700), 0);
	assert_int_equal(symlink(outside, at(link, "in/link")), 0);
	expect_write(link, "new", 3, "ok");
	expect_mode(link, S_IFREG, 0644);
	expect_content(link, "new", 3);
	expect_content(outside, "keep", 4);
	expect_mode(outside, S_IFREG, 0600);
	/* A dangling one too. */
	assert_int_equal(symlink("/nonexistent/x", at(link, "dangling")), 0);
	expect_write(link, "d", 1, "ok");
	expect_mode(link, S_IFREG, 0644);
	assert_int_equal(access("/nonexistent/x", F_OK), -1);
	assert_false(has_temporary(case_dir));
	assert_false(has_temporary(at(link, "in")));
}

void
test_write_refused(void **state)
{
	char path[CASE_PATH_MAX], inner[CASE_PATH_MAX];
	char final[CASE_PATH_MAX + 64];

	(void)state;
	assert_int_equal(mkdir(at(path, "dir"), 0700), 0);
	make_file(at(inner, "dir/inner"), "x", 1, 0600);
	snprintf(final, sizeof(final), "failed is a directory: %s", path);
	expect_write(path, "new", 3, final);
	expect_mode(path, S_IFDIR, 0700);
	expect_content(inner, "x", 1);
	assert_false(has_temporary(case_dir));
	/* A file where a directory should be made. */
	make_file(at(path, "file"), "x", 1, 0600);
	snprintf(final, sizeof(final), "failed not a directory: %s", path);
	expect_write(at(inner, "file/sub/f"), "new", 3, final);
	expect_content(path, "x", 1);
	snprintf(final, sizeof(final), "failed not a file name: %s/", path);
	snprintf(inner, sizeof(inner), "%s/", path);
	expect_write(inner, "new", 3, final);
	assert_false(has_temporary(case_dir));
}

void
test_write_limit(void **state)
{
	char path[CASE_PATH_MAX], *big;

	(void)state;
	assert_non_null(big = malloc(CASE_BIG + 1));
	memset(big, 'y', CASE_BIG + 1);
	expect_write(at(path, "big"), big, CASE_BIG + 1,
	    "failed content is larger than 1048576 bytes");
	errno = 0;
	assert_int_equal(access(path, F_OK), -1);
	assert_int_equal(errno, ENOENT);
	expect_write(path, big, CASE_BIG, "ok");
	expect_content(path, big, CASE_BIG);
	assert_false(has_temporary(case_dir));
	free(big);
}

/* The file is in place even if nobody reads what bxtool says of it. */
void
test_write_no_reader(void **state)
{
	const char *args[] = { "write", NULL, NULL };
	char path[CASE_PATH_MAX];
	struct spawn s;

	(void)state;
	args[1] = at(path, "f");
	spawn_run(&s, args, "content", 7, SPAWN_NO_READER);
	expect_bytes(&s, 0, "", 0, "ok");
	spawn_free(&s);
	expect_content(path, "content", 7);
}
