/*
 * sock.c: default socket paths and connecting to them (sock.h).
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/sock.h"

int
sock_default_path(const char *rel, char *buf, struct bx_error *err)
{
	const char *home = getenv("BOXMAKER_HOME");
	int n;

	if (home == NULL || home[0] == '\0')
		home = SOCK_HOME_DEFAULT;
	n = snprintf(buf, SOCK_PATH_MAX, "%s/%s", home, rel);
	if (n < 0 || n >= SOCK_PATH_MAX)
		return bx_fail(err, "BOXMAKER_HOME is too long for a socket "
		    "path");
	return 0;
}

int
sock_connect(const char *path, const char *daemon, int *ret_fd,
    struct bx_error *err)
{
	struct sockaddr_un sun;
	int fd, r;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return bx_fail(err, "socket path %s is longer than %zu bytes",
		    path, sizeof(sun.sun_path) - 1);
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return bx_fail(err, "socket: %s", strerror(errno));
	/* bxctl installs no signal handlers, so connect is not interrupted. */
	r = connect(fd, (struct sockaddr *)&sun, sizeof(sun));
	if (r == -1) {
		int saved = errno;

		close(fd);
		if (saved == ENOENT || saved == ECONNREFUSED)
			return bx_fail(err, "%s is not running at %s", daemon,
			    path);
		return bx_fail(err, "cannot connect to %s at %s: %s", daemon,
		    path, strerror(saved));
	}
	*ret_fd = fd;
	return 0;
}
