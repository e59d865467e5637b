/*
 * serve_request.h: the one request of a connection whose first frame is
 * in: decoded, checked against what its socket takes (serve.h), and handed
 * to that socket's handler, which answers on the connection: broker.c for
 * broker.sock, admin.c for admin.sock, bridge.c for bridge.sock. Split
 * from serve.c, which keeps to the threads and the connections' lifetime.
 *
 * Nothing here keeps what it is given; the caller closes the connection.
 */
#ifndef BROKERD_SERVE_REQUEST_H
#define BROKERD_SERVE_REQUEST_H

#include <stddef.h>

#include "brokerd/broker.h"

/* The file name of socket which (SOCK_BROKER, ...; serve_poll.h). */
const char	*serve_request_socket(int which);

/*
 * Handles the request of len bytes at line on fd, a connection of socket
 * which, whose path is path (for the log); answers within timeout_ms.
 */
void	serve_request_run(struct broker *, int which, int fd,
	    const char *line, size_t len, const char *path, int timeout_ms);

#endif
