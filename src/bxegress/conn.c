/*
 * conn.c: one connection's life, whatever state it is in (bxegress.h):
 * taken from the table at accept, ended with its report line, refused or
 * finished, and closed. Every way out of the table but conn_close reports
 * first, which is how every accepted connection gets its line.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxegress/bxegress.h"
#include "proto/clock.h"

struct conn *
conn_new(struct egress *e, int client, int64_t now)
{
	struct conn *c;
	size_t i;

	for (i = 0; i < EGRESS_MAX_CLIENTS; i++) {
		c = &e->e_conns[i];
		if (c->c_state != CONN_FREE)
			continue;
		memset(c, 0, sizeof(*c));
		c->c_state = CONN_HANDSHAKE;
		c->c_client = client;
		c->c_server = -1;
		socks_init(&c->c_socks, e->e_cfg.ec_patterns,
		    e->e_cfg.ec_npatterns);
		(void)snprintf(c->c_address, sizeof(c->c_address), "-");
		/* The whole greeting and request within the idle time. */
		c->c_deadline = now + e->e_cfg.ec_idle_ms;
		return c;
	}
	return NULL;
}

void
conn_close(struct conn *c)
{
	if (c->c_client != -1)
		(void)close(c->c_client);
	if (c->c_server != -1)
		(void)close(c->c_server);
	c->c_client = -1;
	c->c_server = -1;
	c->c_state = CONN_FREE;
}

/*
 * Reports the refusal, then sends the reply (len 0: none) and closes once
 * it is gone; a reply of at most ten bytes to a socket that has read
 * nothing of ours but two bytes is almost always gone at once.
 */
void
conn_refuse_reply(struct egress *e, struct conn *c,
    const unsigned char *reply, size_t len, const char *reason)
{
	char target[EGRESS_TARGET_MAX];

	report_target(&c->c_socks, target, sizeof(target));
	report(e, "refused %s %s", target, reason);
	if (c->c_server != -1) {
		(void)close(c->c_server);
		c->c_server = -1;
	}
	if (len == 0) {
		conn_close(c);
		return;
	}
	buf_put(&c->c_down, reply, len);
	c->c_state = CONN_REFUSING;
	c->c_deadline = bx_clock_mono_ms() + e->e_cfg.ec_idle_ms;
	if (buf_send(c->c_client, &c->c_down) == -1 ||
	    buf_len(&c->c_down) == 0)
		conn_close(c);
}

void
conn_refuse(struct egress *e, struct conn *c, enum socks_rep rep,
    const char *reason)
{
	unsigned char reply[SOCKS_REPLY_LEN];

	socks_reply(rep, reply);
	conn_refuse_reply(e, c, reply, sizeof(reply), reason);
}

void
conn_finish(struct egress *e, struct conn *c, const char *why)
{
	char target[EGRESS_TARGET_MAX];

	report_target(&c->c_socks, target, sizeof(target));
	report(e, "closed %s %s %llu %llu %s", target, c->c_address,
	    (unsigned long long)c->c_upbytes,
	    (unsigned long long)c->c_downbytes, why);
	conn_close(c);
}

/*
 * SIGTERM: a refused connection was reported; any other live one is now
 * (handshake, dialing and relay alike).
 */
void
conn_stop(struct egress *e, struct conn *c)
{
	if (c->c_state == CONN_REFUSING)
		conn_close(c);
	else if (c->c_state != CONN_FREE && c->c_state != CONN_STATE_MAX)
		conn_finish(e, c, "stopped");
}
