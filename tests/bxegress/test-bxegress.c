/*
 * test-bxegress.c: the real bxegress, started as brokerd starts it, with
 * a raw SOCKS5 client (harness.h). Without arguments it runs the cases
 * that need no name resolved: usage and setup errors, every malformed
 * greeting and request, each command and address type, names at their
 * limits, a request sent byte by byte, clients that hang up or stall,
 * both connection limits, SIGTERM, the dropped privileges, the system-call
 * filter and the death of its parent. Each case asserts every report line exactly, and that
 * there is none more.
 *
 *	test-bxegress		the cases here
 *	test-bxegress net	the cases that resolve and connect
 *				(cases-net.c), inside tests/egress/testnet.sh
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "cases.h"
#include "harness.h"

static const unsigned char method_ok[] = { 5, 0 };
static const unsigned char method_refused[] = { 5, 0xff };

/* 05 00, then the reply 05 rep 00 01 0.0.0.0:0. */
static size_t
refusal(unsigned char *out, unsigned rep)
{
	static const unsigned char reply[] = { 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

	memcpy(out, method_ok, 2);
	memcpy(out + 2, reply, sizeof(reply));
	out[3] = (unsigned char)rep;
	return 2 + sizeof(reply);
}

static void
test_usage(void **state)
{
	static const char *const bad[][24] = {
		{ NULL },
		{ "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "99", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "60001", "--idle-timeout-ms",
		    "1000", "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "99",
		    "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms",
		    "3600001", "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "1023", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "1073741825", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "99999999999999999999", "--", "good.test",
		    NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1e3", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "-1", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "100",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--connect-timeout-ms",
		    "1000", "--idle-timeout-ms", "1000", "--max-bytes", "4096",
		    "--", "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--verbose", "--", "good.test",
		    NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "Good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "good.test", "*", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "a.*.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--", "127.0.0.1", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--allow", "127.0.0.0/8", "--",
		    "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--allow", "10.0.0.0/7", "--",
		    "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--allow", "10.200.0.1/30", "--",
		    "good.test", NULL },
		{ "--listen-fd", "100", "--report-fd", "101",
		    "--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		    "--max-bytes", "4096", "--allow", "good.test", "--",
		    "good.test", NULL },
	};
	char err[4096];
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (h_run_status(bad[i], -1, -1, err, sizeof(err)) != 2)
			fail_msg("case %zu did not exit 2: %s", i, err);
		assert_non_null(strstr(err, "usage: bxegress --listen-fd N"));
		assert_int_equal(strncmp(err, "bxegress: ", 10), 0);
	}
}

/* More than 16 --allow ranges, and more than 256 patterns. */
static void
test_usage_counts(void **state)
{
	static const char *const head[] = {
		"--listen-fd", "100", "--report-fd", "101",
		"--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		"--max-bytes", "4096",
	};
	static char names[257][16];
	const char *args[H_ARGS_MAX];
	char err[4096];
	size_t n, i;

	(void)state;
	memcpy(args, head, sizeof(head));
	n = sizeof(head) / sizeof(head[0]);
	for (i = 0; i < 17; i++) {
		args[n++] = "--allow";
		args[n++] = "10.200.0.0/24";
	}
	args[n++] = "--";
	args[n++] = "good.test";
	args[n] = NULL;
	assert_int_equal(h_run_status(args, -1, -1, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "at most 16 --allow"));
	n = sizeof(head) / sizeof(head[0]);
	args[n++] = "--";
	for (i = 0; i < 257; i++) {
		snprintf(names[i], sizeof(names[i]), "h%zu.test", i);
		args[n++] = names[i];
	}
	args[n] = NULL;
	assert_int_equal(h_run_status(args, -1, -1, err, sizeof(err)), 2);
	assert_non_null(strstr(err, "at most 256 host patterns"));
}

