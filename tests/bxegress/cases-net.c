/*
 * cases-net.c: test-bxegress's cases that resolve names and connect, run
 * inside tests/egress/testnet.sh (its environment is in testnet.sh's
 * header): names that resolve only to private addresses or not at all,
 * connects refused and timed out, relays whose byte counts must equal the
 * client's to the byte (alone, with the ClientHello pipelined after the
 * request, and with the client's half-close passed on), curl as the
 * sandbox runs it, the idle timeout, the byte cap (one relay, and two
 * sharing it), a server reset in the middle, and SIGTERM during a relay. A refused case also asserts that no
 * test server saw a connection at all.
 *
 * Outside the test network this group fails: it never passes or skips.
 */
#include <sys/socket.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cases.h"
#include "harness.h"
#include "tls-client.h"

static const char *net_dir, *net_allow, *net_a, *net_bad, *net_ns_a;

static const char *const logs[] = {
	"log-a.txt", "log-a8443.txt", "log-bad.txt", "log-b.txt",
};

/* The proxy's options, with the test network's --allow. */
static void
start(struct proxy *p, const char *connect_ms, const char *idle_ms,
    const char *max_bytes)
{
	const char *args[] = {
		"--connect-timeout-ms", connect_ms, "--idle-timeout-ms",
		idle_ms, "--max-bytes", max_bytes, "--allow", net_allow, "--",
		"good.test", "*.good.test", "loop.test", "private.test",
		"absent.test", "badcert.test", NULL,
	};

	proxy_start(p, args);
}

/* How many lines of a server's log start with prefix. */
static int
log_count(const char *log, const char *prefix)
{
	char path[512], line[4096];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", net_dir, log);
	if ((f = fopen(path, "re")) == NULL)
		fail_msg("cannot read %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, prefix, strlen(prefix)) == 0)
			n++;
	fclose(f);
	return n;
}

static int
accepts(void)
{
	size_t i;
	int n = 0;

	for (i = 0; i < sizeof(logs) / sizeof(logs[0]); i++)
		n += log_count(logs[i], "accept ");
	return n;
}

/* 05 00 and the reply with rep. */
static size_t
replies(unsigned char *out, unsigned rep)
{
	static const unsigned char r[] = { 5, 0, 5, 0, 0, 1, 0, 0, 0, 0, 0, 0 };

	memcpy(out, r, sizeof(r));
	out[3] = (unsigned char)rep;
	return sizeof(r);
}

static void
refused(struct proxy *p, const char *name, unsigned rep, const char *line)
{
	unsigned char req[300], want[16];
	size_t n = socks_request(req, name, strlen(name), 443);
	size_t w = replies(want, rep);

	exchange(p, req, n, want, w, line);
}

/* Runs argv (a command in namespace A, say); fails the test if it fails. */
static void
run(const char *const *argv)
{
	pid_t pid;
	int st;

	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		execvp(argv[0], (char *const *)argv);
		_exit(127);
	}
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail_msg("%s %s failed", argv[0], argv[1]);
}

/* An nft rule in namespace A for addr's port 443: "reject ..." or "drop". */
static void
firewall(const char *addr, const char *verdict)
{
	const char *const table[] = { "ip", "netns", "exec", net_ns_a, "nft",
	    "add", "table", "inet", "bxegress_test", NULL };
	const char *const chain[] = { "ip", "netns", "exec", net_ns_a, "nft",
	    "add", "chain", "inet", "bxegress_test", "input",
	    "{ type filter hook input priority -10; policy accept; }", NULL };
	const char *const flush[] = { "ip", "netns", "exec", net_ns_a, "nft",
	    "flush", "chain", "inet", "bxegress_test", "input", NULL };
	char rule[256];
	const char *const add[] = { "ip", "netns", "exec", net_ns_a, "nft",
	    "add", "rule", "inet", "bxegress_test", "input", rule, NULL };

	run(table);
	run(chain);
	run(flush);
	snprintf(rule, sizeof(rule), "ip daddr %s tcp dport 443 %s", addr,
	    verdict);
	run(add);
}

static void
firewall_remove(void)
{
	const char *const del[] = { "ip", "netns", "exec", net_ns_a, "nft",
	    "delete", "table", "inet", "bxegress_test", NULL };

	run(del);
}

