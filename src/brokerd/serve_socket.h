/*
 * serve_socket.h: the Unix socket files serve listens on (design section
 * 6): missing directories created with mode 0700, a stale socket file
 * removed (anything else at the path is an error and is left alone), the
 * socket bound, set to 0600 and listening, non-blocking and close-on-exec.
 * And the descriptor limit that open connections must stay below.
 *
 * Nothing here allocates; the caller owns and closes the descriptor.
 */
#ifndef BROKERD_SERVE_SOCKET_H
#define BROKERD_SERVE_SOCKET_H

#include <sys/types.h>

#include <stddef.h>

#include "proto/error.h"

/* Descriptors kept for everything but connections: logs, state, grants. */
#define SERVE_FD_RESERVE	64

/* Listens on path; *ret_ino identifies the socket file made. */
int	serve_socket_listen(const char *path, int backlog, ino_t *ret_ino,
	    struct bx_error *);

/* Removes the socket file at path if it is still the one made (ino). */
void	serve_socket_remove(const char *path, ino_t ino);

/*
 * How many connections may be open at once: want, or fewer if the
 * descriptor limit (raised to its hard limit as far as needed) cannot hold
 * them with SERVE_FD_RESERVE to spare. At least 1.
 */
size_t	serve_socket_fit(size_t want);

#endif
