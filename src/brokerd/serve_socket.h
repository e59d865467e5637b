/*
 * serve_socket.h: the descriptor limit that serve's open connections must
 * stay below. The socket files serve listens on (design section 6) are made
 * and removed by libboxproto's proto/unixsock.h, shared with loopd.
 *
 * Nothing here allocates.
 */
#ifndef BROKERD_SERVE_SOCKET_H
#define BROKERD_SERVE_SOCKET_H

#include <stddef.h>

/* Descriptors kept for everything but connections: logs, state, grants. */
#define SERVE_FD_RESERVE	64

/*
 * How many connections may be open at once: want, or fewer if the
 * descriptor limit (raised to its hard limit as far as needed) cannot hold
 * them with SERVE_FD_RESERVE to spare. At least 1.
 */
size_t	serve_socket_fit(size_t want);

#endif