/* First of all: nothing refused may reach any server. */
static void
test_refused_names(void **state)
{
	static const char *const no_allow[] = {
		"--connect-timeout-ms", "2000", "--idle-timeout-ms", "5000",
		"--max-bytes", "1048576", "--", "good.test", NULL,
	};
	struct proxy p;

	(void)state;
	assert_int_equal(accepts(), 0);
	start(&p, "2000", "5000", "1048576");
	refused(&p, "loop.test", 2,
	    "refused loop.test:443 resolves only to private addresses");
	refused(&p, "private.test", 2,
	    "refused private.test:443 resolves only to private addresses");
	refused(&p, "absent.test", 4, "refused absent.test:443 does not resolve");
	refused(&p, "also.test", 2,
	    "refused also.test:443 not in the grant's hosts");
	proxy_stop_clean(&p);
	/* Without --allow, the test servers' addresses are private too. */
	proxy_start(&p, no_allow);
	refused(&p, "good.test", 2,
	    "refused good.test:443 resolves only to private addresses");
	proxy_stop_clean(&p);
	assert_int_equal(accepts(), 0);
}

/* Refused by a reset, then unanswered past the connect timeout. */
static void
test_connect_failed(void **state)
{
	struct proxy p;

	(void)state;
	start(&p, "500", "5000", "1048576");
	firewall(net_bad, "reject with tcp reset");
	refused(&p, "badcert.test", 5,
	    "refused badcert.test:443 connect failed");
	firewall(net_bad, "drop");
	refused(&p, "badcert.test", 4,
	    "refused badcert.test:443 connect failed");
	firewall_remove();
	proxy_stop_clean(&p);
	assert_int_equal(log_count("log-bad.txt", "accept "), 0);
}

/* SOCKS to name, then TLS; pipelined: the ClientHello with the request. */
static void
connect_tls(struct proxy *p, int fd, struct tls *t, const char *name,
    bool pipelined)
{
	unsigned char req[2048], got[12], want[12];
	char ca[512];
	size_t n = socks_request(req, name, strlen(name), 443);

	snprintf(ca, sizeof(ca), "%s/ca.pem", net_dir);
	(void)replies(want, 0);
	tls_init(t, fd, ca, name);
	if (pipelined) {
		tls_start(t);
		n += tls_take(t, req + n, sizeof(req) - n);
	}
	client_send(fd, req, n);
	client_read_exact(fd, got, sizeof(got));
	assert_memory_equal(got, want, sizeof(got));
	(void)p;
	assert_int_equal(tls_handshake(t), 0);
}

static void
get(struct tls *t, const char *name, const char *path)
{
	char req[512];

	snprintf(req, sizeof(req), "GET %s HTTP/1.1\r\nHost: %s\r\n"
	    "Connection: close\r\n\r\n", path, name);
	tls_write(t, req, strlen(req));
}

static void
relay_ok(const char *name, bool pipelined)
{
	char body[4096], line[512], want[256];
	struct proxy p;
	struct tls t;
	int fd;

	start(&p, "2000", "5000", "1048576");
	fd = client_connect(&p);
	connect_tls(&p, fd, &t, name, pipelined);
	get(&t, name, "/ok");
	(void)tls_read_all(&t, body, sizeof(body));
	snprintf(want, sizeof(want), "hello from %s\n", name);
	assert_non_null(strstr(body, "HTTP/1.1 200"));
	assert_non_null(strstr(body, want));
	close(fd);
	snprintf(line, sizeof(line), "connected %s:443 %s:443", name, net_a);
	report_expect(&p, line);
	snprintf(line, sizeof(line), "closed %s:443 %s:443 %" PRIu64 " %"
	    PRIu64 " done", name, net_a, t.t_sent, t.t_received);
	report_expect(&p, line);
	tls_free(&t);
	proxy_stop_clean(&p);
	snprintf(line, sizeof(line), "request %s GET /ok", name);
	assert_int_equal(log_count("log-a.txt", line), 1);
}

static void
test_relay(void **state)
{
	(void)state;
	relay_ok("good.test", false);
}

static void
test_relay_pipelined(void **state)
{
	(void)state;
	relay_ok("www.good.test", true);
}

