/*
 * serve.c: the listeners, the poll loop that holds connections until their
 * first frame, and the threads that handle one request each. The only file
 * of brokerd that starts threads.
 */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brokerd/admin.h"
#include "brokerd/serve.h"
#include "brokerd/serve_socket.h"
#include "proto/clock.h"
#include "proto/frame.h"
#include "proto/unixsock.h"

enum { SOCK_BROKER, SOCK_ADMIN, SOCK_COUNT };
/* Poll slots before the connections: wake pipe, stop_fd, two listeners. */
enum { SLOT_WAKE, SLOT_STOP, SLOT_LISTEN, SLOT_CONNS = SLOT_LISTEN + SOCK_COUNT };
/* A refusal (busy, too large) is a small frame; it gets this long. */
#define SERVE_REFUSE_TIMEOUT_MS	100
/* Out of descriptors, the listeners rest this long instead of spinning. */
#define SERVE_BACKOFF_MS	100

static const char *sock_names[SOCK_COUNT] = { "broker.sock", "admin.sock" };

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
};

struct serve {
	struct serve_config	 s_cfg;
	char			 s_path[SOCK_COUNT][PATH_MAX];
	struct bx_unix_file	 s_file[SOCK_COUNT];
	int			 s_listen[SOCK_COUNT];
	int			 s_wake[2];
	struct conn		**s_waiting;	/* poll phase */
	size_t			 s_nwaiting;
	size_t			 s_charged;	/* wait budget in use */
	atomic_size_t		 s_held;	/* what the waiting hold */
	struct pollfd		*s_pfds;
	pthread_mutex_t		 s_lock;	/* guards the rest */
	pthread_cond_t		 s_changed;
	pthread_cond_t		 s_tick;	/* the expiry thread waits */
	size_t			 s_open[SOCK_COUNT];	/* either phase */
	size_t			 s_busy[SOCK_COUNT];	/* threads */
	bool			 s_stopping;
	bool			 s_backoff;	/* poll loop only: out of fds */
};

static int
listen_on(struct serve *s, int i, const char *path, struct bx_error *err)
{
	snprintf(s->s_path[i], sizeof(s->s_path[i]), "%s", path);
	return bx_unix_listen(path, SERVE_BACKLOG, BX_UNIX_NONBLOCK,
	    &s->s_listen[i], &s->s_file[i], err);
}

struct serve *
serve_new(const struct serve_config *cfg, struct bx_error *err)
{
	struct serve *s;

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
	s->s_listen[0] = s->s_listen[1] = s->s_wake[0] = s->s_wake[1] = -1;
	pthread_mutex_init(&s->s_lock, NULL);
	pthread_cond_init(&s->s_changed, NULL);
	pthread_cond_init(&s->s_tick, NULL);
	s->s_waiting = calloc(s->s_cfg.max_connections, sizeof(*s->s_waiting));
	s->s_pfds = calloc(s->s_cfg.max_connections + SLOT_CONNS,
	    sizeof(*s->s_pfds));
	if (s->s_waiting == NULL || s->s_pfds == NULL) {
		bx_fail(err, "serve: out of memory");
		goto fail;
	}
	if (pipe2(s->s_wake, O_CLOEXEC | O_NONBLOCK) == -1) {
		bx_fail(err, "serve: pipe: %s", strerror(errno));
		goto fail;
	}
	if (listen_on(s, SOCK_BROKER, cfg->broker_socket, err) == -1 ||
	    listen_on(s, SOCK_ADMIN, cfg->admin_socket, err) == -1)
		goto fail;
	return s;
fail:
	serve_free(s);
	return NULL;
}