/* Descriptors that are not what brokerd passes: exit 1. */
static void
test_setup_failures(void **state)
{
	static const char *const args[] = {
		"--listen-fd", "100", "--report-fd", "101",
		"--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		"--max-bytes", "4096", "--", "good.test", NULL,
	};
	struct sockaddr sa;
	char err[4096];
	int file, sock, ro, lsock;

	(void)state;
	file = open("/dev/null", O_WRONLY | O_CLOEXEC);
	ro = open("/dev/null", O_RDONLY | O_CLOEXEC);
	sock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(file != -1 && ro != -1 && sock != -1 && lsock != -1);
	/* An address of the kernel's choosing (autobind), so it can listen. */
	memset(&sa, 0, sizeof(sa));
	sa.sa_family = AF_UNIX;
	assert_int_equal(bind(lsock, &sa, sizeof(sa.sa_family)), 0);
	assert_int_equal(listen(lsock, 1), 0);
	assert_int_equal(h_run_status(args, -1, file, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "--listen-fd 100"));
	assert_int_equal(h_run_status(args, file, file, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "not a listening Unix stream socket"));
	assert_int_equal(h_run_status(args, sock, file, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "not a listening Unix stream socket"));
	assert_int_equal(h_run_status(args, lsock, ro, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "--report-fd 101 is not open for writing"));
	assert_int_equal(h_run_status(args, lsock, -1, err, sizeof(err)), 1);
	assert_non_null(strstr(err, "--report-fd 101"));
	close(file);
	close(ro);
	close(sock);
	close(lsock);
}

static void
test_greetings(void **state)
{
	static const unsigned char v4[] = { 4, 1, 0, 1, 0, 80, 1, 2, 3, 4, 0 };
	static const unsigned char v0[] = { 0 };
	static const unsigned char none[] = { 5, 0 };
	static const unsigned char others[] = { 5, 3, 1, 2, 0x80 };
	static const unsigned char http[] = "GET / HTTP/1.1\r\n\r\n";
	struct proxy p;

	(void)state;
	proxy_start_default(&p);
	exchange(&p, v4, sizeof(v4), "", 0,
	    "refused -:0 bad request: version 4");
	exchange(&p, v0, sizeof(v0), "", 0,
	    "refused -:0 bad request: version 0");
	exchange(&p, http, sizeof(http) - 1, "", 0,
	    "refused -:0 bad request: version 71");
	exchange(&p, none, sizeof(none), method_refused, 2,
	    "refused -:0 bad request: no acceptable method");
	exchange(&p, others, sizeof(others), method_refused, 2,
	    "refused -:0 bad request: no acceptable method");
	proxy_stop_clean(&p);
}

/* Each command and header byte: the request's own refusals. */
static void
test_commands(void **state)
{
	static const struct {
		unsigned char	 cmd, rsv, rep;
		const char	*line;
	} cases[] = {
		{ 2, 0, 7, "refused -:0 bad request: command 2" },	/* BIND */
		{ 3, 0, 7, "refused -:0 bad request: command 3" },	/* UDP */
		{ 0, 0, 7, "refused -:0 bad request: command 0" },
		{ 0xff, 0, 7, "refused -:0 bad request: command 255" },
		{ 1, 1, 1, "refused -:0 bad request: reserved byte" },
		{ 1, 0x80, 1, "refused -:0 bad request: reserved byte" },
	};
	static const unsigned char v4req[] = { 5, 1, 0, 4, 1, 0, 3, 9 };
	unsigned char req[300], want[16];
	struct proxy p;
	size_t i, n, w;

	(void)state;
	proxy_start_default(&p);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		n = socks_request(req, "good.test", 9, 443);
		req[4] = cases[i].cmd;
		req[5] = cases[i].rsv;
		w = refusal(want, cases[i].rep);
		exchange(&p, req, n, want, w, cases[i].line);
	}
	exchange(&p, v4req, sizeof(v4req), method_ok, 2,
	    "refused -:0 bad request: version 4");
	proxy_stop_clean(&p);
}

static void
test_address_types(void **state)
{
	static const unsigned char v4[] = { 5, 1, 0, 5, 1, 0, 1,
	    10, 200, 0, 2, 0x01, 0xbb };
	static const unsigned char v6[] = { 5, 1, 0, 5, 1, 0, 4,
	    0x20, 0x01, 0x0d, 0xb8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 5,
	    0x20, 0xfb };
	static const unsigned char loop6[] = { 5, 1, 0, 5, 1, 0, 4,
	    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0x01, 0xbb };
	static const unsigned char t2[] = { 5, 1, 0, 5, 1, 0, 2, 9 };
	static const unsigned char tff[] = { 5, 1, 0, 5, 1, 0, 0xff };
	unsigned char want[16];
	struct proxy p;
	size_t w;

	(void)state;
	proxy_start_default(&p);
	w = refusal(want, 8);
	exchange(&p, v4, sizeof(v4), want, w,
	    "refused 10.200.0.2:443 an IP literal");
	exchange(&p, v6, sizeof(v6), want, w,
	    "refused [2001:db8::5]:8443 an IP literal");
	exchange(&p, loop6, sizeof(loop6), want, w,
	    "refused [::1]:443 an IP literal");
	exchange(&p, t2, sizeof(t2), want, w,
	    "refused -:0 bad request: address type 2");
	exchange(&p, tff, sizeof(tff), want, w,
	    "refused -:0 bad request: address type 255");
	proxy_stop_clean(&p);
}

