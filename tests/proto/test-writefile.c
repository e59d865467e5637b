/*
 * test-writefile.c: bx_write_all writes a buffer larger than a pipe takes
 * at once (short writes) and says why it failed; bx_fsync_dir syncs a
 * directory and refuses what is missing or not a directory.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/writefile.h"

/* More than a pipe's default 64 KiB, so the writer sees short writes. */
#define BIG	(1024 * 1024)

static void
test_a_buffer_larger_than_the_pipe(void **state)
{
	char *buf, *got;
	size_t have = 0, i;
	ssize_t n;
	pid_t pid;
	int p[2], status;

	(void)state;
	assert_non_null(buf = malloc(BIG));
	assert_non_null(got = malloc(BIG));
	for (i = 0; i < BIG; i++)
		buf[i] = (char)(i * 7);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		_exit(bx_write_all(p[1], buf, BIG) == 0 ? 0 : 1);
	}
	close(p[1]);
	while ((n = read(p[0], got + have, BIG - have)) > 0)
		have += (size_t)n;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(have, BIG);
	assert_memory_equal(got, buf, BIG);
	free(buf);
	free(got);
}

static void
test_a_failed_write_keeps_its_errno(void **state)
{
	int p[2];

	(void)state;
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	close(p[0]);
	errno = 0;
	assert_int_equal(bx_write_all(p[1], "x", 1), -1);
	assert_int_equal(errno, EPIPE);
	close(p[1]);
	errno = 0;
	assert_int_equal(bx_write_all(-1, "x", 1), -1);
	assert_int_equal(errno, EBADF);
	assert_int_equal(bx_write_all(-1, "", 0), 0);
}

static void
test_fsync_dir(void **state)
{
	char dir[] = "/tmp/bx-writefile-XXXXXX", file[64];
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(bx_fsync_dir(dir), 0);
	snprintf(file, sizeof(file), "%s/f", dir);
	assert_true((fd = open(file, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) !=
	    -1);
	close(fd);
	errno = 0;
	assert_int_equal(bx_fsync_dir(file), -1);
	assert_int_equal(errno, ENOTDIR);
	assert_int_equal(unlink(file), 0);
	assert_int_equal(rmdir(dir), 0);
	errno = 0;
	assert_int_equal(bx_fsync_dir(dir), -1);
	assert_int_equal(errno, ENOENT);
}

/* Made 0700 once, left as it is after; a file in its place is ENOTDIR. */
static void
test_mkdir_private(void **state)
{
	char dir[] = "/tmp/bx-writefile-XXXXXX", sub[64], want[128];
	struct bx_error err;
	struct stat st;
	int fd;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(sub, sizeof(sub), "%s/d", dir);
	assert_int_equal(bx_mkdir_private(sub, NULL), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_int_equal(chmod(sub, 0755), 0);
	assert_int_equal(bx_mkdir_private(sub, &err), 0);
	assert_int_equal(stat(sub, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0755);
	assert_int_equal(rmdir(sub), 0);
	assert_true((fd = open(sub, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) !=
	    -1);
	close(fd);
	errno = 0;
	assert_int_equal(bx_mkdir_private(sub, &err), -1);
	assert_int_equal(errno, ENOTDIR);
	snprintf(want, sizeof(want), "%s is not a directory", sub);
	assert_string_equal(err.msg, want);
	assert_int_equal(unlink(sub), 0);
	snprintf(sub, sizeof(sub), "%s/no/d", dir);
	errno = 0;
	assert_int_equal(bx_mkdir_private(sub, &err), -1);
	assert_int_equal(errno, ENOENT);
	snprintf(want, sizeof(want), "cannot create %s: %s", sub,
	    strerror(ENOENT));
	assert_string_equal(err.msg, want);
	assert_int_equal(rmdir(dir), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_a_buffer_larger_than_the_pipe),
		cmocka_unit_test(test_a_failed_write_keeps_its_errno),
		cmocka_unit_test(test_fsync_dir),
		cmocka_unit_test(test_mkdir_private),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
