/*
 * relay_copy.c: one connection of a relay (relay_impl.h): resolving the
 * URL's host, connecting within the deadline, and copying bytes both
 * ways with a fixed buffer per direction. Nothing here
 * looks at the bytes it moves. Both sockets are non-blocking; one poll
 * waits for whichever side can move next, and for stop_fd.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "proto/clock.h"
#include "jailrun/relay_impl.h"

static bool
stopped(int stop_fd)
{
	struct pollfd pfd = { stop_fd, POLLIN, 0 };

	return poll(&pfd, 1, 0) == 1;
}

/*
 * Waits for a connect on fd to finish; -1 at the deadline, on stop, or
 * when the client hangs up meanwhile (nothing is read from it yet).
 */
static int
wait_connect(int fd, int client, int stop_fd, int64_t deadline)
{
	struct pollfd pfd[3] = { { fd, POLLOUT, 0 }, { stop_fd, POLLIN, 0 },
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
dial_one(const struct addrinfo *ai, int client, int stop_fd,
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
	    wait_connect(fd, client, stop_fd, deadline) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1)
		soerr = -1;
	if (soerr != 0) {
		close(fd);
		return -1;
	}
	/*
	 * Each of the jailed program's writes goes on at once, as from
	 * libcurl's own sockets: Nagle would hold one back for the last
	 * one's ACK.
	 */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/* Resolves the URL's host now and connects to the first that answers. */
static int
dial(const struct relay_target *t, int client, int stop_fd)
{
	struct addrinfo hints, *res, *ai;
	int64_t deadline;
	int fd = -1;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(t->rt_host, t->rt_port, &hints, &res) != 0)
		return -1;
	deadline = bx_clock_mono_ms() + RELAY_CONNECT_TIMEOUT_MS;
	for (ai = res; ai != NULL && fd == -1; ai = ai->ai_next) {
		/* getaddrinfo cannot be woken: look again after it. */
		if (stopped(stop_fd))
			break;
		fd = dial_one(ai, client, stop_fd, deadline);
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
pump(struct relay_half *h)
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
watch(struct pollfd *pfd, int fd, const struct relay_half *out,
    const struct relay_half *in)
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
copy(struct relay_pipe *p, int client, int server, int stop_fd)
{
	struct pollfd pfd[3];
	int i;

	for (;;) {
		if (pump(&p->p_up) == -1 || pump(&p->p_down) == -1)
			return;
		if (p->p_up.h_shut && p->p_down.h_shut)
			return;
		watch(&pfd[0], client, &p->p_up, &p->p_down);
		watch(&pfd[1], server, &p->p_down, &p->p_up);
		pfd[2].fd = stop_fd;
		pfd[2].events = POLLIN;
		pfd[2].revents = 0;
		if (poll(pfd, 3, -1) == -1 && errno != EINTR)
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

static void
half_init(struct relay_half *h, int from, int to)
{
	h->h_from = from;
	h->h_to = to;
	h->h_start = h->h_end = 0;
	h->h_eof = h->h_shut = false;
}

void
relay_pipe_run(struct relay_pipe *p, const struct relay_target *t,
    int client, int stop_fd)
{
	int server;

	if ((server = dial(t, client, stop_fd)) == -1)
		return;
	half_init(&p->p_up, client, server);
	half_init(&p->p_down, server, client);
	copy(p, client, server, stop_fd);
	close(server);
}