/* A name refused by the parser, and the line it makes. */
static void
refused_name(struct proxy *p, const char *name, size_t len, unsigned port,
    const char *line)
{
	unsigned char req[300], want[16];
	size_t n = socks_request(req, name, len, port);
	size_t w = refusal(want, 2);

	exchange(p, req, n, want, w, line);
}

static void
test_names(void **state)
{
	char name[256], line[1200];
	struct proxy p;
	size_t i;

	(void)state;
	proxy_start_default(&p);
	refused_name(&p, "evil.test", 9, 443,
	    "refused evil.test:443 not in the grant's hosts");
	refused_name(&p, "good.test.evil.test", 19, 443,
	    "refused good.test.evil.test:443 not in the grant's hosts");
	refused_name(&p, "good.test", 9, 80,
	    "refused good.test:80 port is not 443");
	refused_name(&p, "www.good.test", 13, 8443,
	    "refused www.good.test:8443 port is not 443");
	refused_name(&p, "Good.test", 9, 443,
	    "refused Good.test:443 not a host name");
	refused_name(&p, "good.test.", 10, 443,
	    "refused good.test.:443 not a host name");
	refused_name(&p, "", 0, 443, "refused :443 not a host name");
	refused_name(&p, "127.0.0.1", 9, 443,
	    "refused 127.0.0.1:443 an IP literal");
	refused_name(&p, "[::1]", 5, 443, "refused [::1]:443 an IP literal");
	refused_name(&p, "2130706433", 10, 443,
	    "refused 2130706433:443 an IP literal");
	/* Bytes outside 0x21..0x7e and the backslash are escaped. */
	refused_name(&p, "a b\\c\xff\x00\x7f:\n", 10, 443,
	    "refused a\\x20b\\x5cc\\xff\\x00\\x7f:\\x0a:443 not a host name");
	/* 255 bytes, the most a request holds. */
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	memcpy(name + 245, ".good.test", 10);
	snprintf(line, sizeof(line), "refused %.255s:443 not a host name",
	    name);
	refused_name(&p, name, 255, 443, line);
	memset(name, ' ', 255);
	line[0] = '\0';
	strcat(line, "refused ");
	for (i = 0; i < 255; i++)
		strcat(line, "\\x20");
	strcat(line, ":443 not a host name");
	refused_name(&p, name, 255, 443, line);
	proxy_stop_clean(&p);
}

/* One byte per send: the same answers as sent whole. */
static void
test_byte_by_byte(void **state)
{
	unsigned char req[300], want[16], got[64];
	struct proxy p;
	size_t n, w;
	int fd;

	(void)state;
	proxy_start_default(&p);
	n = socks_request(req, "evil.good.tes", 13, 443);
	w = refusal(want, 2);
	fd = client_connect(&p);
	client_send_slowly(fd, req, n);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), w);
	assert_memory_equal(got, want, w);
	close(fd);
	report_expect(&p, "refused evil.good.tes:443 not in the grant's hosts");
	n = socks_request(req, "www.good.test", 13, 80);
	fd = client_connect(&p);
	client_send_slowly(fd, req, n);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), w);
	assert_memory_equal(got, want, w);
	close(fd);
	report_expect(&p, "refused www.good.test:80 port is not 443");
	/* The method reply comes as soon as the greeting is whole. */
	fd = client_connect(&p);
	client_send_slowly(fd, req, 3);
	client_read_exact(fd, got, 2);
	assert_memory_equal(got, method_ok, 2);
	assert_true(client_silent(fd, 50));
	client_send_slowly(fd, req + 3, n - 3);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), w - 2);
	assert_memory_equal(got, want + 2, w - 2);
	close(fd);
	report_expect(&p, "refused www.good.test:80 port is not 443");
	proxy_stop_clean(&p);
}

