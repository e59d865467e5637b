/*
 * relay.c: what the model relay (src/jailrun/relay.c) adds to a model
 * request. A local server answers a 600-byte request with 2,048 bytes
 * and closes, like llama-server answering a short request; each request
 * takes a fresh connection, as libcurl's do from inside loopd's jail.
 * Directly over TCP and through the relay, alternating, median and p99
 * of connect to the answer's last byte; then one answer of 256 MiB each
 * way (directly and through the relay), for the copy's throughput.
 *
 *	bench-relay [REQUESTS]	(default 2000 each way)
 */
#include <sys/socket.h>

#include <netinet/in.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jailrun/relay.h"
#include "timing.h"

#define DEFAULT_REQUESTS	2000
#define WARMUP			100
#define REQUEST_SIZE		600
#define ANSWER_SIZE		2048
#define BULK_SIZE		(256L * 1024 * 1024)

struct server {
	int		sv_fd;
	atomic_bool	sv_stop;
	atomic_long	sv_answer;	/* bytes to answer with */
};

static int
write_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Reads until the end; the bytes read, or -1. */
static long
read_to_end(int fd)
{
	static char buf[65536];
	long got = 0;
	ssize_t n;

	for (;;) {
		n = read(fd, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return n == 0 ? got : -1;
		got += n;
	}
}

static void *
server_main(void *arg)
{
	static char answer[65536], req[REQUEST_SIZE];
	struct server *sv = arg;
	struct pollfd pfd = { sv->sv_fd, POLLIN, 0 };
	long left;
	size_t got;
	ssize_t n;
	int fd;

	memset(answer, 'a', sizeof(answer));
	while (!atomic_load(&sv->sv_stop)) {
		if (poll(&pfd, 1, 100) != 1 ||
		    (fd = accept4(sv->sv_fd, NULL, NULL, SOCK_CLOEXEC)) == -1)
			continue;
		for (got = 0; got < sizeof(req); got += (size_t)n)
			if ((n = read(fd, req + got, sizeof(req) - got)) <= 0)
				break;
		for (left = atomic_load(&sv->sv_answer); got == sizeof(req) &&
		    left > 0; left -= (long)sizeof(answer))
			if (write_all(fd, answer, left < (long)sizeof(answer) ?
			    (size_t)left : sizeof(answer)) == -1)
				break;
		close(fd);
	}
	return NULL;
}

static int
dial_tcp(int port)
{
	struct sockaddr_in sin;
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* One request: connect, send, read the whole answer; its ns, or -1. */
static int64_t
request(int port, const char *path, long answer)
{
	static char req[REQUEST_SIZE];
	int64_t t0 = bench_now_ns();
	long got;
	int fd;

	fd = path == NULL ? dial_tcp(port) : bench_dial(path);
	if (fd == -1)
		return -1;
	if (write_all(fd, req, sizeof(req)) == -1)
		got = -1;
	else
		got = read_to_end(fd);
	close(fd);
	if (got != answer)
		return -1;
	return bench_now_ns() - t0;
}

static int
listener(int *ret_port)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 128) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		close(fd);
		return -1;
	}
	*ret_port = ntohs(sin.sin_port);
	return fd;
}

static int
over_ms(const int64_t *v, int n)
{
	int i, over = 0;

	for (i = 0; i < n; i++)
		over += v[i] > 1000000;
	return over;
}

static int
run(int port, const char *path, int n)
{
	int64_t *direct, *relayed, t;
	double dm, dp, rm, rp;
	int i, rc = -1;

	direct = calloc((size_t)n, sizeof(*direct));
	relayed = calloc((size_t)n, sizeof(*relayed));
	if (direct == NULL || relayed == NULL)
		goto out;
	for (i = 0; i < WARMUP; i++)
		if (request(port, NULL, ANSWER_SIZE) == -1 ||
		    request(port, path, ANSWER_SIZE) == -1)
			goto out;
	/* Alternating, so that both see the same machine. */
	for (i = 0; i < n; i++) {
		if ((t = request(port, NULL, ANSWER_SIZE)) == -1)
			goto out;
		direct[i] = t;
		if ((t = request(port, path, ANSWER_SIZE)) == -1)
			goto out;
		relayed[i] = t;
	}
	bench_percentiles(direct, (size_t)n, &dm, &dp);
	bench_percentiles(relayed, (size_t)n, &rm, &rp);
	printf("relay: %d requests each way, %d-byte request, %d-byte answer, "
	    "a fresh connection each\n", n, REQUEST_SIZE, ANSWER_SIZE);
	/* bench_percentiles sorted them: the last is the slowest. */
	printf("relay: direct TCP:     median %7.1f us, p99 %7.1f us, max "
	    "%7.1f us, %d over 1 ms\n", dm, dp, direct[n - 1] / 1e3,
	    over_ms(direct, n));
	printf("relay: through relay:  median %7.1f us, p99 %7.1f us, max "
	    "%7.1f us, %d over 1 ms\n", rm, rp, relayed[n - 1] / 1e3,
	    over_ms(relayed, n));
	printf("relay: added:          median %7.1f us, p99s differ by %.1f us "
	    "(target: well under 1000 us)\n", rm - dm, rp - dp);
	rc = 0;
out:
	free(direct);
	free(relayed);
	return rc;
}

static int
bulk(int port, const char *path, struct server *sv)
{
	int64_t d, r;

	atomic_store(&sv->sv_answer, BULK_SIZE);
	if ((d = request(port, NULL, BULK_SIZE)) == -1 ||
	    (r = request(port, path, BULK_SIZE)) == -1)
		return -1;
	printf("relay: %ld MiB answer: direct %.0f MB/s, through relay "
	    "%.0f MB/s\n", BULK_SIZE >> 20, BULK_SIZE / (d / 1e3),
	    BULK_SIZE / (r / 1e3));
	return 0;
}

int
main(int argc, char **argv)
{
	char dir[] = "/tmp/bx-bench-relay-XXXXXX", path[128], url[64];
	struct server sv = { .sv_fd = -1 };
	struct relay *relay = NULL;
	struct bx_error err;
	pthread_t tid;
	int n = DEFAULT_REQUESTS, port, rc = 1;

	if (argc > 1 && (n = atoi(argv[1])) < 1) {
		fprintf(stderr, "usage: bench-relay [REQUESTS]\n");
		return 2;
	}
	atomic_init(&sv.sv_stop, false);
	atomic_init(&sv.sv_answer, ANSWER_SIZE);
	if (mkdtemp(dir) == NULL || (sv.sv_fd = listener(&port)) == -1) {
		fprintf(stderr, "bench-relay: setup: %s\n", strerror(errno));
		return 1;
	}
	snprintf(path, sizeof(path), "%s/relay.sock", dir);
	snprintf(url, sizeof(url), "http://127.0.0.1:%d", port);
	if (relay_new("model", path, url, getuid(), NULL, NULL, &relay,
	    &err) == -1 || relay_start(relay, &err) == -1) {
		fprintf(stderr, "bench-relay: %s\n", err.msg);
		goto out;
	}
	if (pthread_create(&tid, NULL, server_main, &sv) != 0)
		goto out;
	if (run(port, path, n) == -1 || bulk(port, path, &sv) == -1)
		fprintf(stderr, "bench-relay: a request failed\n");
	else
		rc = 0;
	atomic_store(&sv.sv_stop, true);
	pthread_join(tid, NULL);
out:
	relay_free(relay);
	close(sv.sv_fd);
	bench_rmtree(dir);
	return rc;
}
