/*
 * handshake.c: a connection from accept to its request (bxegress.h). The
 * client's bytes go into the connection's up buffer and through the
 * parser (socks.h), which keeps its own state, so the buffer holds only
 * bytes not yet parsed; once the request is whole, what is left there is
 * the client's first data, relayed after the connect.
 */
#include <sys/socket.h>

#include <errno.h>

#include "bxegress/bxegress.h"

static void
hung_up(struct egress *e, struct conn *c)
{
	conn_refuse_reply(e, c, NULL, 0, "bad request: hung up");
}

/* A request that passed the parser: the byte cap, the name's addresses. */
static void
request(struct egress *e, struct conn *c)
{
	const char *reason;
	enum socks_rep rep;

	if (e->e_limited) {
		conn_refuse(e, c, SOCKS_REP_NOT_ALLOWED, "byte limit reached");
		return;
	}
	if ((reason = resolve(&e->e_cfg, c, &rep)) != NULL) {
		conn_refuse(e, c, rep, reason);
		return;
	}
	dial_start(e, c);
}

/* Feeds the parser all it has not seen and acts on what it says. */
static void
parse(struct egress *e, struct conn *c)
{
	struct socks_result r;

	for (;;) {
		(void)socks_feed(&c->c_socks, c->c_up.b_data + c->c_up.b_start,
		    buf_len(&c->c_up), &r);
		buf_drop(&c->c_up, r.sr_used);
		switch (r.sr_event) {
		case SOCKS_METHOD:
			buf_put(&c->c_down, r.sr_reply, r.sr_replylen);
			if (buf_send(c->c_client, &c->c_down) == -1) {
				hung_up(e, c);
				return;
			}
			continue;
		case SOCKS_REFUSE:
			conn_refuse_reply(e, c, r.sr_reply, r.sr_replylen,
			    r.sr_reason);
			return;
		case SOCKS_REQUEST:
			request(e, c);
			return;
		case SOCKS_MORE:
		case SOCKS_EVENT_MAX:
			return;
		}
	}
}

void
handshake_io(struct egress *e, struct conn *c)
{
	ssize_t n;

	if (buf_send(c->c_client, &c->c_down) == -1) {
		hung_up(e, c);
		return;
	}
	do
		n = recv(c->c_client, c->c_up.b_data + c->c_up.b_end,
		    buf_room(&c->c_up), 0);
	while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		hung_up(e, c);
		return;
	}
	c->c_up.b_end += (size_t)n;
	parse(e, c);
}