static void
test_hang_up(void **state)
{
	unsigned char req[300], got[8];
	struct proxy p;
	size_t n;
	int fd;

	(void)state;
	proxy_start_default(&p);
	fd = client_connect(&p);
	close(fd);
	report_expect(&p, "refused -:0 bad request: hung up");
	n = socks_request(req, "good.test", 9, 443);
	fd = client_connect(&p);
	client_send(fd, req, 3);
	client_read_exact(fd, got, 2);
	close(fd);
	report_expect(&p, "refused -:0 bad request: hung up");
	fd = client_connect(&p);
	client_send(fd, req, n - 1);
	client_read_exact(fd, got, 2);
	close(fd);
	report_expect(&p, "refused -:0 bad request: hung up");
	/* Half a greeting, then only our side of it ends. */
	fd = client_connect(&p);
	client_send(fd, req, 2);
	shutdown(fd, SHUT_WR);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), 0);
	close(fd);
	report_expect(&p, "refused -:0 bad request: hung up");
	proxy_stop_clean(&p);
}

/* The greeting and the request must come within the idle timeout. */
static void
test_handshake_timeout(void **state)
{
	static const char *const args[] = {
		"--connect-timeout-ms", "100", "--idle-timeout-ms", "300",
		"--max-bytes", "1024", "--", "good.test", NULL,
	};
	unsigned char req[300], got[8];
	struct proxy p;
	int fd, fd2;

	(void)state;
	proxy_start(&p, args);
	(void)socks_request(req, "good.test", 9, 443);
	fd = client_connect(&p);
	fd2 = client_connect(&p);
	client_send(fd2, req, 5);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), 0);
	assert_int_equal(client_read_all(fd2, got, sizeof(got)), 2);
	close(fd);
	close(fd2);
	report_expect(&p, "refused -:0 bad request: timed out");
	report_expect(&p, "refused -:0 bad request: timed out");
	proxy_stop_clean(&p);
}

/* SIGTERM closes connections in their handshake, each reported. */
static void
test_stop(void **state)
{
	unsigned char req[300], got[8];
	struct proxy p;
	int a, b;

	(void)state;
	proxy_start_default(&p);
	(void)socks_request(req, "good.test", 9, 443);
	a = client_connect(&p);
	b = client_connect(&p);
	client_send(b, req, 3);
	client_read_exact(b, got, 2);
	assert_int_equal(proxy_stop(&p), 0);
	report_expect(&p, "closed -:0 - 0 0 stopped");
	report_expect(&p, "closed -:0 - 0 0 stopped");
	report_expect_none(&p, 0);
	assert_int_equal(client_read_all(a, got, sizeof(got)), 0);
	assert_int_equal(client_read_all(b, got, sizeof(got)), 0);
	close(a);
	close(b);
	proxy_free(&p);
	/* SIGINT is SIGTERM's equal. */
	proxy_start_default(&p);
	a = client_connect(&p);
	client_send(a, req, 3);
	client_read_exact(a, got, 2);
	assert_int_equal(kill(p.p_pid, SIGINT), 0);
	assert_int_equal(client_read_all(a, got, sizeof(got)), 0);
	close(a);
	report_expect(&p, "closed -:0 - 0 0 stopped");
	proxy_stop_clean(&p);
}

/* Sixteen at once; the seventeenth waits until one of them ends. */
static void
test_clients_at_once(void **state)
{
	unsigned char req[300], got[16], want[16];
	struct proxy p;
	int fds[16], late, i;
	size_t n, w;

	(void)state;
	proxy_start_default(&p);
	n = socks_request(req, "evil.test", 9, 443);
	for (i = 0; i < 16; i++) {
		fds[i] = client_connect(&p);
		client_send(fds[i], req, 3);
		client_read_exact(fds[i], got, 2);
	}
	late = client_connect(&p);
	client_send(late, req, n);
	assert_true(client_silent(late, 300));
	report_expect_none(&p, 0);
	close(fds[0]);
	report_expect(&p, "refused -:0 bad request: hung up");
	w = refusal(want, 2);
	assert_int_equal(client_read_all(late, got, sizeof(got)), w);
	assert_memory_equal(got, want, w);
	close(late);
	report_expect(&p, "refused evil.test:443 not in the grant's hosts");
	assert_int_equal(proxy_stop(&p), 0);
	for (i = 1; i < 16; i++) {
		report_expect(&p, "closed -:0 - 0 0 stopped");
		close(fds[i]);
	}
	report_expect_none(&p, 0);
	proxy_free(&p);
}

