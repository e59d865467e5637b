/*
 * serve.c: the server's lifetime (its sockets, its start and its clean
 * stop), the workers that handle one request at a time each, and the
 * approvals expiry thread. The only file of brokerd that starts threads.
 * The connections waiting for their first frame are serve_poll.c's: this
 * file runs its loop and is told, through the hooks of serve_poll.h, when
 * a connection is opened, closed while waiting, or ready.
 *
 * Workers are started when a request finds none idle, up to one per call
 * in progress (so at most max_calls + SERVE_MAX_ADMIN_CALLS +
 * SERVE_MAX_BRIDGE_CALLS), and end
 * after worker_idle_ms without work: a steady stream of calls
 * reuses them instead of starting and ending a thread for each, which on
 * 2 cores was a sixth of brokerd's time per call (bench/README.md).
 * An ended worker is joined, not detached: its thread-local destructors
 * (its hash context, OpenSSL's error state) must have run before brokerd
 * frees what they use or exits, or they race the exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brokerd/broker.h"
#include "brokerd/serve.h"
#include "brokerd/serve_poll.h"
#include "brokerd/serve_request.h"
#include "brokerd/serve_socket.h"
#include "proto/clock.h"
#include "proto/message.h"
#include "proto/peercred.h"
#include "proto/unixsock.h"

struct serve {
	struct serve_config	 s_cfg;
	char			 s_path[SOCK_COUNT][PATH_MAX];
	struct bx_unix_file	 s_file[SOCK_COUNT];
	int			 s_listen[SOCK_COUNT];
	struct bx_peer_rule	 s_rule[SOCK_COUNT];	/* who each serves */
	int			 s_wake[2];
	struct serve_poll	*s_poll;	/* serve_run's thread's alone */
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

static bool	conn_open(void *, int);
static void	conn_closed(void *, int);
static void	conn_ready(void *, struct conn *);

static int
listen_on(struct serve *s, int i, const char *path, struct bx_error *err)
{
	snprintf(s->s_path[i], sizeof(s->s_path[i]), "%s", path);
	return bx_unix_listen(path, SERVE_BACKLOG, BX_UNIX_NONBLOCK,
	    &s->s_listen[i], &s->s_file[i], err);
}

/*
 * Who each socket serves (serve.h): admin.sock never loopd's jail uid,
 * whatever the file modes let through; bridge.sock only the bridge's jail
 * uid and brokerd's own.
 */
static int
make_rules(struct serve *s, struct bx_error *err)
{
	struct bx_peer_rule *b = &s->s_rule[SOCK_BROKER];
	struct bx_peer_rule *a = &s->s_rule[SOCK_ADMIN];
	struct bx_peer_rule *g = &s->s_rule[SOCK_BRIDGE];

	bx_peer_rule_init(b, serve_request_socket(SOCK_BROKER));
	bx_peer_rule_init(a, serve_request_socket(SOCK_ADMIN));
	bx_peer_rule_init(g, serve_request_socket(SOCK_BRIDGE));
	if (s->s_cfg.has_loop_uid &&
	    bx_peer_rule_add(b, s->s_cfg.loop_uid, err) == -1)
		return -1;
	if (s->s_cfg.has_bridge_uid &&
	    bx_peer_rule_add(g, s->s_cfg.bridge_uid, err) == -1)
		return -1;
	if (bx_peer_rule_add(b, geteuid(), err) == -1 ||
	    bx_peer_rule_add(a, geteuid(), err) == -1 ||
	    bx_peer_rule_add(a, 0, err) == -1 ||
	    bx_peer_rule_add(g, geteuid(), err) == -1)
		return -1;
	return 0;
}

/* The poll loop, watching what serve_new made and telling the hooks. */
static int
make_poll(struct serve *s, struct bx_error *err)
{
	struct serve_poll_config pc;

	memset(&pc, 0, sizeof(pc));
	pc.listen = s->s_listen;
	pc.wake_fd = s->s_wake[0];
	pc.stop_fd = s->s_cfg.stop_fd;
	pc.rules = s->s_rule;
	pc.max_connections = s->s_cfg.max_connections;
	pc.read_timeout_ms = s->s_cfg.read_timeout_ms;
	pc.wait_budget = s->s_cfg.wait_budget;
	pc.log = broker_config(s->s_cfg.broker)->log;
	pc.open = conn_open;
	pc.closed = conn_closed;
	pc.ready = conn_ready;
	pc.ctx = s;
	s->s_poll = serve_poll_new(&pc, err);
	return s->s_poll == NULL ? -1 : 0;
}

