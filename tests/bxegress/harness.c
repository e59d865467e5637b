/*
 * harness.c: bxegress started as brokerd starts it, a raw SOCKS5 client
 * and the report read line by line (harness.h).
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		continue;
}

const char *
h_bxegress(void)
{
	static char path[H_PATH_MAX];
	const char *root = getenv("BX_BUILD_ROOT");

	if (root == NULL)
		fail_msg("BX_BUILD_ROOT is not set (meson test sets it)");
	snprintf(path, sizeof(path), "%s/src/bxegress/bxegress", root);
	return path;
}

/* argv: bxegress, the two descriptors, then args. */
static void
build_argv(const char **argv, const char *const *args, bool fds)
{
	size_t n = 0, i;

	argv[n++] = h_bxegress();
	if (fds) {
		argv[n++] = "--listen-fd";
		argv[n++] = "100";
		argv[n++] = "--report-fd";
		argv[n++] = "101";
	}
	for (i = 0; args[i] != NULL; i++) {
		assert_true(n < H_ARGS_MAX - 1);
		argv[n++] = args[i];
	}
	argv[n] = NULL;
}

/* In the child: listen_fd and report_fd onto their numbers, then exec. */
static void __attribute__((noreturn))
exec_child(const char **argv, int listen_fd, int report_fd, int err_fd)
{
	int null = open("/dev/null", O_RDWR);

	if (null == -1 || dup2(null, 0) == -1 || dup2(null, 1) == -1 ||
	    dup2(err_fd, 2) == -1)
		_exit(127);
	if (listen_fd != -1 && dup2(listen_fd, H_LISTEN_FD) == -1)
		_exit(127);
	if (report_fd != -1 && dup2(report_fd, H_REPORT_FD) == -1)
		_exit(127);
	execv(argv[0], (char *const *)argv);
	_exit(127);
}

void
proxy_start(struct proxy *p, const char *const *args)
{
	const char *argv[H_ARGS_MAX];
	struct sockaddr_un sun;
	int report, err;

	memset(p, 0, sizeof(*p));
	snprintf(p->p_dir, sizeof(p->p_dir), "/tmp/bxegress-test-XXXXXX");
	assert_non_null(mkdtemp(p->p_dir));
	snprintf(p->p_sock, sizeof(p->p_sock), "%s/proxy.sock", p->p_dir);
	snprintf(p->p_report, sizeof(p->p_report), "%s/report", p->p_dir);
	snprintf(p->p_stderr, sizeof(p->p_stderr), "%s/stderr", p->p_dir);
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", p->p_sock);
	p->p_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(p->p_listen != -1);
	assert_int_equal(bind(p->p_listen, (struct sockaddr *)&sun,
	    sizeof(sun)), 0);
	assert_int_equal(listen(p->p_listen, 128), 0);
	report = open(p->p_report, O_WRONLY | O_CREAT | O_EXCL | O_APPEND |
	    O_CLOEXEC, 0600);
	err = open(p->p_stderr, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
	    0600);
	assert_true(report != -1 && err != -1);
	build_argv(argv, args, true);
	p->p_pid = fork();
	assert_true(p->p_pid != -1);
	if (p->p_pid == 0)
		exec_child(argv, p->p_listen, report, err);
	close(report);
	close(err);
}

void
proxy_start_default(struct proxy *p)
{
	static const char *const args[] = {
		"--connect-timeout-ms", "2000", "--idle-timeout-ms", "2000",
		"--max-bytes", "1048576", "--", "good.test", "*.good.test",
		NULL,
	};

	proxy_start(p, args);
}

/* Waits for pid within ms; its wait status, or -1 when it is still on. */
static int
wait_for(pid_t pid, int ms)
{
	int64_t end = now_ms() + ms;
	int st;

	for (;;) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return st;
		if (now_ms() > end)
			return -1;
		sleep_ms(5);
	}
}