/* 64 over the proxy's life; the 65th is refused and nothing after. */
static void
test_connections_in_all(void **state)
{
	static const unsigned char v4[] = { 4 };
	unsigned char got[8];
	struct proxy p;
	int i, fd;

	(void)state;
	proxy_start_default(&p);
	for (i = 0; i < 64; i++)
		exchange(&p, v4, 1, "", 0,
		    "refused -:0 bad request: version 4");
	fd = client_connect(&p);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), 0);
	close(fd);
	report_expect(&p, "refused -:0 too many connections");
	/* The test's own copy still listens, so this one only queues. */
	fd = client_connect(&p);
	client_send(fd, v4, 1);
	assert_true(client_silent(fd, 300));
	report_expect_none(&p, 0);
	close(fd);
	proxy_stop_clean(&p);
}

/* Reads "Key:\tvalue" of /proc/PID/status. */
static void
proc_status(pid_t pid, const char *key, char *out, size_t size)
{
	char path[64], line[512];
	size_t klen = strlen(key);
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	assert_non_null(f = fopen(path, "re"));
	out[0] = '\0';
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, key, klen) == 0 && line[klen] == ':') {
			snprintf(out, size, "%s", line + klen + 1);
			out[strcspn(out, "\n")] = '\0';
			break;
		}
	fclose(f);
}

static void
test_privileges(void **state)
{
	static const unsigned char v4[] = { 4 };
	char v[256];
	struct proxy p;

	(void)state;
	proxy_start_default(&p);
	/* Once a connection was answered, the setup is over. */
	exchange(&p, v4, 1, "", 0, "refused -:0 bad request: version 4");
	proc_status(p.p_pid, "NoNewPrivs", v, sizeof(v));
	assert_string_equal(v, "\t1");
	if (getuid() == 0) {
		proc_status(p.p_pid, "Uid", v, sizeof(v));
		assert_string_equal(v, "\t65534\t65534\t65534\t65534");
		proc_status(p.p_pid, "Gid", v, sizeof(v));
		assert_string_equal(v, "\t65534\t65534\t65534\t65534");
		proc_status(p.p_pid, "Groups", v, sizeof(v));
		assert_true(v[strspn(v, "\t ")] == '\0');
		proc_status(p.p_pid, "CapEff", v, sizeof(v));
		assert_string_equal(v, "\t0000000000000000");
	}
	proxy_stop_clean(&p);
}