static void
conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	bx_frame_reader_free(&c->c_reader);
	close(c->c_fd);
	free(c);
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
	size_t i;

	if (s == NULL)
		return;
	unlisten(s);
	for (i = 0; i < s->s_nwaiting; i++)
		conn_free(s->s_waiting[i]);
	if (s->s_wake[0] != -1)
		close(s->s_wake[0]);
	if (s->s_wake[1] != -1)
		close(s->s_wake[1]);
	pthread_cond_destroy(&s->s_changed);
	pthread_cond_destroy(&s->s_tick);
	pthread_mutex_destroy(&s->s_lock);
	free(s->s_waiting);
	free(s->s_pfds);
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
	return atomic_load(&s->s_held);
}

/* Answers fd with an error frame, best effort: it is being closed anyway. */
static void
refuse(int fd, enum bx_code code, const char *message, int timeout_ms)
{
	struct bx_msg *msg = bx_msg_error(code, message);

	if (msg != NULL)
		bx_msg_send(fd, msg, timeout_ms, NULL);
	bx_msg_free(msg);
}

/* One connection is closed, in either phase. */
static void
closed(struct serve *s, int which, bool threaded)
{
	pthread_mutex_lock(&s->s_lock);
	s->s_open[which]--;
	if (threaded)
		s->s_busy[which]--;
	pthread_cond_broadcast(&s->s_changed);
	pthread_mutex_unlock(&s->s_lock);
}

static bool
allowed(int which, enum bx_msg_kind kind)
{
	if (which == SOCK_BROKER)
		return kind == BX_MSG_TOOL_REQUEST;
	return admin_kind(kind);
}

/* Handles the connection's one request, then closes it. */
static void *
conn_run(void *arg)
{
	struct conn *c = arg;
	struct serve *s = c->c_s;
	struct broker *b = s->s_cfg.broker;
	struct bx_msg *req = NULL;
	struct bx_error err;
	int which = c->c_which;

	if (bx_msg_decode(c->c_line, c->c_len, &req, &err) == -1)
		refuse(c->c_fd, BX_CODE_BAD_REQUEST, err.msg,
		    SERVE_WRITE_TIMEOUT_MS);
	else if (!allowed(which, req->kind)) {
		broker_log(b, "serve: a %s message on %s (%s) is forbidden; "
		    "the connection is closed; "
		    "see docs/runbook.md#socket-forbidden",
		    bx_msg_kind_name(req->kind), sock_names[which],
		    s->s_path[which]);
		refuse(c->c_fd, BX_CODE_FORBIDDEN, "this socket does not take "
		    "that kind of message", SERVE_WRITE_TIMEOUT_MS);
	} else if (which == SOCK_BROKER)
		broker_call_fd(b, c->c_fd, &req->tool_request,
		    SERVE_WRITE_TIMEOUT_MS, &err);
	else
		admin_handle_fd(b, c->c_fd, req, SERVE_WRITE_TIMEOUT_MS, &err);
	bx_msg_free(req);
	conn_free(c);
	closed(s, which, true);
	return NULL;
}

/* The first frame is in: a thread takes the connection, if one may. */
static void
dispatch(struct serve *s, struct conn *c)
{
	pthread_attr_t attr;
	pthread_t t;
	size_t limit;
	int which = c->c_which, rc;

	limit = which == SOCK_BROKER ? s->s_cfg.max_calls :
	    SERVE_MAX_ADMIN_CALLS;
	pthread_mutex_lock(&s->s_lock);
	if (s->s_busy[which] >= limit) {
		pthread_mutex_unlock(&s->s_lock);
		refuse(c->c_fd, BX_CODE_BUSY, "too many calls in progress",
		    SERVE_REFUSE_TIMEOUT_MS);
		goto drop;
	}
	s->s_busy[which]++;
	pthread_mutex_unlock(&s->s_lock);
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&t, &attr, conn_run, c);
	pthread_attr_destroy(&attr);
	if (rc == 0)
		return;
	pthread_mutex_lock(&s->s_lock);
	s->s_busy[which]--;
	pthread_mutex_unlock(&s->s_lock);
	refuse(c->c_fd, BX_CODE_BUSY, "cannot start a thread",
	    SERVE_REFUSE_TIMEOUT_MS);
drop:
	conn_free(c);
	closed(s, which, false);
}

