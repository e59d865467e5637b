/*
 * test-relay.c: a relay, here loopd's to its model. A TCP server the
 * test runs on 127.0.0.1 (and once on [::1]) stands for llama-server; clients connect to the
 * relay's Unix socket. Bytes both ways unchanged (4 MiB each way, and at
 * once), half-close, streaming without holding back, a server's reset
 * passed on as an end, a peer of another uid closed unread, an
 * unreachable model, the connection limit and a prompt stop (parsing
 * [model] url is test-relay-url.c's). Nothing sleeps: every wait is a
 * poll with a generous timeout; no descriptor is left open.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <netinet/in.h>

#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "jailrun/relay.h"
#include "proto/clock.h"
#include "proto/unixsock.h"
#include "testutil.h"

/* Every wait in the tests; far longer than anything should take. */
#define WAIT_MS		10000
#define BIG		(4 * 1024 * 1024)
#define MAX_LINES	8

struct rig {
	int		 nfds;		/* open before the relay */
	char		*dir;
	char		 path[PATH_MAX];
	int		 lfd;		/* the fake model server's */
	int		 port;
	struct relay	*relay;
	pthread_mutex_t	 lock;
	char		 lines[MAX_LINES][128];
	int		 nlines;
};

/* The fake model server's side of one connection. */
struct srv {
	int		 s_lfd;
	int		 (*s_fn)(int fd, void *arg);
	void		*s_arg;
	int		 s_rc;		/* s_fn's; -1: none came */
	pthread_t	 s_thread;
};

static unsigned char
pattern(size_t i, unsigned seed)
{
	return (unsigned char)((i * 31 + seed + (i >> 12)) & 0xff);
}

/* A TCP socket bound to an ephemeral port of loopback, IPv4 or IPv6. */
static int
tcp_listener(bool v6, int *ret_port)
{
	struct sockaddr_in6 sin6;
	struct sockaddr_in sin;
	socklen_t len;
	int fd;

	fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	memset(&sin6, 0, sizeof(sin6));
	sin6.sin6_family = AF_INET6;
	sin6.sin6_addr = in6addr_loopback;
	len = v6 ? sizeof(sin6) : sizeof(sin);
	if (bind(fd, v6 ? (struct sockaddr *)&sin6 : (struct sockaddr *)&sin,
	    len) == -1 || getsockname(fd, v6 ? (struct sockaddr *)&sin6 :
	    (struct sockaddr *)&sin, &len) == -1) {
		close(fd);
		return -1;
	}
	*ret_port = ntohs(v6 ? sin6.sin6_port : sin.sin_port);
	return fd;
}

static void
log_line(void *arg, const char *line)
{
	struct rig *rg = arg;

	pthread_mutex_lock(&rg->lock);
	if (rg->nlines < MAX_LINES)
		snprintf(rg->lines[rg->nlines], sizeof(rg->lines[0]), "%s",
		    line);
	rg->nlines++;
	pthread_mutex_unlock(&rg->lock);
}

static int
count_fds(void)
{
	struct dirent *de;
	DIR *d;
	int n = 0;

	assert_non_null(d = opendir("/proc/self/fd"));
	while ((de = readdir(d)) != NULL)
		n += de->d_name[0] != '.';
	closedir(d);
	return n;
}

/*
 * The relay to a server on 127.0.0.1 or [::1] (v6), listening or, with
 * listening false, a port that refuses connections. -1 when there is no
 * IPv6 loopback here.
 */
static int
rig_start_at(struct rig *rg, bool v6, bool listening)
{
	struct bx_error err;
	char url[64];

	memset(rg, 0, sizeof(*rg));
	rg->nfds = count_fds();
	pthread_mutex_init(&rg->lock, NULL);
	rg->dir = tu_tmpdir();
	snprintf(rg->path, sizeof(rg->path), "%s/relay.sock", rg->dir);
	if ((rg->lfd = tcp_listener(v6, &rg->port)) == -1) {
		assert_true(v6);
		tu_rmtree(rg->dir);
		pthread_mutex_destroy(&rg->lock);
		return -1;
	}
	if (listening)
		assert_int_equal(listen(rg->lfd, 64), 0);
	snprintf(url, sizeof(url), "http://%s:%d", v6 ? "[::1]" : "127.0.0.1",
	    rg->port);
	if (relay_new("model", rg->path, url, getuid(), log_line, rg, &rg->relay,
	    &err) == -1 || relay_start(rg->relay, &err) == -1)
		fail_msg("%s", err.msg);
	return 0;
}