struct serve *
serve_new(const struct serve_config *cfg, struct bx_error *err)
{
	struct serve *s;
	int i;

	if ((s = calloc(1, sizeof(*s))) == NULL) {
		bx_fail(err, "serve: out of memory");
		return NULL;
	}
	s->s_cfg = *cfg;
	if (s->s_cfg.max_connections == 0)
		s->s_cfg.max_connections = SERVE_MAX_CONNECTIONS;
	s->s_cfg.max_connections = serve_socket_fit(s->s_cfg.max_connections);
	if (s->s_cfg.max_calls == 0)
		s->s_cfg.max_calls = SERVE_MAX_CALLS;
	if (s->s_cfg.read_timeout_ms <= 0)
		s->s_cfg.read_timeout_ms = SERVE_READ_TIMEOUT_MS;
	if (s->s_cfg.wait_budget == 0)
		s->s_cfg.wait_budget = SERVE_WAIT_BUDGET;
	if (s->s_cfg.worker_idle_ms <= 0)
		s->s_cfg.worker_idle_ms = SERVE_WORKER_IDLE_MS;
	for (i = 0; i < SOCK_COUNT; i++)
		s->s_listen[i] = -1;
	s->s_wake[0] = s->s_wake[1] = -1;
	pthread_mutex_init(&s->s_lock, NULL);
	pthread_cond_init(&s->s_ended, NULL);
	bx_clock_cond_init(&s->s_tick);
	bx_clock_cond_init(&s->s_work);
	s->s_ready_tail = &s->s_ready;
	s->s_ended_cap = s->s_cfg.max_calls + SERVE_MAX_ADMIN_CALLS +
	    SERVE_MAX_BRIDGE_CALLS;
	s->s_ended_workers = calloc(s->s_ended_cap,
	    sizeof(*s->s_ended_workers));
	if (s->s_ended_workers == NULL) {
		bx_fail(err, "serve: out of memory");
		goto fail;
	}
	if (make_rules(s, err) == -1)
		goto fail;
	if (pipe2(s->s_wake, O_CLOEXEC | O_NONBLOCK) == -1) {
		bx_fail(err, "serve: pipe: %s", strerror(errno));
		goto fail;
	}
	if (make_poll(s, err) == -1)
		goto fail;
	if (listen_on(s, SOCK_BROKER, cfg->broker_socket, err) == -1 ||
	    listen_on(s, SOCK_ADMIN, cfg->admin_socket, err) == -1 ||
	    (cfg->bridge_socket != NULL && listen_on(s, SOCK_BRIDGE,
	    cfg->bridge_socket, err) == -1))
		goto fail;
	return s;
fail:
	serve_free(s);
	return NULL;
}

int
serve_open_to_loop(struct serve *s, struct bx_error *err)
{
	if (!s->s_cfg.has_loop_uid)
		return 0;
	return serve_socket_open_to(s->s_path[SOCK_BROKER],
	    &s->s_file[SOCK_BROKER], s->s_cfg.loop_uid, "loopd's jail", err);
}

int
serve_open_to_bridge(struct serve *s, struct bx_error *err)
{
	if (!s->s_cfg.has_bridge_uid || s->s_listen[SOCK_BRIDGE] == -1)
		return 0;
	return serve_socket_open_to(s->s_path[SOCK_BRIDGE],
	    &s->s_file[SOCK_BRIDGE], s->s_cfg.bridge_uid, "the bridge's jail",
	    err);
}

/* Closes the listeners and removes the sockets we made (not a successor's). */
static void
unlisten(struct serve *s)
{
	int i;

	for (i = 0; i < SOCK_COUNT; i++) {
		if (s->s_listen[i] == -1)
			continue;
		close(s->s_listen[i]);
		s->s_listen[i] = -1;
		bx_unix_remove(s->s_path[i], &s->s_file[i]);
	}
}