/* What a buffer of held bytes takes from the wait budget. */
static size_t
charge(size_t held)
{
	return held > BX_FRAME_INITIAL ? held - BX_FRAME_INITIAL : 0;
}

/* Counts c's buffer as holding held bytes now. */
static void
account(struct serve *s, struct conn *c, size_t held)
{
	s->s_charged = s->s_charged - charge(c->c_held) + charge(held);
	atomic_fetch_sub(&s->s_held, c->c_held);
	atomic_fetch_add(&s->s_held, held);
	c->c_held = held;
}

/*
 * Takes waiting connection i off the poll list (the last one moves in);
 * its buffer no longer counts against the wait budget.
 */
static struct conn *
unwait(struct serve *s, size_t i)
{
	struct conn *c = s->s_waiting[i];

	account(s, c, 0);
	s->s_waiting[i] = s->s_waiting[--s->s_nwaiting];
	return c;
}

static void
accept_all(struct serve *s, int which)
{
	struct conn *c;
	bool full;
	int fd;

	while ((fd = accept4(s->s_listen[which], NULL, NULL,
	    SOCK_CLOEXEC | SOCK_NONBLOCK)) != -1) {
		pthread_mutex_lock(&s->s_lock);
		full = !serve_socket_room(s->s_open[SOCK_BROKER],
		    s->s_open[SOCK_ADMIN], s->s_cfg.max_connections,
		    which == SOCK_BROKER);
		if (!full)
			s->s_open[which]++;
		pthread_mutex_unlock(&s->s_lock);
		if (full || (c = calloc(1, sizeof(*c))) == NULL) {
			refuse(fd, BX_CODE_BUSY, "too many connections",
			    SERVE_REFUSE_TIMEOUT_MS);
			close(fd);
			if (!full)
				closed(s, which, false);
			continue;
		}
		c->c_s = s;
		c->c_fd = fd;
		c->c_which = which;
		c->c_deadline = bx_clock_mono_ms() + s->s_cfg.read_timeout_ms;
		bx_frame_reader_init(&c->c_reader, fd);
		s->s_waiting[s->s_nwaiting++] = c;
	}
	/* A full descriptor table leaves the listener readable: rest. */
	if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
	    errno == ENOMEM)
		s->s_backoff = true;
}

/*
 * Reads what waiting connection i has sent. Without POLLIN (it was not
 * asked for, its buffer waiting for budget) revents is a hang-up or an
 * error: nobody is left to answer.
 */
static void
read_some(struct serve *s, size_t i, short revents)
{
	struct conn *c = s->s_waiting[i];
	struct bx_error err;
	enum bx_frame_status st = BX_FRAME_EOF;

	/* It may grow into what the budget has left, no further. */
	bx_frame_reader_limit(&c->c_reader, c->c_held +
	    (s->s_cfg.wait_budget - s->s_charged));
	if (revents & POLLIN)
		st = bx_frame_read(&c->c_reader, 0, &c->c_line, &c->c_len,
		    &err);
	account(s, c, bx_frame_reader_held(&c->c_reader));
	c->c_full = st == BX_FRAME_FULL;
	if (st == BX_FRAME_TIMEOUT || st == BX_FRAME_FULL)
		return;
	unwait(s, i);
	if (st == BX_FRAME_OK) {
		dispatch(s, c);
		return;
	}
	if (st == BX_FRAME_TOO_LARGE)
		refuse(c->c_fd, BX_CODE_FRAME_TOO_LARGE, err.msg,
		    SERVE_REFUSE_TIMEOUT_MS);
	conn_free(c);
	closed(s, SOCK_BROKER, false);
}

