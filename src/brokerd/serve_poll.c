/*
 * serve_poll.c: the poll loop and the connections it holds until their
 * first frame is in (serve.h says why and what bounds them). Only the
 * thread in serve_run touches the waiting list, the poll slots and the
 * wait budget; the counts it shares with the workers are under s_lock.
 */
#include <sys/socket.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/serve_impl.h"
#include "brokerd/serve_socket.h"
#include "proto/clock.h"

/* Out of descriptors, the listeners rest this long instead of spinning. */
#define SERVE_BACKOFF_MS	100

void
serve_conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	bx_frame_reader_free(&c->c_reader);
	close(c->c_fd);
	free(c);
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

/* Closes waiting connection i, which never sent a whole frame. */
static void
drop(struct serve *s, size_t i)
{
	struct conn *c = unwait(s, i);
	int which = c->c_which;

	serve_conn_free(c);
	serve_closed(s, which, false);
}

void
serve_poll_drop_all(struct serve *s)
{
	while (s->s_nwaiting > 0)
		drop(s, 0);
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
	if (st == BX_FRAME_OK) {
		serve_dispatch(s, unwait(s, i));
		return;
	}
	if (st == BX_FRAME_TOO_LARGE)
		serve_refuse(c->c_fd, BX_CODE_FRAME_TOO_LARGE, err.msg,
		    SERVE_REFUSE_TIMEOUT_MS);
	drop(s, i);
}

/* A connection of socket which, if there is room for it; else NULL. */
static struct conn *
conn_new(struct serve *s, int which, int fd)
{
	struct conn *c;
	bool full;

	pthread_mutex_lock(&s->s_lock);
	full = !serve_socket_room(s->s_open[SOCK_BROKER],
	    s->s_open[SOCK_ADMIN], s->s_cfg.max_connections,
	    which == SOCK_BROKER);
	if (!full)
		s->s_open[which]++;
	pthread_mutex_unlock(&s->s_lock);
	if (full || (c = calloc(1, sizeof(*c))) == NULL) {
		serve_refuse(fd, BX_CODE_BUSY, "too many connections",
		    SERVE_REFUSE_TIMEOUT_MS);
		close(fd);
		if (!full)
			serve_closed(s, which, false);
		return NULL;
	}
	c->c_s = s;
	c->c_fd = fd;
	c->c_which = which;
	c->c_deadline = bx_clock_mono_ms() + s->s_cfg.read_timeout_ms;
	bx_frame_reader_init(&c->c_reader, fd);
	return c;
}

/*
 * Whether fd's peer is a uid socket which serves. If not, before a byte of
 * it is read, it gets error forbidden and is closed; the refusal is
 * printed the first time its uid is refused there.
 */
static bool
peer_served(struct serve *s, int which, int fd)
{
	struct bx_error err;
	uid_t uid;

	if (bx_peer_check(fd, &s->s_rule[which], &uid, &err) == 0)
		return true;
	if (bx_peer_seen_first(&s->s_seen[which], uid))
		broker_log(s->s_cfg.broker, "brokerd: %s", err.msg);
	serve_refuse(fd, BX_CODE_FORBIDDEN, err.msg, SERVE_REFUSE_TIMEOUT_MS);
	close(fd);
	return false;
}

/*
 * Accepts every pending connection and reads each at once: a client
 * writes its frame right after connecting, and one whose frame is already
 * in needs no second round of poll.
 */
static void
accept_all(struct serve *s, int which)
{
	struct conn *c;
	int fd;

	while ((fd = accept4(s->s_listen[which], NULL, NULL,
	    SOCK_CLOEXEC | SOCK_NONBLOCK)) != -1) {
		if (!peer_served(s, which, fd) ||
		    (c = conn_new(s, which, fd)) == NULL)
			continue;
		s->s_waiting[s->s_nwaiting++] = c;
		read_some(s, s->s_nwaiting - 1, POLLIN);
	}
	/* A full descriptor table leaves the listener readable: rest. */
	if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
	    errno == ENOMEM)
		s->s_backoff = true;
}

/* Closes waiting connections whose first frame is late; the next deadline. */
static int
reap_late(struct serve *s)
{
	int64_t now = bx_clock_mono_ms(), next = -1;
	size_t i = 0;

	while (i < s->s_nwaiting) {
		if (s->s_waiting[i]->c_deadline <= now) {
			drop(s, i);
			continue;
		}
		if (next == -1 || s->s_waiting[i]->c_deadline < next)
			next = s->s_waiting[i]->c_deadline;
		i++;
	}
	return next == -1 ? -1 : (int)(next - now);
}

int
serve_poll_once(struct serve *s, struct bx_error *err)
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