void
serve_free(struct serve *s)
{
	if (s == NULL)
		return;
	unlisten(s);
	serve_poll_free(s->s_poll);
	if (s->s_wake[0] != -1)
		close(s->s_wake[0]);
	if (s->s_wake[1] != -1)
		close(s->s_wake[1]);
	pthread_cond_destroy(&s->s_ended);
	pthread_cond_destroy(&s->s_tick);
	pthread_cond_destroy(&s->s_work);
	pthread_mutex_destroy(&s->s_lock);
	free(s->s_ended_workers);
	free(s);
}

void
serve_stop(struct serve *s)
{
	ssize_t n;

	n = write(s->s_wake[1], "x", 1);
	(void)n;
}

size_t
serve_waiting_bytes(struct serve *s)
{
	return serve_poll_held(s->s_poll);
}

/* One connection of socket which is closed, in either phase. */
static void
serve_closed(struct serve *s, int which, bool busy)
{
	pthread_mutex_lock(&s->s_lock);
	s->s_open[which]--;
	if (busy)
		s->s_busy[which]--;
	pthread_mutex_unlock(&s->s_lock);
}

/* The poll loop's open hook: whether one more fits, counted if so. */
static bool
conn_open(void *ctx, int which)
{
	struct serve *s = ctx;
	bool room;

	pthread_mutex_lock(&s->s_lock);
	room = serve_socket_room(s->s_open[SOCK_BROKER] +
	    s->s_open[SOCK_BRIDGE], s->s_open[SOCK_ADMIN],
	    s->s_cfg.max_connections, which != SOCK_ADMIN);
	if (room)
		s->s_open[which]++;
	pthread_mutex_unlock(&s->s_lock);
	return room;
}

/* The poll loop's closed hook: one closed while it waited. */
static void
conn_closed(void *ctx, int which)
{
	serve_closed(ctx, which, false);
}

/* Handles the connection's one request, then closes it. */
static void
conn_run(struct serve *s, struct conn *c)
{
	int which = c->c_which;

	serve_request_run(s->s_cfg.broker, which, c->c_fd, c->c_line,
	    c->c_len, s->s_path[which], SERVE_WRITE_TIMEOUT_MS);
	serve_conn_free(c);
	serve_closed(s, which, true);
}

/* The oldest ready connection, or NULL. The caller holds s_lock. */
static struct conn *
ready_take(struct serve *s)
{
	struct conn *c = s->s_ready;

	if (c == NULL)
		return NULL;
	if ((s->s_ready = c->c_next) == NULL)
		s->s_ready_tail = &s->s_ready;
	s->s_nready--;
	return c;
}

/*
 * Joins the workers that ended. They never take s_lock again once listed,
 * so joining under it waits only for their exit: their thread-local
 * destructors, a few frees; and a worker ends only after worker_idle_ms
 * without work, so it is rare on a busy broker. It runs
 * before each new worker starts, at stop, and when the list is full (a
 * worker between two calls is not counted idle, so a few more than
 * the sum of the three bounds can have lived). The caller holds
 * s_lock.
 */
static void
join_ended(struct serve *s)
{
	while (s->s_nended > 0)
		pthread_join(s->s_ended_workers[--s->s_nended], NULL);
}

/*
 * A worker: handles ready connections one at a time until serve stops, or
 * until it has waited worker_idle_ms for one.
 */
static void *
worker_run(void *arg)
{
	struct serve *s = arg;
	struct timespec until;
	struct conn *c;
	int rc = 0;

	pthread_mutex_lock(&s->s_lock);
	for (;;) {
		if ((c = ready_take(s)) != NULL) {
			pthread_mutex_unlock(&s->s_lock);
			conn_run(s, c);
			pthread_mutex_lock(&s->s_lock);
			rc = 0;
			continue;
		}
		if (s->s_stopping || rc == ETIMEDOUT)
			break;
		bx_clock_after(CLOCK_MONOTONIC, s->s_cfg.worker_idle_ms,
		    &until);
		s->s_idle++;
		rc = pthread_cond_timedwait(&s->s_work, &s->s_lock, &until);
		s->s_idle--;
	}
	if (s->s_nended == s->s_ended_cap)
		join_ended(s);
	s->s_ended_workers[s->s_nended++] = pthread_self();
	s->s_workers--;
	pthread_cond_broadcast(&s->s_ended);
	pthread_mutex_unlock(&s->s_lock);
	return NULL;
}

