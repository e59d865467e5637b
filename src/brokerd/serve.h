/*
 * serve.h: brokerd's listeners (design section 6, baseline section 3).
 *
 *	broker.sock	loopd	tool_request
 *	admin.sock	bxctl	approvals, approve, refuse, check_grants
 *	bridge.sock	bxbridge approvals, approvals_wait, approve and refuse
 *			from Mattermost (bridge.h)
 *
 * Each socket's directory is created with mode 0700 if it is missing, a
 * stale socket file is removed, and the socket is set to 0600. A new
 * connection is watched with poll(2) until its first complete frame arrives
 * (at most SERVE_READ_TIMEOUT_MS): idle or slow clients hold no thread. Then
 * a worker thread handles that one request and closes the connection.
 *
 * Memory of connections waiting for their first frame is bounded as a
 * whole: each may hold BX_FRAME_INITIAL bytes, and what their buffers grow
 * beyond that comes out of one budget (SERVE_WAIT_BUDGET). A connection
 * whose partial frame needs more than the budget has left is not read until
 * room comes back (its peer's writes block); past its deadline it is closed
 * like any slow client. So waiting connections hold at most
 * max_connections * BX_FRAME_INITIAL + SERVE_WAIT_BUDGET bytes (4 MiB +
 * 16 MiB by default), and threads (max_calls + SERVE_MAX_ADMIN_CALLS +
 * SERVE_MAX_BRIDGE_CALLS) at most BX_FRAME_MAX each for their frame. Any other
 * kind on a socket is answered with error forbidden and printed with
 * see docs/runbook.md#socket-forbidden. Open connections and calls in
 * progress are bounded; past a bound the answer is error busy.
 *
 * Before anything is read from a connection, its peer's uid (SO_PEERCRED,
 * proto/peercred.h) must be one the socket serves (roles.md section 4):
 *
 *	admin.sock	brokerd's own uid, and root; never loopd's jail uid
 *	broker.sock	loopd's jail uid (loop_uid), and brokerd's own uid
 *	bridge.sock	the bridge's jail uid (bridge_uid), and brokerd's own
 *			uid; never root unless brokerd is root
 *
 * Any other peer gets error forbidden naming the socket, its uid and
 * runbook socket-forbidden, and is closed; it takes no connection slot.
 * The refusal is printed once per uid and socket (BX_PEER_SEEN_MAX uids).
 *
 * serve.c is the only file of brokerd that starts threads: the workers,
 * at most one per call in progress, kept while calls keep coming and
 * ended after SERVE_WORKER_IDLE_MS without one; and the approvals expiry
 * thread (once a second).
 *
 * Ownership: serve_new allocates the server, binds the sockets and borrows
 * the broker; serve_free closes and removes the sockets and frees it (NULL
 * is allowed).
 */
#ifndef BROKERD_SERVE_H
#define BROKERD_SERVE_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "brokerd/broker.h"
#include "proto/error.h"

/* Defaults of the bounds of baseline section 3. */
#define SERVE_MAX_CONNECTIONS	1024
#define SERVE_MAX_CALLS		64
/* Admin requests have their own bound, so busy tool calls never lock the owner out. */
#define SERVE_MAX_ADMIN_CALLS	16
/*
 * The bridge's, so that its waits (approvals_wait holds a worker up to
 * BX_WAIT_MAX_MS) never take the owner's or loopd's.
 */
#define SERVE_MAX_BRIDGE_CALLS	4
/* A connection's first complete frame must arrive within this. */
#define SERVE_READ_TIMEOUT_MS	10000
/* An answer frame must be taken by the peer within this. */
#define SERVE_WRITE_TIMEOUT_MS	10000
#define SERVE_BACKLOG		128
/* How often the expiry thread checks the approvals table. */
#define SERVE_EXPIRY_MS		1000
/* What first-frame buffers of waiting connections may grow by, in all. */
#define SERVE_WAIT_BUDGET	(16 * 1024 * 1024)
/* A worker thread with nothing to do for this long ends. */
#define SERVE_WORKER_IDLE_MS	10000

struct serve_config {
	const char	*broker_socket;
	const char	*admin_socket;
	const char	*bridge_socket;		/* NULL: no bridge.sock */
	struct broker	*broker;
	size_t		 max_connections;	/* 0: SERVE_MAX_CONNECTIONS */
	size_t		 max_calls;		/* 0: SERVE_MAX_CALLS */
	int		 read_timeout_ms;	/* 0: SERVE_READ_TIMEOUT_MS */
	size_t		 wait_budget;		/* 0: SERVE_WAIT_BUDGET */
	int		 worker_idle_ms;	/* 0: SERVE_WORKER_IDLE_MS */
	int		 stop_fd;		/* readable means stop; -1: none */
	/*
	 * loopd's jail uid, served on broker.sock; has_loop_uid false (its
	 * lookup failed): broker.sock serves brokerd's own uid only.
	 */
	bool		 has_loop_uid;
	uid_t		 loop_uid;
	/*
	 * The bridge's jail uid, served on bridge.sock; has_bridge_uid false
	 * (its lookup failed): bridge.sock serves brokerd's own uid only.
	 */
	bool		 has_bridge_uid;
	uid_t		 bridge_uid;
};

struct serve;

struct serve	*serve_new(const struct serve_config *, struct bx_error *);

/*
 * broker.sock stays 0600 in a 0700 directory; loopd's jail uid (if known)
 * passes both through an ACL entry of its own, given here after each bind
 * (the socket file is new every start). admin.sock never gets one. On
 * failure err names the path and says the jailed loopd cannot connect.
 */
int	 serve_open_to_loop(struct serve *, struct bx_error *);

/* The same for bridge.sock and the bridge's jail uid. */
int	 serve_open_to_bridge(struct serve *, struct bx_error *);

/*
 * Serves until stop_fd is readable or serve_stop is called, then stops
 * cleanly: no new connection or request is taken, pending approvals are
 * abandoned, calls in progress finish (so no record is torn), and the
 * sockets are removed. Returns 0, or -1 if poll itself fails.
 */
int	 serve_run(struct serve *, struct bx_error *);

/* Asks serve_run to stop; safe from any thread and from a signal handler. */
void	 serve_stop(struct serve *);

/*
 * Bytes the buffers of connections waiting for their first frame hold now;
 * safe from any thread (tests and diagnostics).
 */
size_t	 serve_waiting_bytes(struct serve *);

void	 serve_free(struct serve *);

/*
 * `brokerd serve --config PATH [--accept-break]` (serve_main.c): startup
 * (config, the audit lock and startup check, the grants check), serving,
 * and a clean stop on SIGTERM or SIGINT. argv[0] is "serve"; it prints to
 * errs and returns the exit status: 0 after a clean stop, 1 on a failure,
 * 2 for a usage error or --accept-break with nothing to accept.
 */
#define SERVE_USAGE	"brokerd serve [--config PATH] [--accept-break]"
int	 serve_main(int argc, char **argv, FILE *out, FILE *errs);

#endif
