/*
 * sock.h: finding and connecting to the daemons' Unix sockets. The default
 * paths live under the home, <home>/run/..., with the home of the user who
 * runs bxctl (proto/defaults.h: BOXMAKER_HOME, else /var/lib/boxmaker for
 * root and ~/.local/share/boxmaker for anyone else).
 *
 * Nothing here allocates: paths go into the caller's buffer, and the
 * descriptor sock_connect() returns is the caller's to close.
 */
#ifndef BXCTL_SOCK_H
#define BXCTL_SOCK_H

#include <stddef.h>

#include "proto/defaults.h"
#include <sys/types.h>

#include "proto/error.h"

/* Big enough for any path a sockaddr_un holds, with room to spare. */
#define SOCK_PATH_MAX		4096

/* <home>/<rel> into buf (SOCK_PATH_MAX bytes); fails if it is too long. */
int	sock_default_path(const char *rel, char *buf, struct bx_error *);

/*
 * Connects to the stream socket at path, close-on-exec. daemon names who
 * should be listening ("brokerd", "loopd"): if nothing is (no socket file,
 * or no listener behind it), the error is "<daemon> is not running at
 * <path>". Other failures name the path and the system error.
 */
int	sock_connect(const char *path, const char *daemon, int *ret_fd,
	    struct bx_error *);

/*
 * Whether a daemon listens at path: 1 if a connection is taken (and closed
 * at once, before anything is sent), 0 if nothing listens there (no socket
 * file, or no listener behind it), -1 with err for anything else.
 */
int	sock_probe(const char *path, struct bx_error *);

/*
 * sock_probe, and on 1 also the uid of the process that listens (the
 * kernel's SO_PEERCRED of the connection): `bxctl status` tells a jailed
 * loopd from one that runs as the owner by it.
 */
int	sock_probe_uid(const char *path, uid_t *ret_uid, struct bx_error *);

#endif
