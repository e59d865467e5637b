/*
 * relay.c: the model relay's listener and its connections (relay.h).
 * The accept thread checks each peer's uid before reading anything and
 * starts a thread per connection; that thread resolves the model's host,
 * connects and copies. Every poll also watches r_stop, an eventfd written
 * once by relay_free() and never read, so that one write wakes every
 * thread for good.
 */
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/clock.h"
#include "proto/unixsock.h"
#include "loopd/relay.h"

/* How long the accept loop rests when it is out of descriptors. */
#define RELAY_RETRY_MS	100

struct relay {
	char			*r_path;
	struct relay_target	 r_target;
	uid_t			 r_uid;
	void			(*r_log)(void *, const char *);
	void			*r_log_arg;
	int			 r_listen;
	struct bx_unix_file	 r_made;
	int			 r_stop;	/* eventfd, readable once stopping */
	atomic_bool		 r_stopping;
	bool			 r_started;
	pthread_t		 r_accept;
	uid_t			 r_logged[RELAY_MAX_LOGGED_UIDS];
	size_t			 r_nlogged;	/* accept thread only */
	pthread_mutex_t		 r_lock;
	pthread_cond_t		 r_done;
	int			 r_threads;	/* connection threads running */
	bool			 r_orphaned;	/* the last thread frees it */
};

/* One direction of a connection: bytes read from h_from go to h_to. */
struct half {
	int	h_from;
	int	h_to;
	size_t	h_start;
	size_t	h_end;
	bool	h_eof;		/* h_from has nothing more */
	bool	h_shut;		/* and h_to has been told (SHUT_WR) */
	char	h_buf[RELAY_BUF_SIZE];
};

struct conn {
	struct relay	*c_relay;
	int		 c_client;
	int		 c_server;
	struct half	 c_up;		/* client to model server */
	struct half	 c_down;	/* model server to client */
};

static void
destroy(struct relay *r)
{
	if (r->r_stop != -1)
		close(r->r_stop);
	pthread_cond_destroy(&r->r_done);
	pthread_mutex_destroy(&r->r_lock);
	free(r->r_path);
	free(r);
}

int
relay_new(const char *sock_path, const char *model_url, uid_t allowed_uid,
    void (*log)(void *, const char *), void *log_arg, struct relay **ret,
    struct bx_error *err)
{
	struct relay_target t;
	struct relay *r;

