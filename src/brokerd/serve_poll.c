/*
 * serve_poll.c: the poll loop and the connections it holds until their
 * first frame is in (serve_poll.h; serve.h says why and what bounds them).
 * Only the thread that runs serve_poll_once touches the waiting list, the
 * poll slots and the wait budget; what it counts with the workers is the
 * owner's, behind the open and closed hooks.
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/serve_poll.h"
#include "brokerd/serve_socket.h"
#include "proto/clock.h"

/* Out of descriptors, the listeners rest this long instead of spinning. */
#define SERVE_BACKOFF_MS	100

/* Poll slots before the connections: wake pipe, stop_fd, the listeners. */
enum { SLOT_WAKE, SLOT_STOP, SLOT_LISTEN, SLOT_CONNS = SLOT_LISTEN + SOCK_COUNT };

struct serve_poll {
	struct serve_poll_config sp_cfg;
	struct bx_peer_seen	 sp_seen[SOCK_COUNT];	/* refusals printed */
	struct conn		**sp_waiting;
	size_t			 sp_nwaiting;
	size_t			 sp_charged;	/* wait budget in use */
	struct pollfd		*sp_pfds;
	bool			 sp_backoff;	/* out of descriptors */
	atomic_size_t		 sp_held;	/* what the waiting hold */
};

struct serve_poll *
serve_poll_new(const struct serve_poll_config *cfg, struct bx_error *err)
{
	struct serve_poll *sp;

	if ((sp = calloc(1, sizeof(*sp))) == NULL) {
		bx_fail(err, "serve: out of memory");
		return NULL;
	}
	sp->sp_cfg = *cfg;
	sp->sp_waiting = calloc(cfg->max_connections, sizeof(*sp->sp_waiting));
	sp->sp_pfds = calloc(cfg->max_connections + SLOT_CONNS,
	    sizeof(*sp->sp_pfds));
	if (sp->sp_waiting == NULL || sp->sp_pfds == NULL) {
		bx_fail(err, "serve: out of memory");
		serve_poll_free(sp);
		return NULL;
	}
	return sp;
}

void
serve_poll_free(struct serve_poll *sp)
{
	size_t i;

	if (sp == NULL)
		return;
	for (i = 0; i < sp->sp_nwaiting; i++)
		serve_conn_free(sp->sp_waiting[i]);
	free(sp->sp_waiting);
	free(sp->sp_pfds);
	free(sp);
}

size_t
serve_poll_held(struct serve_poll *sp)
{
	return atomic_load(&sp->sp_held);
}

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
account(struct serve_poll *sp, struct conn *c, size_t held)
{
	sp->sp_charged = sp->sp_charged - charge(c->c_held) + charge(held);
	atomic_fetch_sub(&sp->sp_held, c->c_held);
	atomic_fetch_add(&sp->sp_held, held);
	c->c_held = held;
}

/*
 * Takes waiting connection i off the poll list (the last one moves in);
 * its buffer no longer counts against the wait budget.
 */
static struct conn *
unwait(struct serve_poll *sp, size_t i)
{
	struct conn *c = sp->sp_waiting[i];

	account(sp, c, 0);
	sp->sp_waiting[i] = sp->sp_waiting[--sp->sp_nwaiting];
	return c;
}

/* Closes waiting connection i, which never sent a whole frame. */
static void
drop(struct serve_poll *sp, size_t i)
{
	struct conn *c = unwait(sp, i);
	int which = c->c_which;

	serve_conn_free(c);
	sp->sp_cfg.closed(sp->sp_cfg.ctx, which);
}

void
serve_poll_drop_all(struct serve_poll *sp)
{
	while (sp->sp_nwaiting > 0)
		drop(sp, 0);
}

/*
 * Reads what waiting connection i has sent. Without POLLIN (it was not
 * asked for, its buffer waiting for budget) revents is a hang-up or an
 * error: nobody is left to answer.
 */
static void
read_some(struct serve_poll *sp, size_t i, short revents)
{
	struct conn *c = sp->sp_waiting[i];
	struct bx_error err;
	enum bx_frame_status st = BX_FRAME_EOF;

	/* It may grow into what the budget has left, no further. */
	bx_frame_reader_limit(&c->c_reader, c->c_held +
	    (sp->sp_cfg.wait_budget - sp->sp_charged));
	if (revents & POLLIN)
		st = bx_frame_read(&c->c_reader, 0, &c->c_line, &c->c_len,
		    &err);
	account(sp, c, bx_frame_reader_held(&c->c_reader));
	c->c_full = st == BX_FRAME_FULL;
	if (st == BX_FRAME_TIMEOUT || st == BX_FRAME_FULL)
		return;
	if (st == BX_FRAME_OK) {
		sp->sp_cfg.ready(sp->sp_cfg.ctx, unwait(sp, i));
		return;
	}
	if (st == BX_FRAME_TOO_LARGE)
		serve_refuse(c->c_fd, BX_CODE_FRAME_TOO_LARGE, err.msg,
		    SERVE_REFUSE_TIMEOUT_MS);
	drop(sp, i);
}