int
proxy_stop(struct proxy *p)
{
	int st;

	assert_int_equal(kill(p->p_pid, SIGTERM), 0);
	if ((st = wait_for(p->p_pid, H_WAIT_MS)) == -1) {
		kill(p->p_pid, SIGKILL);
		(void)waitpid(p->p_pid, NULL, 0);
		fail_msg("bxegress did not end on SIGTERM");
	}
	p->p_pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

void
proxy_stop_clean(struct proxy *p)
{
	char err[4096];
	ssize_t n;
	int fd;

	assert_int_equal(proxy_stop(p), 0);
	report_expect_none(p, 0);
	assert_true((fd = open(p->p_stderr, O_RDONLY | O_CLOEXEC)) != -1);
	n = read(fd, err, sizeof(err) - 1);
	close(fd);
	assert_true(n >= 0);
	err[n] = '\0';
	if (n > 0)
		fail_msg("bxegress wrote on stderr: %s", err);
	proxy_free(p);
}

void
proxy_free(struct proxy *p)
{
	if (p->p_pid > 0) {
		kill(p->p_pid, SIGKILL);
		(void)waitpid(p->p_pid, NULL, 0);
	}
	if (p->p_listen > 0)
		close(p->p_listen);
	unlink(p->p_sock);
	unlink(p->p_report);
	unlink(p->p_stderr);
	rmdir(p->p_dir);
}

int
h_run_status(const char *const *args, int listen_fd, int report_fd,
    char *err, size_t errsize)
{
	const char *argv[H_ARGS_MAX];
	size_t got = 0;
	ssize_t n;
	int pipefd[2], st;
	pid_t pid;

	build_argv(argv, args, false);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0)
		exec_child(argv, listen_fd, report_fd, pipefd[1]);
	close(pipefd[1]);
	while (got + 1 < errsize &&
	    (n = read(pipefd[0], err + got, errsize - 1 - got)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		got += (size_t)n;
	}
	err[got] = '\0';
	close(pipefd[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int
client_connect(const struct proxy *p)
{
	struct sockaddr_un sun;
	int fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", p->p_sock);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(fd != -1);
	assert_int_equal(connect(fd, (struct sockaddr *)&sun, sizeof(sun)),
	    0);
	return fd;
}

/* A proxy that refused early may be gone before the last byte: fine. */
void
client_send(int fd, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	ssize_t n;

	while (len > 0) {
		n = send(fd, b, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EPIPE || errno == ECONNRESET))
			return;
		assert_true(n > 0);
		b += n;
		len -= (size_t)n;
	}
}

void
client_send_slowly(int fd, const void *buf, size_t len)
{
	const unsigned char *b = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		client_send(fd, b + i, 1);
		sleep_ms(2);
	}
}

void
client_read_exact(int fd, void *buf, size_t len)
{
	unsigned char *b = buf;
	struct pollfd pfd = { fd, POLLIN, 0 };
	int64_t end = now_ms() + H_WAIT_MS;
	ssize_t n;

	while (len > 0) {
		assert_true(now_ms() < end);
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		n = recv(fd, b, len, 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			fail_msg("the proxy ended with %zu bytes still to come",
			    len);
		b += n;
		len -= (size_t)n;
	}
}

size_t
client_read_all(int fd, void *buf, size_t size)
{
	unsigned char *b = buf, scratch[4096];
	struct pollfd pfd = { fd, POLLIN, 0 };
	int64_t end = now_ms() + H_WAIT_MS;
	size_t got = 0;
	ssize_t n;

	for (;;) {
		if (now_ms() > end)
			fail_msg("the proxy did not close within %d ms",
			    H_WAIT_MS);
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (got < size)
			n = recv(fd, b + got, size - got, 0);
		else
			n = recv(fd, scratch, sizeof(scratch), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == 0 || (n == -1 && errno == ECONNRESET))
			return got;
		assert_true(n > 0);
		if (got < size)
			got += (size_t)n;
	}
}

bool
client_silent(int fd, int ms)
{
	struct pollfd pfd = { fd, POLLIN, 0 };

	return poll(&pfd, 1, ms) == 0;
}

void
exchange(struct proxy *p, const void *req, size_t reqlen, const void *want,
    size_t wantlen, const char *line)
{
	unsigned char got[256];
	size_t n;
	int fd;

	fd = client_connect(p);
	client_send(fd, req, reqlen);
	n = client_read_all(fd, got, sizeof(got));
	close(fd);
	if (n != wantlen || memcmp(got, want, n) != 0)
		fail_msg("for \"%s\": the reply was %zu bytes, not %zu", line,
		    n, wantlen);
	report_expect(p, line);
}

/* The report from p_seen on, read whole. */
static size_t
read_report(const struct proxy *p, char *buf, size_t size)
{
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = open(p->p_report, O_RDONLY | O_CLOEXEC);
	assert_true(fd != -1);
	while (got + 1 < size &&
	    (n = pread(fd, buf + got, size - 1 - got,
	    (off_t)(p->p_seen + got))) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		assert_true(n > 0);
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	return got;
}

void
report_next(struct proxy *p, char *line, size_t size)
{
	int64_t end = now_ms() + H_WAIT_MS;
	char buf[H_LINE_MAX * 4];
	char *nl;
	size_t len;

	for (;;) {
		read_report(p, buf, sizeof(buf));
		if ((nl = strchr(buf, '\n')) != NULL)
			break;
		if (now_ms() > end)
			fail_msg("no report line within %d ms (have \"%s\")",
			    H_WAIT_MS, buf);
		sleep_ms(5);
	}
	len = (size_t)(nl - buf);
	assert_true(len < size);
	memcpy(line, buf, len);
	line[len] = '\0';
	p->p_seen += len + 1;
}

void
report_expect(struct proxy *p, const char *want)
{
	char line[H_LINE_MAX];

	report_next(p, line, sizeof(line));
	assert_string_equal(line, want);
}

void
report_expect_none(struct proxy *p, int ms)
{
	char buf[H_LINE_MAX];

	sleep_ms(ms);
	if (read_report(p, buf, sizeof(buf)) != 0)
		fail_msg("an unexpected report line: \"%s\"", buf);
}

size_t
socks_request(unsigned char *out, const char *name, size_t namelen,
    unsigned port)
{
	size_t n = 0;

	out[n++] = 5;
	out[n++] = 1;
	out[n++] = 0;
	out[n++] = 5;
	out[n++] = 1;
	out[n++] = 0;
	out[n++] = 3;
	out[n++] = (unsigned char)namelen;
	memcpy(out + n, name, namelen);
	n += namelen;
	out[n++] = (unsigned char)(port >> 8);
	out[n++] = (unsigned char)port;
	return n;
}
