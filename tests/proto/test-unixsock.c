/*
 * test-unixsock.c: src/proto/unixsock.h in a temporary directory: the
 * listener's directories (0700) and socket (0600), a stale socket replaced,
 * a live one and a plain file refused and kept, removal only of the socket
 * file made, and connecting: to a listener, to nothing, to a stale file,
 * blocking and not, close-on-exec.
 */
#include <sys/socket.h>
#include <sys/stat.h>

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

#include "proto/unixsock.h"

struct dir {
	char	root[64];
	char	sock[256];	/* root/run/owner/x.sock: two levels made */
};

static int
setup(void **state)
{
	struct dir *d = calloc(1, sizeof(*d));

	assert_non_null(d);
	snprintf(d->root, sizeof(d->root), "/tmp/bx-unixsock-XXXXXX");
	assert_non_null(mkdtemp(d->root));
	snprintf(d->sock, sizeof(d->sock), "%s/run/owner/x.sock", d->root);
	*state = d;
	return 0;
}

static int
teardown(void **state)
{
	struct dir *d = *state;
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf %s", d->root);
	assert_int_equal(system(cmd), 0);
	free(d);
	return 0;
}

static int
listen_ok(const char *path, struct bx_unix_file *ino)
{
	struct bx_error err;
	int fd;

	if (bx_unix_listen(path, 8, 0, &fd, ino, &err) == -1)
		fail_msg("bx_unix_listen %s: %s", path, err.msg);
	return fd;
}

static int
mode_of(const char *path)
{
	struct stat st;

	assert_int_equal(lstat(path, &st), 0);
	return (int)(st.st_mode & 07777);
}

static void
test_listen_makes_0700_directories_and_a_0600_socket(void **state)
{
	struct dir *d = *state;
	char path[256];
	struct bx_unix_file ino;
	int fd, c, a;
	struct bx_error err;
	struct stat st;

	fd = listen_ok(d->sock, &ino);
	assert_int_equal(lstat(d->sock, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_ino, ino.uf_ino);
	assert_int_equal(mode_of(d->sock), 0600);
	snprintf(path, sizeof(path), "%s/run", d->root);
	assert_int_equal(mode_of(path), 0700);
	snprintf(path, sizeof(path), "%s/run/owner", d->root);
	assert_int_equal(mode_of(path), 0700);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_false(fcntl(fd, F_GETFL) & O_NONBLOCK);
	/* Connected and accepted, blocking and not. */
	assert_int_equal(bx_unix_connect(d->sock, 0, &c, &err), 0);
	assert_true(fcntl(c, F_GETFD) & FD_CLOEXEC);
	assert_false(fcntl(c, F_GETFL) & O_NONBLOCK);
	assert_true((a = accept(fd, NULL, NULL)) >= 0);
	assert_int_equal(write(c, "x", 1), 1);
	close(a);
	close(c);
	assert_int_equal(bx_unix_connect(d->sock, BX_UNIX_NONBLOCK, &c, &err),
	    0);
	assert_true(fcntl(c, F_GETFL) & O_NONBLOCK);
	close(c);
	close(fd);
	bx_unix_remove(d->sock, &ino);
	assert_int_equal(access(d->sock, F_OK), -1);
}

static void
test_a_stale_socket_is_replaced(void **state)
{
	struct dir *d = *state;
	struct bx_error err;
	struct bx_unix_file first, second;
	int fd, c;

	/* Closed without removing: what a killed daemon leaves. */
	close(listen_ok(d->sock, &first));
	assert_int_equal(bx_unix_connect(d->sock, 0, &c, &err), -1);
	assert_int_equal(errno, ECONNREFUSED);
	fd = listen_ok(d->sock, &second);
	assert_int_equal(bx_unix_connect(d->sock, 0, &c, &err), 0);
	close(c);
	/*
	 * The old one's name no longer removes the new socket, even when the
	 * new file got the old inode number.
	 */
	bx_unix_remove(d->sock, &first);
	assert_int_equal(access(d->sock, F_OK), 0);
	bx_unix_remove(d->sock, &second);
	assert_int_equal(access(d->sock, F_OK), -1);
	close(fd);
}

static void
test_a_live_socket_or_a_file_is_refused_and_kept(void **state)
{
	struct dir *d = *state;
	struct bx_error err;
	struct bx_unix_file ino, other;
	int fd, fd2, c;
	FILE *fp;

	fd = listen_ok(d->sock, &ino);
	assert_int_equal(bx_unix_listen(d->sock, 8, 0, &fd2, &other, &err),
	    -1);
	assert_non_null(strstr(err.msg, "already listening"));
	assert_int_equal(bx_unix_connect(d->sock, 0, &c, &err), 0);
	close(c);
	close(fd);
	bx_unix_remove(d->sock, &ino);

	assert_non_null(fp = fopen(d->sock, "w"));
	fclose(fp);
	assert_int_equal(bx_unix_listen(d->sock, 8, 0, &fd2, &other, &err),
	    -1);
	assert_non_null(strstr(err.msg, "is not a socket"));
	assert_int_equal(access(d->sock, F_OK), 0);
	/* Not a socket: remove leaves it too. */
	bx_unix_remove(d->sock, &ino);
	assert_int_equal(access(d->sock, F_OK), 0);
}

static void
test_connect_to_nothing_and_too_long(void **state)
{
	struct dir *d = *state;
	struct bx_error err;
	struct bx_unix_file made;
	char longer[200];
	int fd = -7;

	assert_int_equal(bx_unix_connect(d->sock, 0, &fd, &err), -1);
	assert_int_equal(errno, ENOENT);
	assert_int_equal(fd, -7);
	assert_non_null(strstr(err.msg, d->sock));
	memset(longer, 'a', sizeof(longer) - 1);
	longer[0] = '/';
	longer[sizeof(longer) - 1] = '\0';
	assert_int_equal(bx_unix_connect(longer, 0, &fd, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	assert_int_equal(bx_unix_listen(longer, 8, 0, &fd, &made, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	assert_int_equal(fd, -7);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_listen_makes_0700_directories_and_a_0600_socket),
		T(test_a_stale_socket_is_replaced),
		T(test_a_live_socket_or_a_file_is_refused_and_kept),
		T(test_connect_to_nothing_and_too_long),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
