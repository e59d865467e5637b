/*
 * serve.h: loop.sock, where bxctl chat sends chat {session|null, text} and
 * reads the turn's events back. One connection per chat; one thread per
 * connection (at most LOOP_SERVE_MAX_CONNECTIONS); one turn at a time per
 * session, a second chat on a busy session getting error busy.
 *
 * loop_serve_bind() creates the socket's directory (0700) when missing,
 * removes a stale socket (one nobody listens on), binds and sets the
 * socket to 0600. loop_serve_run() accepts until *stop becomes non-zero,
 * then stops accepting, waits for the turns in progress to end (they see
 * the same flag), closes the listener and removes the socket, if it is
 * still the one loop_serve_bind() made (not a successor's).
 *
 * While a turn runs, a watcher thread of its own polls the connection for
 * the client's hang-up (POLLHUP; a half close is not one) and sets the
 * turn's cancel flag to TURN_STOP_OWNER (turn.h): closing the connection
 * is how a client stops a turn (protocol.md). A failed event write sets it
 * too. When the turn has run for env's te_max_s ([turn] max_s; 0: no
 * limit), the watcher sets the flag to TURN_STOP_MAX_S, and the turn ends
 * as a stopped one does. A turn whose watcher cannot start is refused
 * (error internal), since nothing else would bound it.
 *
 * Before a byte of a connection is read, its peer's uid (SO_PEERCRED,
 * proto/peercred.h) must be one of the caller's rule (roles.md section 4:
 * the owner's and root's; not loopd's own, once loopd runs as a uid of its
 * own). Any other peer gets error forbidden naming loop.sock, its uid and
 * runbook socket-forbidden, and is closed; it takes no connection slot. The
 * refusal goes to env's log once per uid (BX_PEER_SEEN_MAX uids).
 *
 * Ownership: the descriptor loop_serve_bind() returns is the caller's until
 * it hands it to loop_serve_run(), which closes it. Nothing else is left
 * allocated once loop_serve_run() returns 0.
 */
#ifndef LOOPD_SERVE_H
#define LOOPD_SERVE_H

#include <signal.h>
#include <stdatomic.h>

#include "proto/error.h"
#include "proto/peercred.h"
#include "proto/unixsock.h"
#include "loopd/turn.h"

#define LOOP_SERVE_MAX_CONNECTIONS	64
/* A client has this long to send its chat frame. */
#define LOOP_SERVE_READ_TIMEOUT_MS	(10 * 1000)
/* Each event must be taken within this. */
#define LOOP_SERVE_WRITE_TIMEOUT_MS	(10 * 1000)
/* A refusal is one small frame into an empty buffer; it gets this long. */
#define LOOP_SERVE_REFUSE_TIMEOUT_MS	100
/* How often the accept loop looks at the stop flag. */
#define LOOP_SERVE_POLL_MS		250
/* Connections the kernel queues before loopd accepts them. */
#define LOOP_SERVE_BACKLOG		64
/* How long stopping waits for turns in progress. */
#define LOOP_SERVE_STOP_GRACE_MS	(30 * 1000)

/* The listener's descriptor, and which socket file it made. */
int	loop_serve_bind(const char *path, int *ret_fd,
	    struct bx_unix_file *ret_made, struct bx_error *err);

/*
 * Serves fd (from loop_serve_bind() for path, which made the socket file
 * made) with env, to the peers whose uids peers has. While it waits for
 * connections the signal mask is wait_mask when not NULL (so that a
 * program can keep its stop signals blocked everywhere else).
 */
int	loop_serve_run(int fd, const char *path,
	    const struct bx_unix_file *made, const struct turn_env *env,
	    const struct bx_peer_rule *peers, const atomic_int *stop,
	    const sigset_t *wait_mask, struct bx_error *err);

#endif
