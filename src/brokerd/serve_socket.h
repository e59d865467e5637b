/*
 * serve_socket.h: how many connections serve may hold: the descriptor limit
 * they must stay below, and the share broker.sock may not take from
 * admin.sock. The socket files serve listens on (design section 6) are made
 * and removed by libboxproto's proto/unixsock.h, shared with loopd.
 *
 * Nothing here allocates.
 */
#ifndef BROKERD_SERVE_SOCKET_H
#define BROKERD_SERVE_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

/* Descriptors kept for everything but connections: logs, state, grants. */
#define SERVE_FD_RESERVE	64

/*
 * How many connections may be open at once: want, or fewer if the
 * descriptor limit (raised to its hard limit as far as needed) cannot hold
 * them with SERVE_FD_RESERVE to spare. At least 1.
 */
size_t	serve_socket_fit(size_t want);

/*
 * Connections of max that broker.sock may never take, so that a flood of
 * tool connections cannot lock the owner out of admin.sock: at most half.
 */
#define SERVE_ADMIN_RESERVE	16

/*
 * Whether one more connection fits on broker.sock (for_broker) or on
 * admin.sock, with broker_open and admin_open already open of max.
 */
bool	serve_socket_room(size_t broker_open, size_t admin_open, size_t max,
	    bool for_broker);

#endif