static void
rig_start(struct rig *rg, bool listening)
{
	(void)rig_start_at(rg, false, listening);
}

static void
rig_stop(struct rig *rg)
{
	relay_free(rg->relay);
	close(rg->lfd);
	tu_rmtree(rg->dir);
	pthread_mutex_destroy(&rg->lock);
	/* Every descriptor the relay had, its connections' too, is closed. */
	assert_int_equal(count_fds(), rg->nfds);
}

static int
dial(const struct rig *rg)
{
	struct bx_error err;
	int fd;

	if (bx_unix_connect(rg->path, 0, &fd, &err) == -1)
		fail_msg("%s", err.msg);
	return fd;
}

static int
wait_for(int fd, short events, int ms)
{
	struct pollfd pfd = { fd, events, 0 };
	int n;

	while ((n = poll(&pfd, 1, ms)) == -1 && errno == EINTR)
		continue;
	return n == 1 ? 0 : -1;
}

static int
write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
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

/* Reads up to len bytes until EOF; the count, or -1 on error or timeout. */
static ssize_t
read_upto(int fd, void *buf, size_t len, bool until_eof)
{
	size_t got = 0;
	ssize_t n;
	char extra;

	while (got < len || until_eof) {
		if (wait_for(fd, POLLIN, WAIT_MS) == -1)
			return -1;
		/* Once len bytes are in, a byte more is an error. */
		n = got < len ? read(fd, (char *)buf + got, len - got) :
		    read(fd, &extra, 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		if (got == len)
			return -1;	/* more than expected */
		got += (size_t)n;
	}
	return (ssize_t)got;
}

static void *
srv_main(void *arg)
{
	struct srv *s = arg;
	int fd;

	s->s_rc = -1;
	if (wait_for(s->s_lfd, POLLIN, WAIT_MS) == -1 ||
	    (fd = accept4(s->s_lfd, NULL, NULL, SOCK_CLOEXEC)) == -1)
		return NULL;
	s->s_rc = s->s_fn(fd, s->s_arg);
	close(fd);
	return NULL;
}

static void
srv_start(struct srv *s, const struct rig *rg, int (*fn)(int, void *),
    void *arg)
{
	s->s_lfd = rg->lfd;
	s->s_fn = fn;
	s->s_arg = arg;
	assert_int_equal(pthread_create(&s->s_thread, NULL, srv_main, s), 0);
}

static int
srv_wait(struct srv *s)
{
	pthread_join(s->s_thread, NULL);
	return s->s_rc;
}

/*
 * Whether fd ends with no byte read. A relay that closes a connection
 * it has not read from makes the kernel report a reset, not an end.
 */
static bool
closed_unread(int fd)
{
	ssize_t n;
	char c;

	if (wait_for(fd, POLLIN, WAIT_MS) == -1)
		return false;
	while ((n = read(fd, &c, 1)) == -1 && errno == EINTR)
		continue;
	return n == 0 || (n == -1 && errno == ECONNRESET);
}

/* Nothing else is waiting at the fake server's door. */
static void
assert_no_connection(const struct rig *rg)
{
	assert_int_equal(wait_for(rg->lfd, POLLIN, 0), -1);
}

static const char request[] = "POST /v1/chat/completions HTTP/1.1\r\n"
    "Host: 127.0.0.1\r\nContent-Length: 2\r\n\r\n{}";
static const char answer[] = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
    "hello";

static int
serve_request(int fd, void *arg)
{
	char buf[sizeof(request)];

	(void)arg;
	if (read_upto(fd, buf, sizeof(request) - 1, false) !=
	    (ssize_t)sizeof(request) - 1 ||
	    memcmp(buf, request, sizeof(request) - 1) != 0)
		return 1;
	if (write_all(fd, answer, sizeof(answer) - 1) == -1)
		return 2;
	/* Then the client's end, passed on. */
	return read_upto(fd, buf, sizeof(buf), true) == 0 ? 0 : 3;
}

static void
round_trip(struct rig *rg)
{
	char buf[sizeof(answer)];
	struct srv s;
	int fd;

	srv_start(&s, rg, serve_request, NULL);
	fd = dial(rg);
	assert_int_equal(write_all(fd, request, sizeof(request) - 1), 0);
	assert_int_equal(read_upto(fd, buf, sizeof(answer) - 1, false),
	    sizeof(answer) - 1);
	assert_memory_equal(buf, answer, sizeof(answer) - 1);
	close(fd);
	assert_int_equal(srv_wait(&s), 0);
}

static void
test_round_trip(void **state)
{
	struct rig rg;
	struct stat st;

	(void)state;
	rig_start(&rg, true);
	assert_int_equal(stat(rg.path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_string_equal(relay_path(rg.relay), rg.path);
	round_trip(&rg);
	round_trip(&rg);
	assert_no_connection(&rg);
	rig_stop(&rg);
	/* relay_free removed the socket file. */
	assert_int_equal(lstat(rg.path, &st), -1);
}

static void
test_ipv6(void **state)
{
	struct rig rg;

	(void)state;
	if (rig_start_at(&rg, true, true) == -1)
		skip();
	round_trip(&rg);
	rig_stop(&rg);
}

/* Reads the whole request to its end, checks it, answers BIG bytes. */
static int
serve_big(int fd, void *arg)
{
	unsigned char *buf;
	ssize_t n;
	size_t i;
	int rc = 0;

	(void)arg;
	if ((buf = malloc(BIG)) == NULL)
		return 1;
	n = read_upto(fd, buf, BIG, true);
	if (n != BIG)
		rc = 2;
	for (i = 0; rc == 0 && i < BIG; i++)
		if (buf[i] != pattern(i, 1))
			rc = 3;
	for (i = 0; i < BIG; i++)
		buf[i] = pattern(i, 2);
	if (rc == 0 && write_all(fd, buf, BIG) == -1)
		rc = 4;
	free(buf);
	return rc;
}

static void
test_big_half_close(void **state)
{
	unsigned char *buf;
	struct rig rg;
	struct srv s;
	size_t i;
	int fd;

	(void)state;
	rig_start(&rg, true);
	srv_start(&s, &rg, serve_big, NULL);
	buf = malloc(BIG);
	assert_non_null(buf);
	for (i = 0; i < BIG; i++)
		buf[i] = pattern(i, 1);
	fd = dial(&rg);
	assert_int_equal(write_all(fd, buf, BIG), 0);
	/* The server answers only once it has seen the request's end. */
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	memset(buf, 0, BIG);
	assert_int_equal(read_upto(fd, buf, BIG, true), BIG);
	for (i = 0; i < BIG; i++)
		if (buf[i] != pattern(i, 2))
			fail_msg("byte %zu of the answer differs", i);
	close(fd);
	free(buf);
	assert_int_equal(srv_wait(&s), 0);
	rig_stop(&rg);
}

/* Sends back what it reads as it reads it; ends after the client's end. */
static int
serve_echo(int fd, void *arg)
{
	char buf[8192];
	ssize_t n;

	(void)arg;
	for (;;) {
		if (wait_for(fd, POLLIN, WAIT_MS) == -1)
			return 1;
		if ((n = read(fd, buf, sizeof(buf))) == -1 && errno == EINTR)
			continue;
		if (n < 0)
			return 2;
		if (n == 0)
			return 0;
		if (write_all(fd, buf, (size_t)n) == -1)
			return 3;
	}
}

static void
test_echo_both_ways(void **state)
{
	unsigned char *out, *in;
	size_t sent = 0, got = 0, i;
	struct pollfd pfd;
	struct rig rg;
	struct srv s;
	ssize_t n;
	int fd;

	(void)state;
	rig_start(&rg, true);
	srv_start(&s, &rg, serve_echo, NULL);
	out = malloc(BIG);
	in = malloc(BIG);
	assert_true(out != NULL && in != NULL);
	for (i = 0; i < BIG; i++)
		out[i] = pattern(i, 3);
	fd = dial(&rg);
	while (got < BIG) {
		pfd.fd = fd;
		pfd.events = POLLIN | (sent < BIG ? POLLOUT : 0);
		assert_int_equal(poll(&pfd, 1, WAIT_MS), 1);
		if (pfd.revents & POLLOUT) {
			n = send(fd, out + sent, BIG - sent > 65536 ? 65536 :
			    BIG - sent, MSG_NOSIGNAL | MSG_DONTWAIT);
			assert_true(n > 0 || errno == EAGAIN);
			if (n > 0 && (sent += (size_t)n) == BIG)
				assert_int_equal(shutdown(fd, SHUT_WR), 0);
		}
		if (pfd.revents & (POLLIN | POLLHUP)) {
			n = recv(fd, in + got, BIG - got, MSG_DONTWAIT);
			assert_true(n > 0 || (n == -1 && errno == EAGAIN));
			if (n > 0)
				got += (size_t)n;
		}
	}
	assert_memory_equal(in, out, BIG);
	/* The server ends after the client's end; the relay passes it on. */
	assert_int_equal(read_upto(fd, in, 1, true), 0);
	close(fd);
	free(out);
	free(in);
	assert_int_equal(srv_wait(&s), 0);
	rig_stop(&rg);
}

#define CHUNKS	5

/* Sends a chunk, then waits for the client to ask for the next one. */
static int
serve_stream(int fd, void *arg)
{
	char chunk[64], ask;
	int i, len;

	(void)arg;
	for (i = 0; i < CHUNKS; i++) {
		len = snprintf(chunk, sizeof(chunk), "data: {\"n\":%d}\n\n", i);
		if (write_all(fd, chunk, (size_t)len) == -1)
			return 1;
		if (read_upto(fd, &ask, 1, false) != 1 || ask != 'n')
			return 2;
	}
	return 0;
}

static void
test_streaming(void **state)
{
	char chunk[64], got[64];
	struct rig rg;
	struct srv s;
	int fd, i, len;

	(void)state;
	rig_start(&rg, true);
	srv_start(&s, &rg, serve_stream, NULL);
	fd = dial(&rg);
	for (i = 0; i < CHUNKS; i++) {
		len = snprintf(chunk, sizeof(chunk), "data: {\"n\":%d}\n\n", i);
		/* Arrives before the server sends anything more. */
		assert_int_equal(read_upto(fd, got, (size_t)len, false), len);
		assert_memory_equal(got, chunk, (size_t)len);
		assert_int_equal(write_all(fd, "n", 1), 0);
	}
	assert_int_equal(read_upto(fd, got, sizeof(got), true), 0);
	close(fd);
	assert_int_equal(srv_wait(&s), 0);
	rig_stop(&rg);
}

/* Reads the request, then resets the connection instead of answering. */
static int
serve_reset(int fd, void *arg)
{
	struct linger lg = { 1, 0 };
	char buf[sizeof(request)];

	(void)arg;
	if (read_upto(fd, buf, sizeof(request) - 1, false) !=
	    (ssize_t)sizeof(request) - 1)
		return 1;
	return setsockopt(fd, SOL_SOCKET, SO_LINGER, &lg, sizeof(lg));
}

static void
test_server_reset(void **state)
{
	struct rig rg;
	struct srv s;
	char c;
	int fd;

	(void)state;
	rig_start(&rg, true);
	srv_start(&s, &rg, serve_reset, NULL);
	fd = dial(&rg);
	assert_int_equal(write_all(fd, request, sizeof(request) - 1), 0);
	assert_int_equal(srv_wait(&s), 0);
	/* The reset ends the client's connection too. */
	assert_int_equal(read_upto(fd, &c, 1, true), 0);
	close(fd);
	rig_stop(&rg);
}

/*
 * A child as uid 65534 connects, sends a request and must see the end
 * with no byte back. Only async-signal-safe calls after fork.
 */
static void
connect_as_nobody(const char *path)
{
	struct sockaddr_un sun;
	int fd, status;
	char c;
	ssize_t n;
	pid_t pid;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (setresgid(65534, 65534, 65534) == -1 ||
		    setresuid(65534, 65534, 65534) == -1)
			_exit(10);
		fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (fd == -1 || connect(fd, (struct sockaddr *)&sun,
		    sizeof(sun)) == -1)
			_exit(11);
		(void)send(fd, request, sizeof(request) - 1, MSG_NOSIGNAL);
		if (wait_for(fd, POLLIN, WAIT_MS) == -1)
			_exit(12);
		n = read(fd, &c, 1);
		_exit(n == 0 || (n == -1 && errno == ECONNRESET) ? 0 : 13);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

static void
test_wrong_uid(void **state)
{
	struct rig rg;

	(void)state;
	if (getuid() != 0)
		skip();
	rig_start(&rg, true);
	/* Only the relay's own check stands between them. */
	assert_int_equal(chmod(rg.dir, 0755), 0);
	assert_int_equal(chmod(rg.path, 0777), 0);
	connect_as_nobody(rg.path);
	connect_as_nobody(rg.path);
	/* The line is logged before the close the child saw. */
	pthread_mutex_lock(&rg.lock);
	assert_int_equal(rg.nlines, 1);
	assert_string_equal(rg.lines[0],
	    "model relay: refused a connection from uid 65534");
	pthread_mutex_unlock(&rg.lock);
	/* No connection was made for them; the owner's still works. */
	assert_no_connection(&rg);
	round_trip(&rg);
	assert_no_connection(&rg);
	rig_stop(&rg);
}

static void
test_unreachable(void **state)
{
	struct rig rg;
	int64_t t0;
	int fd;

	(void)state;
	/* Bound but not listening: the port refuses connections. */
	rig_start(&rg, false);
	fd = dial(&rg);
	t0 = bx_clock_mono_ms();
	/* The relay may have closed already: then this fails. */
	(void)write_all(fd, request, sizeof(request) - 1);
	assert_true(closed_unread(fd));
	assert_true(bx_clock_mono_ms() - t0 < RELAY_CONNECT_TIMEOUT_MS);
	close(fd);
	rig_stop(&rg);
}

/* Holds its connection until the client's end; tells when it has one. */
static int
serve_hold(int fd, void *arg)
{
	int *ready = arg;
	char c;

	if (read_upto(fd, &c, 1, false) != 1)
		return 1;
	/* The byte is here, so the relay is copying. */
	if (write(*ready, "r", 1) != 1)
		return 2;
	return read_upto(fd, &c, 1, true) == 0 ? 0 : 3;
}

static void
test_free_with_connection(void **state)
{
	struct rig rg;
	struct srv s;
	int64_t t0;
	int fd, ready[2];
	char c;

	(void)state;
	rig_start(&rg, true);
	assert_int_equal(pipe2(ready, O_CLOEXEC), 0);
	srv_start(&s, &rg, serve_hold, &ready[1]);
	fd = dial(&rg);
	assert_int_equal(write_all(fd, "x", 1), 0);
	assert_int_equal(read_upto(ready[0], &c, 1, false), 1);
	t0 = bx_clock_mono_ms();
	relay_free(rg.relay);
	rg.relay = NULL;
	assert_true(bx_clock_mono_ms() - t0 < RELAY_STOP_WAIT_MS / 2);
	/* Both ends see the connection closed. */
	assert_int_equal(read_upto(fd, &c, 1, true), 0);
	assert_int_equal(srv_wait(&s), 0);
	close(fd);
	close(ready[0]);
	close(ready[1]);
	rig_stop(&rg);
}

static void
test_connection_limit(void **state)
{
	int fds[RELAY_MAX_CONNECTIONS], held[RELAY_MAX_CONNECTIONS];
	struct rig rg;
	int i, extra;
	char c;

	(void)state;
	rig_start(&rg, true);
	for (i = 0; i < RELAY_MAX_CONNECTIONS; i++) {
		fds[i] = dial(&rg);
		assert_int_equal(wait_for(rg.lfd, POLLIN, WAIT_MS), 0);
		held[i] = accept4(rg.lfd, NULL, NULL, SOCK_CLOEXEC);
		assert_true(held[i] != -1);
	}
	/* One more is closed at once, and never reaches the server. */
	extra = dial(&rg);
	assert_true(closed_unread(extra));
	close(extra);
	assert_no_connection(&rg);
	/* The ones held still copy. */
	assert_int_equal(write_all(fds[0], "y", 1), 0);
	assert_int_equal(read_upto(held[0], &c, 1, false), 1);
	assert_int_equal(c, 'y');
	for (i = 0; i < RELAY_MAX_CONNECTIONS; i++) {
		close(fds[i]);
		close(held[i]);
	}
	rig_stop(&rg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_big_half_close),
		cmocka_unit_test(test_echo_both_ways),
		cmocka_unit_test(test_streaming),
		cmocka_unit_test(test_server_reset),
		cmocka_unit_test(test_wrong_uid),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_free_with_connection),
		cmocka_unit_test(test_connection_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
