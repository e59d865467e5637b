/*
 * loop.c: bxegress's one poll loop (bxegress.h). Each round builds the
 * poll set from the connections' states, waits for a descriptor or the
 * nearest deadline, lets each connection act on what it was woken for,
 * ends those past their deadline, and accepts last, so that a connection
 * is never handed flags of a round it was not part of.
 *
 * The poll set has a fixed layout: entry 0 is the listening socket, and
 * connection i has 1 + 2i (its client) and 2 + 2i (its server). A
 * descriptor with nothing to wait for is left out (fd -1): poll would
 * otherwise report its hang-up every round and the loop would spin.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bxegress/bxegress.h"
#include "proto/clock.h"

#define POLL_SLOTS	(1 + 2 * EGRESS_MAX_CLIENTS)

static bool
has_free_slot(const struct egress *e)
{
	size_t i;

	for (i = 0; i < EGRESS_MAX_CLIENTS; i++)
		if (e->e_conns[i].c_state == CONN_FREE)
			return true;
	return false;
}

static void
set_slot(struct pollfd *p, int fd, short events)
{
	p->fd = events != 0 ? fd : -1;
	p->events = events;
	p->revents = 0;
}

static void
conn_events(const struct conn *c, struct pollfd *cl, struct pollfd *sv)
{
	short out = buf_len(&c->c_down) > 0 ? POLLOUT : 0;
	short ce = 0, se = 0;

	switch (c->c_state) {
	case CONN_HANDSHAKE:
		ce = POLLIN | out;
		break;
	case CONN_DIALING:
		ce = POLLRDHUP | out;
		se = POLLOUT;
		break;
	case CONN_RELAY:
		relay_events(c, &ce, &se);
		break;
	case CONN_REFUSING:
		ce = out;
		break;
	case CONN_FREE:
	case CONN_STATE_MAX:
		break;
	}
	set_slot(cl, c->c_client, ce);
	set_slot(sv, c->c_server, se);
}

/* The poll set, and how long poll may wait (-1: no deadline). */
static int64_t
build(const struct egress *e, struct pollfd *fds, int64_t now)
{
	int64_t wait = -1, left;
	const struct conn *c;
	size_t i;

	set_slot(&fds[0], e->e_listen,
	    e->e_listen != -1 && has_free_slot(e) ? POLLIN : 0);
	for (i = 0; i < EGRESS_MAX_CLIENTS; i++) {
		c = &e->e_conns[i];
		conn_events(c, &fds[1 + 2 * i], &fds[2 + 2 * i]);
		if (c->c_state == CONN_FREE)
			continue;
		left = c->c_deadline > now ? c->c_deadline - now : 0;
		if (wait == -1 || left < wait)
			wait = left;
	}
	return wait;
}

static void
stop_accepting(struct egress *e)
{
	(void)close(e->e_listen);
	e->e_listen = -1;
}

static void
accept_one(struct egress *e, short revents, int64_t now)
{
	int fd;

	if (revents & (POLLERR | POLLNVAL)) {
		fprintf(stderr, "bxegress: the listening socket failed\n");
		stop_accepting(e);
		return;
	}
	fd = accept4(e->e_listen, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd == -1) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ||
		    errno == ECONNABORTED)
			return;
		fprintf(stderr, "bxegress: accept: %s\n", strerror(errno));
		stop_accepting(e);
		return;
	}
	/* Refused once, then the socket is closed: nothing more is taken. */
	if (e->e_accepted == EGRESS_MAX_CONNECTIONS) {
		report(e, "refused -:0 too many connections");
		(void)close(fd);
		stop_accepting(e);
		return;
	}
	e->e_accepted++;
	(void)conn_new(e, fd, now);
}

static void
dispatch(struct egress *e, struct conn *c, short crev, short srev)
{
	switch (c->c_state) {
	case CONN_HANDSHAKE:
		handshake_io(e, c);
		break;
	case CONN_DIALING:
		dial_io(e, c, crev, srev);
		break;
	case CONN_RELAY:
		relay_io(e, c);
		break;
	case CONN_REFUSING:
		if (buf_send(c->c_client, &c->c_down) == -1 ||
		    buf_len(&c->c_down) == 0)
			conn_close(c);
		break;
	case CONN_FREE:
	case CONN_STATE_MAX:
		break;
	}
}

static void
expire(struct egress *e, struct conn *c)
{
	switch (c->c_state) {
	case CONN_HANDSHAKE:
		conn_refuse_reply(e, c, NULL, 0, "bad request: timed out");
		break;
	case CONN_DIALING:
		dial_expired(e, c);
		break;
	case CONN_RELAY:
		conn_finish(e, c, "idle");
		break;
	case CONN_REFUSING:
		conn_close(c);
		break;
	case CONN_FREE:
	case CONN_STATE_MAX:
		break;
	}
}

/* One round's work, once poll has returned. */
static void
round_done(struct egress *e, const struct pollfd *fds)
{
	struct conn *c;
	int64_t now;
	size_t i;

	for (i = 0; i < EGRESS_MAX_CLIENTS; i++) {
		c = &e->e_conns[i];
		if (fds[1 + 2 * i].revents != 0 || fds[2 + 2 * i].revents != 0)
			dispatch(e, c, fds[1 + 2 * i].revents,
			    fds[2 + 2 * i].revents);
	}
	now = bx_clock_mono_ms();
	for (i = 0; i < EGRESS_MAX_CLIENTS; i++) {
		c = &e->e_conns[i];
		if (c->c_state != CONN_FREE && c->c_deadline <= now)
			expire(e, c);
	}
	if (e->e_listen != -1 && fds[0].revents != 0)
		accept_one(e, fds[0].revents, now);
}

int
loop_run(struct egress *e, const sigset_t *poll_mask)
{
	struct pollfd fds[POLL_SLOTS];
	struct timespec ts;
	int64_t wait, now;
	size_t i;

	for (;;) {
		if (egress_stop) {
			for (i = 0; i < EGRESS_MAX_CLIENTS; i++)
				conn_stop(e, &e->e_conns[i]);
			return 0;
		}
		now = bx_clock_mono_ms();
		wait = build(e, fds, now);
		ts.tv_sec = (time_t)(wait / 1000);
		ts.tv_nsec = (long)(wait % 1000) * 1000000L;
		if (ppoll(fds, POLL_SLOTS, wait == -1 ? NULL : &ts,
		    poll_mask) == -1) {
			if (errno == EINTR)
				continue;
			fatal("poll: %s", strerror(errno));
		}
		round_done(e, fds);
	}
}