/*
 * Makes sure a worker will take one more ready connection: 1 when an idle
 * one is there to be woken (after the lock is released, so that it does
 * not wake only to wait for the lock), 0 when a new one was started, -1
 * when none could be. The caller holds s_lock.
 */
static int
worker_for_one_more(struct serve *s)
{
	pthread_t t;

	/* Idle workers already woken count for the ones ready before. */
	if (s->s_nready < s->s_idle)
		return 1;
	join_ended(s);
	if (pthread_create(&t, NULL, worker_run, s) != 0)
		return -1;
	s->s_workers++;
	return 0;
}

/* The poll loop's ready hook: a worker takes c, or it is refused. */
static void
conn_ready(void *ctx, struct conn *c)
{
	struct serve *s = ctx;
	const char *why = "too many calls in progress";
	size_t limit;
	int which = c->c_which, worker;

	limit = which == SOCK_BROKER ? s->s_cfg.max_calls :
	    which == SOCK_BRIDGE ? SERVE_MAX_BRIDGE_CALLS :
	    SERVE_MAX_ADMIN_CALLS;
	pthread_mutex_lock(&s->s_lock);
	if (s->s_busy[which] >= limit)
		goto busy;
	if ((worker = worker_for_one_more(s)) == -1) {
		why = "cannot start a thread";
		goto busy;
	}
	s->s_busy[which]++;
	c->c_next = NULL;
	*s->s_ready_tail = c;
	s->s_ready_tail = &c->c_next;
	s->s_nready++;
	pthread_mutex_unlock(&s->s_lock);
	if (worker == 1)
		pthread_cond_signal(&s->s_work);
	return;
busy:
	pthread_mutex_unlock(&s->s_lock);
	serve_refuse(c->c_fd, BX_CODE_BUSY, why, SERVE_REFUSE_TIMEOUT_MS);
	serve_conn_free(c);
	serve_closed(s, which, false);
}

/* The approvals expiry thread: once a second until serve stops. */
static void *
expiry_run(void *arg)
{
	struct serve *s = arg;
	struct broker *b = s->s_cfg.broker;
	struct timespec until;

	pthread_mutex_lock(&s->s_lock);
	while (!s->s_stopping) {
		bx_clock_after(CLOCK_MONOTONIC, SERVE_EXPIRY_MS, &until);
		pthread_cond_timedwait(&s->s_tick, &s->s_lock, &until);
		pthread_mutex_unlock(&s->s_lock);
		approvals_expire(broker_config(b)->approvals, broker_now(b));
		pthread_mutex_lock(&s->s_lock);
	}
	pthread_mutex_unlock(&s->s_lock);
	return NULL;
}

int
serve_run(struct serve *s, struct bx_error *err)
{
	struct approvals *t = broker_config(s->s_cfg.broker)->approvals;
	pthread_t expiry;
	int rc;

	if (pthread_create(&expiry, NULL, expiry_run, s) != 0)
		return bx_fail(err, "serve: cannot start the expiry thread");
	while ((rc = serve_poll_once(s->s_poll, err)) == 1)
		continue;
	/* Stop: no new connections, no waiting ones, no pending approvals. */
	unlisten(s);
	serve_poll_drop_all(s->s_poll);
	approvals_abandon_all(t);
	pthread_mutex_lock(&s->s_lock);
	s->s_stopping = true;
	pthread_cond_broadcast(&s->s_work);
	pthread_cond_broadcast(&s->s_tick);
	/*
	 * Calls in progress and ready ones finish; then every worker ends. A
	 * worker ends only with no connection ready, and its own call is
	 * closed before that, so no worker left means no call left.
	 */
	while (s->s_workers > 0)
		pthread_cond_wait(&s->s_ended, &s->s_lock);
	join_ended(s);
	pthread_mutex_unlock(&s->s_lock);
	pthread_join(expiry, NULL);
	return rc == 0 ? 0 : -1;
}
