/*
 * sock.c: default socket paths and connecting to them (sock.h).
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/common/sock.h"
#include "proto/peercred.h"
#include "proto/defaults.h"
#include "proto/unixsock.h"

int
sock_default_path(const char *rel, char *buf, struct bx_error *err)
{
	struct bx_defaults defaults;
	int n;

	if (bx_defaults_get(&defaults, err) == -1)
		return -1;
	n = snprintf(buf, SOCK_PATH_MAX, "%s/%s", defaults.d_home, rel);
	if (n < 0 || n >= SOCK_PATH_MAX)
		return bx_fail(err, "the home %s is too long for a socket "
		    "path", defaults.d_home);
	return 0;
}

int
sock_connect(const char *path, const char *daemon, int *ret_fd,
    struct bx_error *err)
{
	struct bx_error why;
	int fd, saved;

	if (bx_unix_connect(path, 0, &fd, &why) == -1) {
		saved = errno;
		if (saved == ENOENT || saved == ECONNREFUSED)
			return bx_fail(err, "%s is not running at %s", daemon,
			    path);
		if (saved == ENAMETOOLONG)
			return bx_fail(err, "%s", why.msg);
		return bx_fail(err, "cannot connect to %s at %s: %s", daemon,
		    path, strerror(saved));
	}
	*ret_fd = fd;
	return 0;
}

int
sock_probe(const char *path, struct bx_error *err)
{
	uid_t uid;

	return sock_probe_uid(path, &uid, err);
}

int
sock_probe_uid(const char *path, uid_t *ret_uid, struct bx_error *err)
{
	struct bx_error why;
	uid_t uid;
	int fd, r;

	if (bx_unix_connect(path, 0, &fd, &why) == 0) {
		r = bx_peer_uid(fd, &uid, &why);
		close(fd);
		if (r == -1) {
			*err = why;
			return -1;
		}
		*ret_uid = uid;
		return 1;
	}
	if (errno == ENOENT || errno == ECONNREFUSED)
		return 0;
	*err = why;
	return -1;
}
