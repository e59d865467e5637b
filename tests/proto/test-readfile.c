/*
 * test-readfile.c: src/proto/readfile.h on real files in a temp dir: whole
 * files (empty, exactly the limit, past it, larger than the first buffer),
 * a directory, a FIFO (refused at once, not waited on), no file (errno
 * ENOENT), O_NOFOLLOW, a descriptor already open, and a file larger than
 * its size says.
 */
#include <sys/stat.h>

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/readfile.h"

static char dir[64];

static int
setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "/tmp/test-readfile.XXXXXX");
	return mkdtemp(dir) == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	char cmd[128];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* Writes len bytes of c to dir/name; returns the path (static). */
static const char *
make(const char *name, char c, size_t len)
{
	static char path[128];
	char *buf;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_non_null(buf = malloc(len + 1));
	memset(buf, c, len);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fwrite(buf, 1, len, fp), len);
	assert_int_equal(fclose(fp), 0);
	free(buf);
	return path;
}

/*
 * fstat() as readfile.c calls it (fstat64, with 64-bit offsets), made to
 * report a regular file fstat_short bytes shorter than it is, as if it
 * grew between fstat and read.
 */
static off_t fstat_short;

int	fstat64(int, struct stat64 *);

int
fstat64(int fd, struct stat64 *st)
{
	static int (*real)(int, struct stat64 *);
	int rc;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "fstat64");
	rc = real(fd, st);
	if (rc == 0 && S_ISREG(st->st_mode) && st->st_size >= fstat_short)
		st->st_size -= fstat_short;
	return rc;
}

static void
test_whole_files_up_to_the_limit(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	size_t len, sizes[] = { 0, 1, 100, 4095, 4096, 4097, 70000 };
	char *buf;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		const char *p = make("f", 'q', sizes[i]);

		if (bx_readfile(p, 70000, &buf, &len, &why, &err) == -1)
			fail_msg("%zu bytes: %s", sizes[i], err.msg);
		assert_int_equal(len, sizes[i]);
		/* A string too: there is a '\0' after the bytes. */
		assert_int_equal(strlen(buf), sizes[i]);
		free(buf);
		/* 0 is no limit. */
		assert_int_equal(bx_readfile(p, 0, &buf, &len, NULL, &err), 0);
		assert_int_equal(len, sizes[i]);
		free(buf);
	}
}

static void
test_past_the_limit_is_refused(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	const char *p = make("big", 'x', 1025);
	char *buf = (char *)"untouched";
	size_t len = 7;

	(void)state;
	assert_int_equal(bx_readfile(p, 1024, &buf, &len, &why, &err), -1);
	assert_int_equal(why, BX_READFILE_TOO_LARGE);
	assert_non_null(strstr(err.msg, p));
	assert_non_null(strstr(err.msg, "is larger than 1024 bytes"));
	/* Out-parameters are written only on success. */
	assert_string_equal(buf, "untouched");
	assert_int_equal(len, 7);
}

static void
test_a_directory_and_no_file(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	char path[128], *buf;
	size_t len;

	(void)state;
	assert_int_equal(bx_readfile(dir, 100, &buf, &len, &why, &err), -1);
	assert_int_equal(why, BX_READFILE_DIRECTORY);
	assert_non_null(strstr(err.msg, "is a directory"));
	assert_non_null(strstr(err.msg, dir));
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(bx_readfile(path, 100, &buf, &len, &why, &err), -1);
	assert_int_equal(why, BX_READFILE_OPEN);
	assert_int_equal(errno, ENOENT);
	assert_non_null(strstr(err.msg, "cannot open"));
	assert_non_null(strstr(err.msg, path));
}

static void
test_a_fifo_is_refused_without_waiting(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	char path[128], *buf;
	size_t len;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	/* Nobody writes: a blocking open would never return. */
	assert_int_equal(bx_readfile(path, 100, &buf, &len, &why, &err), -1);
	assert_int_equal(why, BX_READFILE_NOT_REGULAR);
	assert_non_null(strstr(err.msg, "is not a regular file"));
}

