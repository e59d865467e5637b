/*
 * serve_socket.h: how many connections serve may hold: the descriptor limit
 * they must stay below, and the share broker.sock may not take from
 * admin.sock; what a connection refused gets; and broker.sock opened to
 * loopd's jail uid, bridge.sock to the bridge's. The socket files serve listens on (design section 6)
 * are made and removed by libboxproto's proto/unixsock.h, shared with
 * loopd.
 *
 * Nothing here keeps what it allocates.
 */
#ifndef BROKERD_SERVE_SOCKET_H
#define BROKERD_SERVE_SOCKET_H

#include <stdbool.h>
#include <stddef.h>

#include <sys/types.h>

#include "proto/error.h"
#include "proto/message.h"
#include "proto/unixsock.h"

/* Descriptors kept for everything but connections: logs, state, grants. */
#define SERVE_FD_RESERVE	64

/*
 * How many connections may be open at once: want, or fewer if the
 * descriptor limit (raised to its hard limit as far as needed) cannot hold
 * them with SERVE_FD_RESERVE to spare. At least 1.
 */
size_t	serve_socket_fit(size_t want);

/*
 * Connections of max that broker.sock and bridge.sock may never take, so
 * that a flood of tool connections cannot lock the owner out of
 * admin.sock: at most half.
 */
#define SERVE_ADMIN_RESERVE	16

/*
 * Whether one more connection fits on broker.sock or bridge.sock
 * (for_jail) or on admin.sock, with jail_open (the two together) and
 * admin_open already open of max.
 */
bool	serve_socket_room(size_t jail_open, size_t admin_open, size_t max,
	    bool for_jail);

/*
 * Lets uid reach the socket at path, which serve made as *made: an ACL
 * entry on its directory (search) and on the socket (read and write); the
 * socket must still be that file, whose new ctime goes into *made. On
 * failure err names the path and says that jail (uid) cannot connect.
 */
int	serve_socket_open_to(const char *path, struct bx_unix_file *made,
	    uid_t uid, const char *jail, struct bx_error *err);

/* A refusal (busy, too large) is a small frame; it gets this long. */
#define SERVE_REFUSE_TIMEOUT_MS	100

/* Answers fd with an error frame, best effort: it is being closed anyway. */
void	serve_refuse(int fd, enum bx_code, const char *message, int timeout_ms);

#endif
