/*
 * unixsock.h: the Unix stream sockets of the three programs (baseline.md
 * section 5): connecting to a daemon's socket, and a daemon's listener
 * (directories 0700, sockets 0600, a stale socket file replaced, a live
 * one or any other file left alone).
 *
 * Nothing here allocates: descriptors returned are the caller's to close.
 * Every descriptor is close-on-exec; with BX_UNIX_NONBLOCK it is
 * non-blocking too.
 */
#ifndef BX_UNIXSOCK_H
#define BX_UNIXSOCK_H

#include <sys/types.h>

#include <time.h>

#include "proto/error.h"

/* flags */
#define BX_UNIX_NONBLOCK	0x1

/*
 * Which socket file a listener made. The inode alone is not enough: once
 * the file is removed, a successor's socket may get the same number.
 */
struct bx_unix_file {
	dev_t		uf_dev;
	ino_t		uf_ino;
	struct timespec	uf_ctime;
};

/*
 * Connects to the socket at path. On failure errno is kept from the call
 * that failed: ENOENT or ECONNREFUSED mean nothing listens there (no file,
 * or a stale one), EAGAIN on a non-blocking socket a full backlog. An
 * interrupted connect is made again.
 */
int	bx_unix_connect(const char *path, int flags, int *ret_fd,
	    struct bx_error *);

/*
 * Listens on path with backlog. Missing directories above it are created
 * with mode 0700; a socket file nobody accepts on is removed; a socket
 * someone listens on, or a file that is not a socket, is refused and left
 * as it is. The socket is set to 0600. *ret_file names the socket file
 * made, for bx_unix_remove.
 */
int	bx_unix_listen(const char *path, int backlog, int flags, int *ret_fd,
	    struct bx_unix_file *ret_file, struct bx_error *);

/*
 * Removes path if it is still the socket file made; a file (NULL is
 * allowed) that names none, all zero, removes nothing.
 */
void	bx_unix_remove(const char *path, const struct bx_unix_file *);

#endif
