/*
 * unixsock.c: connecting and listening on Unix stream sockets. Whether a
 * socket file is stale is asked the only way that cannot be wrong: by
 * connecting to it.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/unixsock.h"
#include "proto/writefile.h"

static int
address(const char *path, struct sockaddr_un *sun, struct bx_error *err)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return bx_fail(err, "socket path %s is longer than %zu bytes",
		    path, sizeof(sun->sun_path) - 1);
	}
	memcpy(sun->sun_path, path, strlen(path) + 1);
	return 0;
}

static int
new_socket(int flags, struct bx_error *err)
{
	int fd, type = SOCK_STREAM | SOCK_CLOEXEC;

	if (flags & BX_UNIX_NONBLOCK)
		type |= SOCK_NONBLOCK;
	if ((fd = socket(AF_UNIX, type, 0)) == -1)
		bx_fail(err, "socket: %s", strerror(errno));
	return fd;
}

int
bx_unix_connect(const char *path, int flags, int *ret_fd,
    struct bx_error *err)
{
	struct sockaddr_un sun;
	int fd, r, saved;

	if (address(path, &sun, err) == -1 ||
	    (fd = new_socket(flags, err)) == -1)
		return -1;
	/*
	 * On Linux an AF_UNIX connect interrupted by a signal has not
	 * happened: it is made again. EISCONN would mean it had after all.
	 */
	while ((r = connect(fd, (const struct sockaddr *)&sun,
	    sizeof(sun))) == -1 && errno == EINTR)
		continue;
	if (r == -1 && errno == EISCONN)
		r = 0;
	if (r == -1) {
		saved = errno;
		close(fd);
		bx_fail(err, "cannot connect to %s: %s", path, strerror(saved));
		errno = saved;
		return -1;
	}
	*ret_fd = fd;
	return 0;
}

/* Removes a socket file nobody listens on; refuses a live one or a file. */
static int
remove_stale(const char *path, struct bx_error *err)
{
	struct bx_error ignored;
	struct stat st;
	int fd;

	if (lstat(path, &st) == -1)
		return errno == ENOENT ? 0 : bx_fail(err, "%s: %s", path,
		    strerror(errno));
	if (!S_ISSOCK(st.st_mode))
		return bx_fail(err, "%s exists and is not a socket; it is left "
		    "as it is", path);
	if (bx_unix_connect(path, BX_UNIX_NONBLOCK, &fd, &ignored) == 0) {
		close(fd);
		return bx_fail(err, "something is already listening on %s",
		    path);
	}
	/* A full backlog is someone listening, too. */
	if (errno != ECONNREFUSED && errno != ENOENT)
		return bx_fail(err, "%s is a socket in use (%s)", path,
		    strerror(errno));
	if (unlink(path) == -1 && errno != ENOENT)
		return bx_fail(err, "cannot remove the stale socket %s: %s",
		    path, strerror(errno));
	return 0;
}

static void
file_of(const struct stat *st, struct bx_unix_file *f)
{
	f->uf_dev = st->st_dev;
	f->uf_ino = st->st_ino;
	f->uf_ctime = st->st_ctim;
}

int
bx_unix_listen(const char *path, int backlog, int flags, int *ret_fd,
    struct bx_unix_file *ret_file, struct bx_error *err)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;

	if (address(path, &sun, err) == -1 || bx_mkdir_parents(path, err) == -1 ||
	    remove_stale(path, err) == -1 ||
	    (fd = new_socket(flags, err)) == -1)
		return -1;
	if (bind(fd, (const struct sockaddr *)&sun, sizeof(sun)) == -1) {
		bx_fail(err, "cannot bind %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (chmod(path, 0600) == -1 || listen(fd, backlog) == -1 ||
	    stat(path, &st) == -1) {
		bx_fail(err, "cannot listen on %s: %s", path, strerror(errno));
		close(fd);
		unlink(path);
		return -1;
	}
	*ret_fd = fd;
	file_of(&st, ret_file);
	return 0;
}

void
bx_unix_remove(const char *path, const struct bx_unix_file *made)
{
	struct bx_unix_file now;
	struct stat st;

	if (made == NULL || made->uf_ino == 0 || lstat(path, &st) == -1 ||
	    !S_ISSOCK(st.st_mode))
		return;
	file_of(&st, &now);
	if (now.uf_dev == made->uf_dev && now.uf_ino == made->uf_ino &&
	    now.uf_ctime.tv_sec == made->uf_ctime.tv_sec &&
	    now.uf_ctime.tv_nsec == made->uf_ctime.tv_nsec)
		unlink(path);
}