/* A connection of socket which, if there is room for it; else NULL. */
static struct conn *
conn_new(struct serve_poll *sp, int which, int fd)
{
	struct conn *c;
	bool full;

	full = !sp->sp_cfg.open(sp->sp_cfg.ctx, which);
	if (full || (c = calloc(1, sizeof(*c))) == NULL) {
		serve_refuse(fd, BX_CODE_BUSY, "too many connections",
		    SERVE_REFUSE_TIMEOUT_MS);
		close(fd);
		if (!full)
			sp->sp_cfg.closed(sp->sp_cfg.ctx, which);
		return NULL;
	}
	c->c_fd = fd;
	c->c_which = which;
	c->c_deadline = bx_clock_mono_ms() + sp->sp_cfg.read_timeout_ms;
	bx_frame_reader_init(&c->c_reader, fd);
	return c;
}

/*
 * Whether fd's peer is a uid socket which serves. If not, before a byte of
 * it is read, it gets error forbidden and is closed; the refusal is
 * printed the first time its uid is refused there.
 */
static bool
peer_served(struct serve_poll *sp, int which, int fd)
{
	struct bx_error err;
	uid_t uid;

	if (bx_peer_check(fd, &sp->sp_cfg.rules[which], &uid, &err) == 0)
		return true;
	if (bx_peer_seen_first(&sp->sp_seen[which], uid))
		log_say(sp->sp_cfg.log, "brokerd: %s", err.msg);
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
accept_all(struct serve_poll *sp, int which)
{
	struct conn *c;
	int fd;

	while ((fd = accept4(sp->sp_cfg.listen[which], NULL, NULL,
	    SOCK_CLOEXEC | SOCK_NONBLOCK)) != -1) {
		if (!peer_served(sp, which, fd) ||
		    (c = conn_new(sp, which, fd)) == NULL)
			continue;
		sp->sp_waiting[sp->sp_nwaiting++] = c;
		read_some(sp, sp->sp_nwaiting - 1, POLLIN);
	}
	/* A full descriptor table leaves the listener readable: rest. */
	if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS ||
	    errno == ENOMEM)
		sp->sp_backoff = true;
}

/* Closes waiting connections whose first frame is late; the next deadline. */
static int
reap_late(struct serve_poll *sp)
{
	int64_t now = bx_clock_mono_ms(), next = -1;
	size_t i = 0;

	while (i < sp->sp_nwaiting) {
		if (sp->sp_waiting[i]->c_deadline <= now) {
			drop(sp, i);
			continue;
		}
		if (next == -1 || sp->sp_waiting[i]->c_deadline < next)
			next = sp->sp_waiting[i]->c_deadline;
		i++;
	}
	return next == -1 ? -1 : (int)(next - now);
}

int
serve_poll_once(struct serve_poll *sp, struct bx_error *err)
{
	struct pollfd *p = sp->sp_pfds;
	size_t i, n;
	int timeout;

	timeout = reap_late(sp);
	if (sp->sp_backoff && (timeout == -1 || timeout > SERVE_BACKOFF_MS))
		timeout = SERVE_BACKOFF_MS;
	p[SLOT_WAKE] = (struct pollfd){ sp->sp_cfg.wake_fd, POLLIN, 0 };
	p[SLOT_STOP] = (struct pollfd){ sp->sp_cfg.stop_fd, POLLIN, 0 };
	for (i = 0; i < SOCK_COUNT; i++)
		p[SLOT_LISTEN + i] = (struct pollfd){ sp->sp_backoff ? -1 :
		    sp->sp_cfg.listen[i], POLLIN, 0 };
	sp->sp_backoff = false;
	n = sp->sp_nwaiting;
	/* One whose buffer waits for budget is watched only for a hang-up. */
	for (i = 0; i < n; i++)
		p[SLOT_CONNS + i] = (struct pollfd){ sp->sp_waiting[i]->c_fd,
		    sp->sp_waiting[i]->c_full &&
		    sp->sp_charged >= sp->sp_cfg.wait_budget ? 0 : POLLIN, 0 };
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
			read_some(sp, i, p[SLOT_CONNS + i].revents);
	for (i = 0; i < SOCK_COUNT; i++)
		if (p[SLOT_LISTEN + i].revents != 0)
			accept_all(sp, (int)i);
	return 1;
}
