/*
 * serve_socket.c: serve's socket files and descriptor budget. Split from
 * serve.c so that file keeps to the poll loop and the threads.
 */
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/serve_socket.h"

/* Creates every missing directory above path with mode 0700. */
static int
make_parents(const char *path, struct bx_error *err)
{
	char dir[PATH_MAX];
	char *p;

	snprintf(dir, sizeof(dir), "%s", path);
	for (p = dir + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			return bx_fail(err, "%s: cannot create: %s", dir,
			    strerror(errno));
		*p = '/';
	}
	return 0;
}

int
serve_socket_listen(const char *path, int backlog, ino_t *ret_ino,
    struct bx_error *err)
{
	struct sockaddr_un sun;
	struct stat st;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return bx_fail(err, "%s: socket path too long", path);
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	if (make_parents(path, err) == -1)
		return -1;
	if (lstat(path, &st) == 0) {
		if (!S_ISSOCK(st.st_mode))
			return bx_fail(err, "%s: exists and is not a socket",
			    path);
		if (unlink(path) == -1)
			return bx_fail(err, "%s: cannot remove the stale "
			    "socket: %s", path, strerror(errno));
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return bx_fail(err, "socket: %s", strerror(errno));
	if (bind(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1 ||
	    chmod(path, 0600) == -1 || listen(fd, backlog) == -1 ||
	    stat(path, &st) == -1) {
		bx_fail(err, "%s: cannot listen: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	*ret_ino = st.st_ino;
	return fd;
}

void
serve_socket_remove(const char *path, ino_t ino)
{
	struct stat st;

	if (ino != 0 && stat(path, &st) == 0 && st.st_ino == ino)
		unlink(path);
}

size_t
serve_socket_fit(size_t want)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)want + SERVE_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return want;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max > need ? need : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return want;
	return rl.rlim_cur > SERVE_FD_RESERVE + 1 ?
	    (size_t)(rl.rlim_cur - SERVE_FD_RESERVE) : 1;
}