	if (relay_parse_url(model_url, &t, err) == -1)
		return -1;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return bx_fail(err, "out of memory");
	r->r_target = t;
	r->r_uid = allowed_uid;
	r->r_log = log;
	r->r_log_arg = log_arg;
	r->r_listen = -1;
	atomic_init(&r->r_stopping, false);
	pthread_mutex_init(&r->r_lock, NULL);
	bx_clock_cond_init(&r->r_done);
	if ((r->r_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
		bx_fail(err, "model relay: eventfd: %s", strerror(errno));
		goto fail;
	}
	if ((r->r_path = strdup(sock_path)) == NULL) {
		bx_fail(err, "out of memory");
		goto fail;
	}
	/* Non-blocking: a peer gone between poll and accept blocks nothing. */
	if (bx_unix_listen(sock_path, RELAY_BACKLOG, BX_UNIX_NONBLOCK,
	    &r->r_listen, &r->r_made, err) == -1) {
		bx_error_prefix(err, "model relay");
		goto fail;
	}
	*ret = r;
	return 0;
fail:
	destroy(r);
	return -1;
}

const char *
relay_path(const struct relay *r)
{
	return r->r_path;
}

/*
 * Waits for a connect on fd to finish; -1 at the deadline, on stop, or
 * when the client hangs up meanwhile (nothing is read from it yet).
 */
static int
wait_connect(const struct relay *r, int fd, int client, int64_t deadline)
{
	struct pollfd pfd[3] = { { fd, POLLOUT, 0 }, { r->r_stop, POLLIN, 0 },
	    { client, 0, 0 } };
	int64_t left;
	int n;

	do {
		if ((left = deadline - bx_clock_mono_ms()) <= 0)
			return -1;
	} while ((n = poll(pfd, 3, (int)left)) == -1 && errno == EINTR);
	if (n <= 0 || pfd[0].revents == 0 || pfd[1].revents != 0 ||
	    pfd[2].revents != 0)
		return -1;
	return 0;
}

/* A connected socket to ai within deadline (monotonic ms), or -1. */
static int
dial_one(const struct relay *r, const struct addrinfo *ai, int client,
    int64_t deadline)
{
	socklen_t len = sizeof(int);
	int fd, soerr = -1, one = 1;

	fd = socket(ai->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (fd == -1)
		return -1;
	/* Interrupted, a non-blocking connect goes on all the same. */
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		soerr = 0;
	else if ((errno == EINPROGRESS || errno == EINTR) &&
	    wait_connect(r, fd, client, deadline) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
		soerr = -1;
	if (soerr != 0) {
		close(fd);
		return -1;
	}
	/* loopd's writes go as loopd made them, as libcurl's would. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Resolves the model's host now and connects to the first that answers. */
static int
dial(const struct relay *r, int client)
{
	struct addrinfo hints, *res, *ai;
	int64_t deadline;
	int fd = -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(r->r_target.rt_host, r->r_target.rt_port, &hints,
	    &res) != 0)
		return -1;
	deadline = bx_clock_mono_ms() + RELAY_CONNECT_TIMEOUT_MS;
	for (ai = res; ai != NULL && fd == -1; ai = ai->ai_next) {
		if (atomic_load(&r->r_stopping))
			break;
		fd = dial_one(r, ai, client, deadline);
	}
	freeaddrinfo(res);
	return fd;
}

/*
 * Moves what it can of one direction without waiting: a read when the
 * buffer is empty, then as much of the buffer as h_to takes, then the
 * end passed on once everything before it is. -1 when the connection
 * broke (a reset, a peer gone while bytes were owed to it).
 */
static int
pump(struct half *h)
{
	ssize_t n;

	if (h->h_start == h->h_end && !h->h_eof) {
		while ((n = recv(h->h_from, h->h_buf, sizeof(h->h_buf), 0)) ==
		    -1 && errno == EINTR)
			continue;
		if (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK)
			return -1;
		if (n == 0)
			h->h_eof = true;
		else if (n > 0) {
			h->h_start = 0;
			h->h_end = (size_t)n;
		}
	}
	while (h->h_start < h->h_end) {
		n = send(h->h_to, h->h_buf + h->h_start, h->h_end - h->h_start,
		    MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
		h->h_start += (size_t)n;
	}
	h->h_start = h->h_end = 0;
	if (h->h_eof && !h->h_shut) {
		if (shutdown(h->h_to, SHUT_WR) == -1)
			return -1;
		h->h_shut = true;
	}
	return 0;
}

/*
 * What to wait for on fd, which out reads and in writes. A socket whose
 * bytes wait for the other side to drain is left out: a hang-up it
 * reports could not be acted on yet, and poll would return at once.
 * With nothing asked of it, it stays in for its errors and hang-ups.
 */
static void
watch(struct pollfd *pfd, int fd, const struct half *out,
    const struct half *in)
{
	pfd->fd = fd;
	pfd->events = 0;
	pfd->revents = 0;
	if (!out->h_eof && out->h_start == out->h_end)
		pfd->events |= POLLIN;
	if (in->h_start < in->h_end)
		pfd->events |= POLLOUT;
	if (pfd->events == 0 && out->h_start < out->h_end)
		pfd->fd = -1;
}

/* Copies both ways until both have ended, either side broke, or stop. */
static void
copy(struct conn *c)
{
	struct pollfd pfd[3];
	int i, n;

	for (;;) {
		if (pump(&c->c_up) == -1 || pump(&c->c_down) == -1)
			return;
		if (c->c_up.h_shut && c->c_down.h_shut)
			return;
		watch(&pfd[0], c->c_client, &c->c_up, &c->c_down);
		watch(&pfd[1], c->c_server, &c->c_down, &c->c_up);
		pfd[2].fd = c->c_relay->r_stop;
		pfd[2].events = POLLIN;
		pfd[2].revents = 0;
		if ((n = poll(pfd, 3, -1)) == -1 && errno != EINTR)
			return;
		if (pfd[2].revents != 0)
			return;
		/* An error or hang-up on a socket nothing was asked of. */
		for (i = 0; i < 2; i++)
			if (pfd[i].fd != -1 && pfd[i].events == 0 &&
			    pfd[i].revents != 0)
				return;
	}
}

/* Ends a connection thread; the last one after relay_free() frees r. */
static void
conn_done(struct relay *r)
{
	bool last;

	pthread_mutex_lock(&r->r_lock);
	r->r_threads--;
	last = r->r_orphaned && r->r_threads == 0;
	pthread_cond_signal(&r->r_done);
	pthread_mutex_unlock(&r->r_lock);
	if (last)
		destroy(r);
}

static void *
conn_main(void *arg)
{
	struct conn *c = arg;
	struct relay *r = c->c_relay;

	if ((c->c_server = dial(r, c->c_client)) != -1) {
		c->c_up.h_from = c->c_down.h_to = c->c_client;
		c->c_up.h_to = c->c_down.h_from = c->c_server;
		copy(c);
		close(c->c_server);
	}
	close(c->c_client);
	free(c);
	conn_done(r);
	return NULL;
}

/* Starts fd's thread, or closes fd when there is no room for one. */
static void
start_conn(struct relay *r, int fd)
{
	pthread_attr_t attr;
	struct conn *c = NULL;
	pthread_t tid;
	bool room;
	int rc;

	pthread_mutex_lock(&r->r_lock);
	if ((room = r->r_threads < RELAY_MAX_CONNECTIONS))
		r->r_threads++;
	pthread_mutex_unlock(&r->r_lock);
	if (room && (c = calloc(1, sizeof(*c))) != NULL) {
		c->c_relay = r;
		c->c_client = fd;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		rc = pthread_create(&tid, &attr, conn_main, c);
		pthread_attr_destroy(&attr);
		if (rc == 0)
			return;
	}
	close(fd);
	free(c);
	if (room)
		conn_done(r);
}

/* Logs a refused uid the first time, for at most RELAY_MAX_LOGGED_UIDS. */
static void
log_refused(struct relay *r, uid_t uid)
{
	char line[128];
	size_t i;

	for (i = 0; i < r->r_nlogged; i++)
		if (r->r_logged[i] == uid)
			return;
	if (r->r_nlogged == RELAY_MAX_LOGGED_UIDS)
		return;
	r->r_logged[r->r_nlogged++] = uid;
	if (r->r_log == NULL)
		return;
	snprintf(line, sizeof(line), "model relay: refused a connection "
	    "from uid %lu", (unsigned long)uid);
	r->r_log(r->r_log_arg, line);
}

/* Checks the peer before anything of it is read. */
static void
admit(struct relay *r, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    len != sizeof(cred)) {
		close(fd);
		return;
	}
	if (cred.uid != r->r_uid) {
		log_refused(r, cred.uid);
		close(fd);
		return;
	}
	start_conn(r, fd);
}

static void *
accept_main(void *arg)
{
	struct relay *r = arg;
	struct pollfd pfd[2] = { { r->r_listen, POLLIN, 0 },
	    { r->r_stop, POLLIN, 0 } };
	int fd;

	for (;;) {
		if (poll(pfd, 2, -1) == -1 && errno != EINTR) {
			(void)poll(&pfd[1], 1, RELAY_RETRY_MS);
			continue;
		}
		if (pfd[1].revents != 0)
			return NULL;
		if (pfd[0].revents == 0)
			continue;
		fd = accept4(r->r_listen, NULL, NULL,
		    SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd != -1)
			admit(r, fd);
		else if (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)
			/* The peer stays queued: rest instead of spinning. */
			(void)poll(&pfd[1], 1, RELAY_RETRY_MS);
	}
}

int
relay_start(struct relay *r, struct bx_error *err)
{
	sigset_t all, old;
	int rc;

	if (r->r_started)
		return bx_fail(err, "model relay: already started");
	/*
	 * The relay's threads take no signals, so the program's handlers
	 * always run on its own threads; they inherit this mask.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->r_accept, NULL, accept_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return bx_fail(err, "model relay: cannot start its thread: %s",
		    strerror(rc));
	r->r_started = true;
	return 0;
}

void
relay_free(struct relay *r)
{
	const uint64_t one = 1;
	struct timespec ts;
	bool orphan;

	if (r == NULL)
		return;
	atomic_store(&r->r_stopping, true);
	/* Without the wake-up nothing would stop: nothing else to do. */
	while (write(r->r_stop, &one, sizeof(one)) == -1 && errno == EINTR)
		continue;
	if (r->r_started)
		pthread_join(r->r_accept, NULL);
	if (r->r_listen != -1)
		close(r->r_listen);
	/* Only the socket made: a successor's at the path is left alone. */
	bx_unix_remove(r->r_path, &r->r_made);
	bx_clock_after(CLOCK_MONOTONIC, RELAY_STOP_WAIT_MS, &ts);
	pthread_mutex_lock(&r->r_lock);
	while (r->r_threads > 0)
		if (pthread_cond_timedwait(&r->r_done, &r->r_lock, &ts) ==
		    ETIMEDOUT)
			break;
	orphan = r->r_orphaned = r->r_threads > 0;
	pthread_mutex_unlock(&r->r_lock);
	if (!orphan)
		destroy(r);
}
