/*
 * dial.c: connecting to the addresses resolve.c kept, in their order,
 * one at a time, each non-blocking (bxegress.h). The deadline covers all
 * of them together: --connect-timeout-ms from the first attempt. While
 * dialing, the client is watched only for hanging up; what it sends
 * waits in its socket until the relay starts.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "bxegress/bxegress.h"
#include "proto/clock.h"

static void
connected(struct egress *e, struct conn *c)
{
	char target[EGRESS_TARGET_MAX];

	/* The cap may have been reached while this one was dialing. */
	if (e->e_limited) {
		conn_refuse(e, c, SOCKS_REP_NOT_ALLOWED, "byte limit reached");
		return;
	}
	report_address((const struct sockaddr *)&c->c_addrs[c->c_next],
	    c->c_address, sizeof(c->c_address));
	report_target(&c->c_socks, target, sizeof(target));
	report(e, "connected %s %s", target, c->c_address);
	relay_start(e, c);
}

/* Tries the addresses from c_next on until one is under way. */
static void
dial_next(struct egress *e, struct conn *c)
{
	const struct sockaddr *sa;
	int fd;

	for (; c->c_next < c->c_naddrs; c->c_next++) {
		sa = (const struct sockaddr *)&c->c_addrs[c->c_next];
		fd = socket(sa->sa_family,
		    SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
		if (fd == -1)
			continue;
		c->c_server = fd;
		if (connect(fd, sa, c->c_addrlens[c->c_next]) == 0) {
			connected(e, c);
			return;
		}
		/* Interrupted, a non-blocking connect goes on all the same. */
		if (errno == EINPROGRESS || errno == EINTR)
			return;
		(void)close(fd);
		c->c_server = -1;
	}
	conn_refuse(e, c, SOCKS_REP_CONN_REFUSED, "connect failed");
}

void
dial_start(struct egress *e, struct conn *c)
{
	c->c_state = CONN_DIALING;
	/* Read again: getaddrinfo may have taken a while. */
	c->c_deadline = bx_clock_mono_ms() + e->e_cfg.ec_connect_ms;
	c->c_next = 0;
	dial_next(e, c);
}

void
dial_io(struct egress *e, struct conn *c, short client_revents,
    short server_revents)
{
	socklen_t len = sizeof(int);
	int soerr;

	if ((client_revents & (POLLRDHUP | POLLHUP | POLLERR)) ||
	    buf_send(c->c_client, &c->c_down) == -1) {
		conn_refuse_reply(e, c, NULL, 0, "bad request: hung up");
		return;
	}
	if (server_revents == 0)
		return;
	if (getsockopt(c->c_server, SOL_SOCKET, SO_ERROR, &soerr, &len) == 0 &&
	    soerr == 0) {
		connected(e, c);
		return;
	}
	(void)close(c->c_server);
	c->c_server = -1;
	c->c_next++;
	dial_next(e, c);
}

void
dial_expired(struct egress *e, struct conn *c)
{
	conn_refuse(e, c, SOCKS_REP_HOST_UNREACHABLE, "connect failed");
}