/* Writes len bytes as dir/name; the path, in path. */
static void
put_file(const char *dir, const char *name, const void *buf, size_t len,
    char *path, size_t size)
{
	int fd;

	snprintf(path, size, "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	assert_true(fd != -1);
	assert_int_equal(write(fd, buf, len), (ssize_t)len);
	close(fd);
}

/*
 * --seccomp: the program is in force once bxegress serves (a one-line
 * program that allows everything; proto's test shows a denial biting),
 * and a file that is not a program, or is not there, stops the start.
 */
static void
test_filter(void **state)
{
	static const struct sock_filter allow[] = {
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	char dir[] = "/tmp/bxegress-filter-XXXXXX", good[256], bad[256];
	char v[256], mine[256], err[4096], want[512];
	const char *args[] = {
		"--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		"--max-bytes", "4096", "--seccomp", good, "--", "good.test",
		NULL,
	};
	const char *fds[] = {
		"--listen-fd", "100", "--report-fd", "101",
		"--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		"--max-bytes", "4096", "--seccomp", bad, "--", "good.test",
		NULL,
	};
	struct sockaddr sa;
	struct proxy p;
	int file, lsock;

	(void)state;
	assert_non_null(mkdtemp(dir));
	put_file(dir, "good.bpf", allow, sizeof(allow), good, sizeof(good));
	proxy_start(&p, args);
	exchange(&p, "\x04", 1, "", 0, "refused -:0 bad request: version 4");
	proc_status(p.p_pid, "Seccomp", v, sizeof(v));
	assert_string_equal(v, "\t2");
	/* One filter more than this test runs under: bxegress's own. */
	proc_status(getpid(), "Seccomp_filters", mine, sizeof(mine));
	proc_status(p.p_pid, "Seccomp_filters", v, sizeof(v));
	assert_int_equal(atoi(v), atoi(mine) + 1);
	proxy_stop_clean(&p);

	file = open("/dev/null", O_WRONLY | O_CLOEXEC);
	lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_family = AF_UNIX;
	assert_true(file != -1 && lsock != -1);
	assert_int_equal(bind(lsock, &sa, sizeof(sa.sa_family)), 0);
	assert_int_equal(listen(lsock, 1), 0);
	put_file(dir, "bad.bpf", "1234567", 7, bad, sizeof(bad));
	assert_int_equal(h_run_status(fds, lsock, file, err, sizeof(err)), 1);
	snprintf(want, sizeof(want), "bxegress: --seccomp %s is not a filter "
	    "program (7 bytes)\n", bad);
	assert_string_equal(err, want);
	assert_int_equal(unlink(bad), 0);
	assert_int_equal(h_run_status(fds, lsock, file, err, sizeof(err)), 1);
	snprintf(want, sizeof(want), "bxegress: --seccomp %s: cannot open: "
	    "No such file or directory\n", bad);
	assert_string_equal(err, want);
	/* A FIFO is refused at once, not read until a writer comes. */
	assert_int_equal(mkfifo(bad, 0600), 0);
	assert_int_equal(h_run_status(fds, lsock, file, err, sizeof(err)), 1);
	snprintf(want, sizeof(want), "bxegress: --seccomp %s is not a regular "
	    "file\n", bad);
	assert_string_equal(err, want);
	assert_int_equal(unlink(bad), 0);
	fds[11] = "bad.bpf";
	assert_int_equal(h_run_status(fds, lsock, file, err, sizeof(err)), 2);
	snprintf(want, sizeof(want), "bxegress: --seccomp \"bad.bpf\" is not "
	    "an absolute path\nusage: bxegress ");
	assert_int_equal(strncmp(err, want, strlen(want)), 0);
	close(file);
	close(lsock);
	assert_int_equal(unlink(good), 0);
	assert_int_equal(rmdir(dir), 0);
}

/* Whether pid is gone or a zombie. */
static bool
dead(pid_t pid)
{
	char path[64], buf[256], *close_paren;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return errno == ENOENT;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return true;
	buf[n] = '\0';
	close_paren = strrchr(buf, ')');
	return close_paren != NULL && (close_paren[2] == 'Z' ||
	    close_paren[2] == 'X');
}

/* brokerd's death kills bxegress (PR_SET_PDEATHSIG), whoever it runs as. */
static void
test_parent_death(void **state)
{
	static const char *const args[] = {
		"--connect-timeout-ms", "1000", "--idle-timeout-ms", "1000",
		"--max-bytes", "4096", "--", "good.test", NULL,
	};
	struct proxy p;
	int pids[2], i;
	pid_t middle, proxy = 0;

	(void)state;
	assert_int_equal(pipe2(pids, O_CLOEXEC), 0);
	middle = fork();
	assert_true(middle != -1);
	if (middle == 0) {
		/* The middle process plays brokerd, then dies. */
		proxy_start(&p, args);
		(void)write(pids[1], &p.p_pid, sizeof(p.p_pid));
		exchange(&p, "\x04", 1, "", 0,
		    "refused -:0 bad request: version 4");
		/* Its files go, but not bxegress: its end is the point. */
		p.p_pid = 0;
		proxy_free(&p);
		_exit(0);
	}
	close(pids[1]);
	assert_int_equal(read(pids[0], &proxy, sizeof(proxy)),
	    sizeof(proxy));
	close(pids[0]);
	assert_int_equal(waitpid(middle, &i, 0), middle);
	assert_true(WIFEXITED(i) && WEXITSTATUS(i) == 0);
	for (i = 0; i < 1000 && !dead(proxy); i++)
		usleep(10000);
	assert_true(dead(proxy));
}

int
main(int argc, char *argv[])
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_usage_counts),
		cmocka_unit_test(test_setup_failures),
		cmocka_unit_test(test_greetings),
		cmocka_unit_test(test_commands),
		cmocka_unit_test(test_address_types),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_byte_by_byte),
		cmocka_unit_test(test_hang_up),
		cmocka_unit_test(test_handshake_timeout),
		cmocka_unit_test(test_stop),
		cmocka_unit_test(test_clients_at_once),
		cmocka_unit_test(test_connections_in_all),
		cmocka_unit_test(test_privileges),
		cmocka_unit_test(test_filter),
		cmocka_unit_test(test_parent_death),
	};

	signal(SIGPIPE, SIG_IGN);
	if (argc == 2 && strcmp(argv[1], "net") == 0)
		return net_cases();
	if (argc != 1) {
		fprintf(stderr, "usage: test-bxegress [net]\n");
		return 2;
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
