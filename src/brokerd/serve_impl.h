/*
 * serve_impl.h: what serve.c (the server, its workers and its lifetime) and
 * serve_poll.c (connections waiting for their first frame) share. Not for
 * other files: callers use serve.h.
 *
 * Ownership: a struct conn is allocated by serve_poll.c at accept and
 * freed by serve_conn_free, by whoever holds it last: the poll loop while
 * it waits, then the worker that handles its request.
 */
#ifndef BROKERD_SERVE_IMPL_H
#define BROKERD_SERVE_IMPL_H

#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "brokerd/serve.h"
#include "proto/frame.h"
#include "proto/message.h"
#include "proto/peercred.h"
#include "proto/unixsock.h"

enum { SOCK_BROKER, SOCK_ADMIN, SOCK_COUNT };
/* Poll slots before the connections: wake pipe, stop_fd, two listeners. */
enum { SLOT_WAKE, SLOT_STOP, SLOT_LISTEN, SLOT_CONNS = SLOT_LISTEN + SOCK_COUNT };
/* A refusal (busy, too large) is a small frame; it gets this long. */
#define SERVE_REFUSE_TIMEOUT_MS	100

struct conn {
	struct serve		*c_s;
	int			 c_fd;
	int			 c_which;
	int64_t			 c_deadline;	/* monotonic ms */
	size_t			 c_held;	/* its buffer, as counted */
	bool			 c_full;	/* waits for budget */
	struct bx_frame_reader	 c_reader;
	const char		*c_line;	/* the first frame, in c_reader */
	size_t			 c_len;
	struct conn		*c_next;	/* in the ready queue */
};

struct serve {
	struct serve_config	 s_cfg;
	char			 s_path[SOCK_COUNT][PATH_MAX];
	struct bx_unix_file	 s_file[SOCK_COUNT];
	int			 s_listen[SOCK_COUNT];
	struct bx_peer_rule	 s_rule[SOCK_COUNT];	/* who each serves */
	int			 s_wake[2];
	/* The poll loop's alone. */
	struct bx_peer_seen	 s_seen[SOCK_COUNT];	/* refusals printed */
	struct conn		**s_waiting;
	size_t			 s_nwaiting;
	size_t			 s_charged;	/* wait budget in use */
	struct pollfd		*s_pfds;
	bool			 s_backoff;	/* out of descriptors */
	atomic_size_t		 s_held;	/* what the waiting hold */
	pthread_mutex_t		 s_lock;	/* guards the rest */
	pthread_cond_t		 s_ended;	/* a worker ended */
	pthread_cond_t		 s_tick;	/* the expiry thread waits */
	pthread_cond_t		 s_work;	/* idle workers wait */
	size_t			 s_open[SOCK_COUNT];	/* either phase */
	size_t			 s_busy[SOCK_COUNT];	/* ready or handled */
	struct conn		*s_ready;	/* first frame in, no worker yet */
	struct conn		**s_ready_tail;
	size_t			 s_nready;
	size_t			 s_workers;	/* started, not yet ended */
	size_t			 s_idle;	/* of them, waiting for work */
	pthread_t		*s_ended_workers;	/* not yet joined */
	size_t			 s_nended;
	size_t			 s_ended_cap;
	bool			 s_stopping;
};

/* serve.c: answers fd with an error frame, best effort. */
void	serve_refuse(int fd, enum bx_code, const char *message, int timeout_ms);

/* serve.c: one connection of socket which is closed, in either phase. */
void	serve_closed(struct serve *, int which, bool busy);

/* serve.c: c's first frame is in; a worker takes it, or it is refused. */
void	serve_dispatch(struct serve *, struct conn *c);

/* serve_poll.c: closes c's descriptor and frees it (NULL is allowed). */
void	serve_conn_free(struct conn *c);

/* serve_poll.c: one round of poll: 1 to go on, 0 to stop, -1 on failure. */
int	serve_poll_once(struct serve *, struct bx_error *);

/* serve_poll.c: closes every connection still waiting (at stop). */
void	serve_poll_drop_all(struct serve *);

#endif