/* curl as the sandbox runs it: socks5h to the proxy's Unix socket. */
static void
test_curl(void **state)
{
	char proxy_url[512], ca[512], out[4096], line[512], rest[512];
	unsigned long long up, down;
	struct proxy p;
	size_t got = 0;
	ssize_t n;
	int fds[2], st;
	pid_t pid;

	(void)state;
	start(&p, "2000", "5000", "1048576");
	snprintf(proxy_url, sizeof(proxy_url), "socks5h://localhost%s",
	    p.p_sock);
	snprintf(ca, sizeof(ca), "%s/ca.pem", net_dir);
	assert_int_equal(pipe2(fds, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		dup2(fds[1], 1);
		execlp("curl", "curl", "-sS", "--max-time", "20", "--proxy",
		    proxy_url, "--cacert", ca, "https://good.test/ok",
		    (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	while ((n = read(fds[0], out + got, sizeof(out) - 1 - got)) > 0)
		got += (size_t)n;
	out[got] = '\0';
	close(fds[0]);
	assert_int_equal(waitpid(pid, &st, 0), pid);
	assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	assert_string_equal(out, "hello from good.test\n");
	snprintf(line, sizeof(line), "connected good.test:443 %s:443", net_a);
	report_expect(&p, line);
	report_next(&p, line, sizeof(line));
	snprintf(rest, sizeof(rest), "closed good.test:443 %s:443 ", net_a);
	assert_int_equal(strncmp(line, rest, strlen(rest)), 0);
	assert_int_equal(sscanf(line + strlen(rest), "%llu %llu", &up, &down),
	    2);
	assert_true(up > 100 && down > 500);
	assert_non_null(strstr(line, " done"));
	proxy_stop_clean(&p);
}

/* No byte either way for the idle time: closed, counts 0. */
static void
test_idle(void **state)
{
	unsigned char req[300], want[16], got[16];
	char line[512];
	struct proxy p;
	size_t n, w;
	int fd;

	(void)state;
	start(&p, "2000", "400", "1048576");
	n = socks_request(req, "good.test", 9, 443);
	w = replies(want, 0);
	fd = client_connect(&p);
	client_send(fd, req, n);
	assert_int_equal(client_read_all(fd, got, sizeof(got)), w);
	assert_memory_equal(got, want, w);
	close(fd);
	snprintf(line, sizeof(line), "connected good.test:443 %s:443", net_a);
	report_expect(&p, line);
	snprintf(line, sizeof(line), "closed good.test:443 %s:443 0 0 idle",
	    net_a);
	report_expect(&p, line);
	proxy_stop_clean(&p);
}

/* The cap: one limit line, the relay closed, later requests refused. */
static void
test_byte_limit(void **state)
{
	char body[1024], line[512];
	struct proxy p;
	struct tls t;
	int fd, before;

	(void)state;
	start(&p, "2000", "5000", "65536");
	fd = client_connect(&p);
	connect_tls(&p, fd, &t, "good.test", false);
	get(&t, "good.test", "/big/1000000");
	(void)tls_read_all(&t, body, sizeof(body));
	close(fd);
	snprintf(line, sizeof(line), "connected good.test:443 %s:443", net_a);
	report_expect(&p, line);
	report_expect(&p, "limit 65536");
	assert_true(t.t_sent < 65536 && t.t_received <= 65536 - t.t_sent);
	snprintf(line, sizeof(line), "closed good.test:443 %s:443 %" PRIu64
	    " %" PRIu64 " byte limit reached", net_a, t.t_sent,
	    65536 - t.t_sent);
	report_expect(&p, line);
	tls_free(&t);
	before = accepts();
	refused(&p, "good.test", 2, "refused good.test:443 byte limit reached");
	proxy_stop_clean(&p);
	assert_int_equal(accepts(), before);
}

/* The client ends its side after the request; the answer still comes. */
static void
test_half_close(void **state)
{
	char body[4096], line[512];
	struct proxy p;
	struct tls t;
	int fd;

	(void)state;
	start(&p, "2000", "5000", "1048576");
	fd = client_connect(&p);
	connect_tls(&p, fd, &t, "good.test", false);
	get(&t, "good.test", "/ok");
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	(void)tls_read_all(&t, body, sizeof(body));
	assert_non_null(strstr(body, "hello from good.test\n"));
	snprintf(line, sizeof(line), "connected good.test:443 %s:443", net_a);
	report_expect(&p, line);
	/* Both ends have ended: done before the client even closes. */
	snprintf(line, sizeof(line), "closed good.test:443 %s:443 %" PRIu64 " %"
	    PRIu64 " done", net_a, t.t_sent, t.t_received);
	report_expect(&p, line);
	close(fd);
	tls_free(&t);
	proxy_stop_clean(&p);
}

/* The cap counts every connection: two relays, one limit, both closed. */
static void
test_byte_limit_shared(void **state)
{
	unsigned long long up[2], down[2];
	char line[512], rest[512];
	struct tls t[2];
	struct proxy p;
	int fd[2], i, k;

	(void)state;
	start(&p, "2000", "5000", "200000");
	/* Both connected before either asks for the endless body. */
	for (i = 0; i < 2; i++) {
		fd[i] = client_connect(&p);
		connect_tls(&p, fd[i], &t[i], "good.test", false);
	}
	for (i = 0; i < 2; i++)
		get(&t[i], "good.test", "/forever");
	for (i = 0; i < 2; i++) {
		snprintf(line, sizeof(line), "connected good.test:443 %s:443",
		    net_a);
		report_expect(&p, line);
	}
	for (i = 0; i < 2; i++) {
		(void)tls_read_all(&t[i], line, sizeof(line));
		close(fd[i]);
	}
	report_expect(&p, "limit 200000");
	snprintf(rest, sizeof(rest), "closed good.test:443 %s:443 ", net_a);
	for (i = 0; i < 2; i++) {
		report_next(&p, line, sizeof(line));
		assert_int_equal(strncmp(line, rest, strlen(rest)), 0);
		assert_int_equal(sscanf(line + strlen(rest), "%llu %llu",
		    &up[i], &down[i]), 2);
		assert_non_null(strstr(line, " byte limit reached"));
	}
	assert_int_equal(up[0] + down[0] + up[1] + down[1], 200000);
	/* Which relay's line comes first is the slot order: either. */
	for (i = 0; i < 2; i++) {
		k = up[0] == t[i].t_sent ? 0 : 1;
		assert_int_equal(up[k], t[i].t_sent);
		tls_free(&t[i]);
	}
	proxy_stop_clean(&p);
}

/*
 * The server's side is reset in the middle of an endless body: what the
 * proxy had taken from it still reaches the client, to the byte, before
 * the end is passed on.
 */
static void
test_server_reset(void **state)
{
	char body[256], line[512];
	struct proxy p;
	struct tls t;
	int fd;

	(void)state;
	start(&p, "2000", "5000", "104857600");
	fd = client_connect(&p);
	connect_tls(&p, fd, &t, "good.test", false);
	get(&t, "good.test", "/forever");
	(void)tls_read_some(&t, 100000);
	firewall(net_a, "reject with tcp reset");
	(void)tls_read_all(&t, body, sizeof(body));
	close(fd);
	firewall_remove();
	snprintf(line, sizeof(line), "connected good.test:443 %s:443", net_a);
	report_expect(&p, line);
	snprintf(line, sizeof(line), "closed good.test:443 %s:443 %" PRIu64 " %"
	    PRIu64 " done", net_a, t.t_sent, t.t_received);
	report_expect(&p, line);
	tls_free(&t);
	proxy_stop_clean(&p);
}

/* SIGTERM in the middle of a relay: reported closed, stopped. */
static void
test_stop_relay(void **state)
{
	char line[512], rest[512];
	unsigned long long up, down;
	struct proxy p;
	struct tls t;
	int fd;

	(void)state;
	start(&p, "2000", "5000", "1048576");
	fd = client_connect(&p);
	connect_tls(&p, fd, &t, "good.test", false);
	snprintf(line, sizeof(line), "connected good.test:443 %s:443", net_a);
	report_expect(&p, line);
	/* The server answers only once all the client sent was relayed. */
	get(&t, "good.test", "/forever");
	(void)tls_read_some(&t, 100000);
	assert_int_equal(proxy_stop(&p), 0);
	report_next(&p, line, sizeof(line));
	snprintf(rest, sizeof(rest), "closed good.test:443 %s:443 ", net_a);
	assert_int_equal(strncmp(line, rest, strlen(rest)), 0);
	assert_int_equal(sscanf(line + strlen(rest), "%llu %llu", &up, &down),
	    2);
	assert_true(up == t.t_sent && down >= t.t_received);
	assert_non_null(strstr(line, " stopped"));
	report_expect_none(&p, 0);
	close(fd);
	tls_free(&t);
	proxy_free(&p);
}

int
net_cases(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused_names),
		cmocka_unit_test(test_connect_failed),
		cmocka_unit_test(test_relay),
		cmocka_unit_test(test_relay_pipelined),
		cmocka_unit_test(test_curl),
		cmocka_unit_test(test_idle),
		cmocka_unit_test(test_byte_limit),
		cmocka_unit_test(test_byte_limit_shared),
		cmocka_unit_test(test_half_close),
		cmocka_unit_test(test_server_reset),
		cmocka_unit_test(test_stop_relay),
	};

	net_dir = getenv("BX_TESTNET_DIR");
	net_allow = getenv("BX_TESTNET_ALLOW");
	net_a = getenv("BX_TESTNET_A");
	net_bad = getenv("BX_TESTNET_BAD");
	net_ns_a = getenv("BX_TESTNET_NS_A");
	if (net_dir == NULL || net_allow == NULL || net_a == NULL ||
	    net_bad == NULL || net_ns_a == NULL) {
		fprintf(stderr, "test-bxegress net: BX_TESTNET_DIR, "
		    "BX_TESTNET_ALLOW, BX_TESTNET_A, BX_TESTNET_BAD or "
		    "BX_TESTNET_NS_A is not set: the net cases run only "
		    "inside tests/egress/testnet.sh (meson test "
		    "bxegress-net)\n");
		return 1;
	}
	return cmocka_run_group_tests_name("bxegress-net", tests, NULL, NULL);
}