/* Closes waiting connections whose first frame is late; the next deadline. */
static int
reap_late(struct serve *s)
{
	int64_t now = bx_clock_mono_ms(), next = -1;
	size_t i = 0;

	while (i < s->s_nwaiting) {
		if (s->s_waiting[i]->c_deadline <= now) {
			conn_free(unwait(s, i));
			closed(s, SOCK_BROKER, false);
			continue;
		}
		if (next == -1 || s->s_waiting[i]->c_deadline < next)
			next = s->s_waiting[i]->c_deadline;
		i++;
	}
	return next == -1 ? -1 : (int)(next - now);
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
		bx_clock_after(CLOCK_REALTIME, SERVE_EXPIRY_MS, &until);
		pthread_cond_timedwait(&s->s_tick, &s->s_lock, &until);
		pthread_mutex_unlock(&s->s_lock);
		approvals_expire(broker_config(b)->approvals, broker_now(b));
		pthread_mutex_lock(&s->s_lock);
	}
	pthread_mutex_unlock(&s->s_lock);
	return NULL;
}

/* One round of poll: returns 1 to go on, 0 to stop, -1 on failure. */
static int
poll_once(struct serve *s, struct bx_error *err)
{
	struct pollfd *p = s->s_pfds;
	size_t i, n;
	int timeout;

	timeout = reap_late(s);
	if (s->s_backoff && (timeout == -1 || timeout > SERVE_BACKOFF_MS))
		timeout = SERVE_BACKOFF_MS;
	p[SLOT_WAKE] = (struct pollfd){ s->s_wake[0], POLLIN, 0 };
	p[SLOT_STOP] = (struct pollfd){ s->s_cfg.stop_fd, POLLIN, 0 };
	for (i = 0; i < SOCK_COUNT; i++)
		p[SLOT_LISTEN + i] = (struct pollfd){ s->s_backoff ? -1 :
		    s->s_listen[i], POLLIN, 0 };
	s->s_backoff = false;
	n = s->s_nwaiting;
	/* One whose buffer waits for budget is watched only for a hang-up. */
	for (i = 0; i < n; i++)
		p[SLOT_CONNS + i] = (struct pollfd){ s->s_waiting[i]->c_fd,
		    s->s_waiting[i]->c_full &&
		    s->s_charged >= s->s_cfg.wait_budget ? 0 : POLLIN, 0 };
	if (poll(p, SLOT_CONNS + n, timeout) == -1) {
		if (errno == EINTR)
			return 1;
		return bx_fail(err, "serve: poll: %s", strerror(errno));
	}
	if (p[SLOT_WAKE].revents != 0 || p[SLOT_STOP].revents != 0)
		return 0;
	/* From the last, so that moving the last connection into i is safe. */
	for (i = n; i-- > 0;)
		if (p[SLOT_CONNS + i].revents != 0)
			read_some(s, i, p[SLOT_CONNS + i].revents);
	for (i = 0; i < SOCK_COUNT; i++)
		if (p[SLOT_LISTEN + i].revents != 0)
			accept_all(s, (int)i);
	return 1;
}

int
serve_run(struct serve *s, struct bx_error *err)
{
	struct approvals *t = broker_config(s->s_cfg.broker)->approvals;
	pthread_t expiry;
	int rc;

	if (pthread_create(&expiry, NULL, expiry_run, s) != 0)
		return bx_fail(err, "serve: cannot start the expiry thread");
	while ((rc = poll_once(s, err)) == 1)
		continue;
	/* Stop: no new connections, no waiting ones, no pending approvals. */
	unlisten(s);
	while (s->s_nwaiting > 0) {
		conn_free(unwait(s, 0));
		closed(s, SOCK_BROKER, false);
	}
	approvals_abandon_all(t);
	pthread_mutex_lock(&s->s_lock);
	s->s_stopping = true;
	pthread_cond_broadcast(&s->s_changed);
	pthread_cond_broadcast(&s->s_tick);
	while (s->s_busy[SOCK_BROKER] + s->s_busy[SOCK_ADMIN] > 0)
		pthread_cond_wait(&s->s_changed, &s->s_lock);
	pthread_mutex_unlock(&s->s_lock);
	pthread_join(expiry, NULL);
	return rc == 0 ? 0 : -1;
}