static void
test_at_a_directory_and_nofollow(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	char path[128], *buf;
	size_t len, size;
	int dfd, fd;

	(void)state;
	make("target", 'a', 10);
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("target", path), 0);
	assert_true((dfd = open(dir, O_RDONLY | O_DIRECTORY)) != -1);
	assert_int_equal(bx_readfile_at(dfd, "link", "shown-name", 0, 100,
	    &buf, &len, &why, &err), 0);
	assert_int_equal(len, 10);
	free(buf);
	assert_int_equal(bx_readfile_at(dfd, "link", "shown-name",
	    O_NOFOLLOW, 100, &buf, &len, &why, &err), -1);
	assert_int_equal(why, BX_READFILE_OPEN);
	assert_int_equal(errno, ELOOP);
	/* Messages name the file as the caller shows it. */
	assert_non_null(strstr(err.msg, "shown-name"));
	assert_int_equal(bx_readfile_open(dfd, "target", "t", O_NOFOLLOW, 5,
	    &fd, &size, &why, &err), -1);
	assert_int_equal(why, BX_READFILE_TOO_LARGE);
	assert_int_equal(bx_readfile_open(dfd, "target", "t", O_NOFOLLOW, 0,
	    &fd, &size, &why, &err), 0);
	assert_int_equal(size, 10);
	assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	close(fd);
	close(dfd);
}

static void
test_an_open_descriptor(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	const char *p = make("fd", 'z', 5000);
	char *buf;
	size_t len;
	int fd;

	(void)state;
	assert_true((fd = open(p, O_RDONLY)) != -1);
	assert_int_equal(bx_readfile_fd(fd, p, 4999, &buf, &len, &why, &err),
	    -1);
	assert_int_equal(why, BX_READFILE_TOO_LARGE);
	assert_int_equal(bx_readfile_fd(fd, p, 5000, &buf, &len, &why, &err),
	    0);
	assert_int_equal(len, 5000);
	free(buf);
	close(fd);
}

/*
 * /proc's files say they are empty and are not: the limit holds on what
 * is read, not only on what fstat says, as for a file that grows.
 */
static void
test_the_limit_holds_on_what_is_read(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	char *buf;
	size_t len;

	(void)state;
	assert_int_equal(bx_readfile("/proc/self/status", 16, &buf, &len, &why,
	    &err), -1);
	assert_int_equal(why, BX_READFILE_TOO_LARGE);
	assert_int_equal(bx_readfile("/proc/self/status", 0, &buf, &len, &why,
	    &err), 0);
	assert_true(len > 16);
	assert_non_null(strstr(buf, "Name:"));
	free(buf);
}

/*
 * A file longer than fstat said is read to its end, and refused past the
 * limit: the byte asked for past the size shows the growth.
 */
static void
test_a_file_that_grew_is_read_whole(void **state)
{
	enum bx_readfile_why why = 0;
	struct bx_error err;
	const char *path;
	char *buf;
	size_t len;

	(void)state;
	path = make("grew", 'g', 3000);
	fstat_short = 1000;
	assert_int_equal(bx_readfile(path, 0, &buf, &len, &why, &err), 0);
	assert_int_equal(len, 3000);
	free(buf);
	assert_int_equal(bx_readfile(path, 2500, &buf, &len, &why, &err), -1);
	fstat_short = 0;
	assert_int_equal(why, BX_READFILE_TOO_LARGE);
	assert_int_equal(bx_readfile(path, 0, &buf, &len, &why, &err), 0);
	assert_int_equal(len, 3000);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_whole_files_up_to_the_limit),
		cmocka_unit_test(test_past_the_limit_is_refused),
		cmocka_unit_test(test_a_directory_and_no_file),
		cmocka_unit_test(test_a_fifo_is_refused_without_waiting),
		cmocka_unit_test(test_at_a_directory_and_nofollow),
		cmocka_unit_test(test_an_open_descriptor),
		cmocka_unit_test(test_the_limit_holds_on_what_is_read),
		cmocka_unit_test(test_a_file_that_grew_is_read_whole),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
