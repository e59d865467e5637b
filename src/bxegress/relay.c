/*
 * relay.c: the bytes of a connected connection, both ways (bxegress.h).
 * Each direction has one fixed buffer; a side is read only while its
 * buffer has room, so a fast sender is held back by a slow receiver and
 * nothing grows. An end of input (or an error reading) is passed on with
 * shutdown(SHUT_WR) once its buffer is empty; the relay is done when both
 * ways have ended, or at once when the client can take nothing more.
 *
 * Every byte taken from either side counts against --max-bytes, for all
 * connections together, and no read asks for more than is left of it.
 * When nothing is left: one "limit" line, every relay closed, and later
 * requests refused.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>

#include "bxegress/bxegress.h"
#include "proto/clock.h"

/*
 * Reads what fits from fd into b. An error counts as the end of fd's
 * input: what came before it is in b and still goes out.
 */
static void
take(struct egress *e, int fd, struct buf *b, bool *eof, uint64_t *count)
{
	uint64_t left = e->e_cfg.ec_max_bytes - e->e_total;
	size_t room;
	ssize_t n;

	if (*eof || (room = buf_room(b)) == 0 || left == 0)
		return;
	if (room > left)
		room = (size_t)left;
	do
		n = recv(fd, b->b_data + b->b_end, room, 0);
	while (n == -1 && errno == EINTR);
	if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		return;
	if (n <= 0) {
		*eof = true;
		return;
	}
	b->b_end += (size_t)n;
	*count += (uint64_t)n;
	e->e_total += (uint64_t)n;
}

/*
 * The server takes nothing more (it reset or closed): the client's bytes
 * have nowhere to go, so they are neither kept nor read, while what the
 * server sent before still reaches the client.
 */
static void
server_gone(struct conn *c)
{
	buf_drop(&c->c_up, buf_len(&c->c_up));
	c->c_client_eof = true;
	c->c_server_shut = true;
}

/* Once its input ended and all of it went out, fd's peer hears the end. */
static void
pass_end(int fd, bool eof, const struct buf *b, bool *shut)
{
	if (!eof || buf_len(b) > 0 || *shut)
		return;
	/* A peer already gone makes this fail; the next send tells. */
	(void)shutdown(fd, SHUT_WR);
	*shut = true;
}

void
relay_start(struct egress *e, struct conn *c)
{
	unsigned char reply[SOCKS_REPLY_LEN];
	uint64_t left = e->e_cfg.ec_max_bytes - e->e_total;
	size_t early = buf_len(&c->c_up);

	c->c_state = CONN_RELAY;
	c->c_deadline = 0;
	/* Bytes sent after the request count as relayed from here. */
	if (early > left) {
		c->c_up.b_end = c->c_up.b_start + (size_t)left;
		early = (size_t)left;
	}
	c->c_upbytes += early;
	e->e_total += early;
	socks_reply(SOCKS_REP_OK, reply);
	buf_put(&c->c_down, reply, sizeof(reply));
	relay_io(e, c);
}

void
relay_events(const struct conn *c, short *ret_client, short *ret_server)
{
	short cl = 0, sv = 0;

	if (!c->c_client_eof && sizeof(c->c_up.b_data) > buf_len(&c->c_up))
		cl |= POLLIN;
	if (!c->c_server_eof && sizeof(c->c_down.b_data) >
	    buf_len(&c->c_down))
		sv |= POLLIN;
	if (buf_len(&c->c_up) > 0)
		sv |= POLLOUT;
	if (buf_len(&c->c_down) > 0)
		cl |= POLLOUT;
	*ret_client = cl;
	*ret_server = sv;
}

/*
 * Moves what can move without blocking, whichever descriptor woke the
 * loop: a read or a write that would block costs a system call, and
 * trying both ways needs no bookkeeping of poll's flags.
 */
void
relay_io(struct egress *e, struct conn *c)
{
	uint64_t before = c->c_upbytes + c->c_downbytes;
	ssize_t up, down;

	take(e, c->c_client, &c->c_up, &c->c_client_eof, &c->c_upbytes);
	if ((up = buf_send(c->c_server, &c->c_up)) == -1)
		server_gone(c);
	take(e, c->c_server, &c->c_down, &c->c_server_eof, &c->c_downbytes);
	/* A client gone can be told nothing more: the relay is over. */
	if ((down = buf_send(c->c_client, &c->c_down)) == -1) {
		conn_finish(e, c, "done");
		return;
	}
	pass_end(c->c_server, c->c_client_eof, &c->c_up, &c->c_server_shut);
	pass_end(c->c_client, c->c_server_eof, &c->c_down, &c->c_client_shut);
	if (c->c_upbytes + c->c_downbytes != before || up > 0 || down > 0 ||
	    c->c_deadline == 0)
		c->c_deadline = bx_clock_mono_ms() + e->e_cfg.ec_idle_ms;
	if (e->e_total >= e->e_cfg.ec_max_bytes)
		relay_limit(e);
	else if (c->c_server_shut && c->c_client_shut)
		conn_finish(e, c, "done");
}

void
relay_limit(struct egress *e)
{
	size_t i;

	if (e->e_limited)
		return;
	e->e_limited = true;
	report(e, "limit %llu", (unsigned long long)e->e_total);
	for (i = 0; i < EGRESS_MAX_CLIENTS; i++)
		if (e->e_conns[i].c_state == CONN_RELAY)
			conn_finish(e, &e->e_conns[i], "byte limit reached");
}
