/*
 * relay_impl.h: what the relay's two files share (relay.c, the
 * listener and its workers; relay_copy.c, one connection's dial and copy).
 * Not for other files: callers use relay.h.
 */
#ifndef JAILRUN_RELAY_IMPL_H
#define JAILRUN_RELAY_IMPL_H

#include <stdbool.h>
#include <stddef.h>

#include "jailrun/relay.h"

/* One direction of a connection: bytes read from h_from go to h_to. */
struct relay_half {
	int	h_from;
	int	h_to;
	size_t	h_start;
	size_t	h_end;
	bool	h_eof;		/* h_from has nothing more */
	bool	h_shut;		/* and h_to was told (SHUT_WR) */
	char	h_buf[RELAY_BUF_SIZE];
};

/* A worker's buffers, used for one connection after another. */
struct relay_pipe {
	struct relay_half	p_up;	/* client to server */
	struct relay_half	p_down;	/* server to client */
};

/*
 * Resolves t's host, connects to the first address that answers within
 * RELAY_CONNECT_TIMEOUT_MS and copies between it and client until both
 * directions have ended, either side broke or went away, or stop_fd is
 * readable. Closes the socket it made; client stays the caller's.
 */
void	relay_pipe_run(struct relay_pipe *p, const struct relay_target *t,
	    int client, int stop_fd);

#endif
