/*
 * serve_poll.h: the poll loop and the connections it holds until their
 * first frame is in (serve.h says why and what bounds them). serve.c owns
 * the loop and runs it on serve_run's thread; the loop knows nothing of
 * serve.c's workers or counts, only what its struct serve_poll_config
 * gives it.
 *
 * The three hooks in that config are an inversion by design: the loop is
 * an event source, and what happens to a connection next (whether there
 * is room for it, who handles its request) is its owner's to decide, under
 * the owner's own lock.
 *
 * Ownership: serve_poll_new allocates the loop, which borrows everything
 * its config points to; serve_poll_free closes the connections still
 * waiting and frees it (NULL is allowed). A struct conn is allocated by the
 * loop at accept and freed by serve_conn_free, by whoever holds it last:
 * the loop while it waits, then the owner that was handed it by ready.
 */
#ifndef BROKERD_SERVE_POLL_H
#define BROKERD_SERVE_POLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/log.h"
#include "proto/error.h"
#include "proto/frame.h"
#include "proto/peercred.h"

enum { SOCK_BROKER, SOCK_ADMIN, SOCK_BRIDGE, SOCK_COUNT };

/* One connection, from accept until its request is handled. */
struct conn {
	int			 c_fd;
	int			 c_which;	/* SOCK_BROKER, ... */
	int64_t			 c_deadline;	/* monotonic ms */
	size_t			 c_held;	/* its buffer, as counted */
	bool			 c_full;	/* waits for budget */
	struct bx_frame_reader	 c_reader;
	const char		*c_line;	/* the first frame, in c_reader */
	size_t			 c_len;
	struct conn		*c_next;	/* the owner's, once ready */
};

/*
 * What the loop watches and its bounds: the listeners and who each serves
 * (SOCK_COUNT of each), the two descriptors that say stop, how many
 * connections may wait at once, how long for their first frame, and the
 * bytes their buffers may hold beyond BX_FRAME_INITIAL, all together.
 */
struct serve_poll_config {
	const int		 *listen;
	const struct bx_peer_rule *rules;
	int			  wake_fd;	/* readable means stop */
	int			  stop_fd;	/* the same; -1: none */
	size_t			  max_connections;
	int			  read_timeout_ms;
	size_t			  wait_budget;
	const struct broker_log	 *log;		/* NULL: silent */
	/* Whether one more connection of socket which fits; if so, counted. */
	bool			(*open)(void *ctx, int which);
	/* A counted connection of socket which closed before ready. */
	void			(*closed)(void *ctx, int which);
	/* c's first frame is in; c is the owner's from now on. */
	void			(*ready)(void *ctx, struct conn *c);
	void			 *ctx;
};

struct serve_poll;

struct serve_poll	*serve_poll_new(const struct serve_poll_config *,
			    struct bx_error *);
void			 serve_poll_free(struct serve_poll *);

/* One round of poll: 1 to go on, 0 to stop, -1 on failure. */
int	serve_poll_once(struct serve_poll *, struct bx_error *);

/* Closes every connection still waiting (at stop), each told to closed. */
void	serve_poll_drop_all(struct serve_poll *);

/* Bytes the waiting connections' buffers hold now; safe from any thread. */
size_t	serve_poll_held(struct serve_poll *);

/* Closes c's descriptor and frees it (NULL is allowed). */
void	serve_conn_free(struct conn *c);

#endif
