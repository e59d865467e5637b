/*
 * test-egress.c: http_fetch through its egress proxy, under the runtime
 * named on the command line, against the project's own TLS test hosts.
 * It runs inside tests/egress/testnet.sh, which makes the hosts in network
 * namespaces (10.200.0.0/24 only), a test CA, and a private /etc/hosts in
 * which good.test, also.test, other.test and slow.test name host A,
 * badcert.test host A's second address (a certificate the CA did not
 * sign), private.test host B (outside allow_addresses) and loop.test
 * 127.0.0.1. Without that wrapper these tests fail, never pass.
 *
 * Each refusal is checked twice: the failed message names the host and the
 * proxy's reason, and the server that would have been reached logged no
 * connection at all.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <jansson.h>

#include "harness.h"
#include "proto/sha256.h"
#include "sandbox-fixture.h"

/* The grant's hosts: every test name but other.test. */
#define HOSTS	"\"good.test\", \"also.test\", \"loop.test\", " \
		"\"private.test\", \"badcert.test\", \"slow.test\", " \
		"\"nowhere.test\""
/* Under max_bytes_small, a body past it ends the fetch. */
#define SMALL_MAX_BYTES	32768
#define LOG_MAX		(256 * 1024)

static const char *testnet;	/* $BX_TESTNET_DIR */
static char egress_conf[2048];
static char egress_conf_small[2048];

static void
must_env(const char *name, const char **ret)
{
	if ((*ret = getenv(name)) == NULL || **ret == '\0') {
		fprintf(stderr, "test-egress: %s is not set: run me through "
		    "tests/egress/testnet.sh\n", name);
		exit(1);
	}
}

static int
setup(void **state)
{
	return sb_setup_with(state, egress_conf);
}

static int
setup_small(void **state)
{
	return sb_setup_with(state, egress_conf_small);
}

/* One test host's log, all of it (malloc'd). */
static char *
host_log(const char *name)
{
	char path[PATH_MAX], *buf;
	size_t n;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", testnet, name);
	if ((buf = calloc(1, LOG_MAX + 1)) == NULL)
		fail_msg("out of memory");
	if ((fp = fopen(path, "r")) == NULL)
		fail_msg("%s: %s", path, strerror(errno));
	n = fread(buf, 1, LOG_MAX, fp);
	buf[n] = '\0';
	fclose(fp);
	return buf;
}

static bool
log_has(const char *name, const char *needle)
{
	char *text = host_log(name);
	bool found = strstr(text, needle) != NULL;

	free(text);
	return found;
}

/* The hosts' logs emptied, so a case sees only its own connections. */
static void
clear_logs(void)
{
	static const char *const names[] = {
		"log-a.txt", "log-a8443.txt", "log-bad.txt", "log-b.txt",
	};
	char path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", testnet, names[i]);
		if (truncate(path, 0) == -1)
			fail_msg("%s: %s", path, strerror(errno));
	}
}


/* Until the proxy runs (or stops running), within ms; whether it did. */
static bool
await_proxy(const struct sb_fixture *f, bool running, int ms)
{
	int64_t until = rh_now_ms() + ms;

	while (sb_proxy_running(f) != running) {
		if (rh_now_ms() >= until)
			return false;
		rh_sleep_ms(20);
	}
	return true;
}

/* One fetch under the grant "fetch"; the content (malloc'd). */
static char *
fetch(struct sb_fixture *f, const char *url)
{
	return sb_call_arg(f, "http_fetch", "url", url);
}

/* The taint the last call's Result raised. */
static void
expect_taint(struct sb_fixture *f, enum bx_class class)
{
	const struct bx_audit_record *r;
	struct rh_log log;
	char id[32];

	snprintf(id, sizeof(id), "c%d", f->calls);
	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	assert_non_null(r = rh_log_find(&log, BX_AUDIT_RESULT, SB_SESSION,
	    id));
	assert_int_equal(r->event.result.taint_after, class);
	rh_log_free(&log);
}

static void
grant_fetch(struct sb_fixture *f)
{
	sb_grant(f, "fetch", "http_fetch", "hosts", HOSTS);
	clear_logs();
}

/* An allowed name: its body, the grant's class, the taint, the record. */
static void
test_allowed(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/ok");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "hello from good.test\n");
	assert_int_equal(f->last.a_class, BX_CLASS_PRIVATE);
	assert_false(f->last.a_truncated);
	sb_expect_record(f, f->calls, false, out);
	expect_taint(f, BX_CLASS_PRIVATE);
	assert_true(log_has("log-a.txt", "request good.test GET /ok"));
	free(out);
	sb_after_case(f);
}

/* Redirects to granted names are followed, five of them and no more. */
static void
test_redirects_followed(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/redirect/also.test/ok");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "hello from also.test\n");
	free(out);
	out = fetch(f, "https://good.test/chain/5");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "end of chain\n");
	free(out);
	out = fetch(f, "https://good.test/chain/6");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_non_null(strstr(out, "Maximum (5) redirects followed"));
	sb_expect_record(f, f->calls, true, out);
	free(out);
	sb_after_case(f);
}

/* A redirect off the grant's names: refused, its target never reached. */
static void
test_redirect_refused(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/redirect/other.test/ok");
	sb_expect_failed(f, out, "egress refused other.test:443: not in the "
	    "grant's hosts");
	expect_taint(f, BX_CLASS_PRIVATE);
	assert_true(log_has("log-a.txt", "request good.test GET /redirect"));
	assert_false(log_has("log-a.txt", "request other.test"));
	free(out);
	/* Not normalised: an uppercase name is not a host name. */
	out = fetch(f, "https://good.test/redirect/Also.test/ok");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_non_null(strstr(out, "egress refused "));
	assert_false(log_has("log-a.txt", "request Also.test"));
	assert_false(log_has("log-a.txt", "request also.test"));
	free(out);
	sb_after_case(f);
}

/* IP literals: refused by the arguments, and at the proxy after a hop. */
static void
test_ip_literal(void **state)
{
	struct sb_fixture *f = *state;
	char url[256], *out;

	grant_fetch(f);
	snprintf(url, sizeof(url), "https://%s/ok", getenv("BX_TESTNET_A"));
	out = fetch(f, url);
	assert_int_equal(f->last.a_status, BX_STATUS_DENIED);
	assert_int_equal(f->last.a_reason, BX_DENY_INVALID_ARGUMENTS);
	free(out);
	clear_logs();
	snprintf(url, sizeof(url), "https://good.test/redirect/%s/ok",
	    getenv("BX_TESTNET_A"));
	out = fetch(f, url);
	sb_expect_failed(f, out, "egress refused %s:443: an IP literal",
	    getenv("BX_TESTNET_A"));
	assert_false(log_has("log-a.txt", "request - GET /ok"));
	free(out);
	sb_after_case(f);
}

/* Names resolving to loopback or an address allow_addresses leaves out. */
static void
test_private_addresses(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://loop.test/ok");
	sb_expect_failed(f, out, "egress refused loop.test:443: resolves only "
	    "to private addresses");
	free(out);
	out = fetch(f, "https://private.test/ok");
	sb_expect_failed(f, out, "egress refused private.test:443: resolves "
	    "only to private addresses");
	assert_false(log_has("log-b.txt", "accept"));
	free(out);
	out = fetch(f, "https://nowhere.test/ok");
	sb_expect_failed(f, out, "egress refused nowhere.test:443: does not "
	    "resolve");
	free(out);
	sb_after_case(f);
}

/* A port other than 443, reached by a redirect: refused at the proxy. */
static void
test_port(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/redirect-port/good.test/8443/ok");
	sb_expect_failed(f, out, "egress refused good.test:8443: port is not "
	    "443");
	assert_false(log_has("log-a8443.txt", "accept"));
	free(out);
	sb_after_case(f);
}

/* Statuses other than 2xx, and a body that is not UTF-8. */
static void
test_status_and_text(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/status/404");
	sb_expect_failed(f, out, "HTTP 404: status 404\n");
	free(out);
	out = fetch(f, "https://good.test/status/500/big");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_int_equal(strlen(out), strlen("HTTP 500: ") + 1024);
	assert_int_equal(strncmp(out, "HTTP 500: status 500 xxx", 24), 0);
	free(out);
	out = fetch(f, "https://good.test/latin1");
	sb_expect_failed(f, out, "not UTF-8 text");
	free(out);
	/* Lines in the head and trailer that read as "200" change nothing. */
	out = fetch(f, "https://good.test/forged");
	sb_expect_failed(f, out, "HTTP 404: forged");
	free(out);
	sb_after_case(f);
}

/* A server that never answers, one that never stops, a bad certificate. */
static void
test_bounded(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://slow.test/silent");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_string_equal(out, "timed out after 3 s\n");
	free(out);
	out = fetch(f, "https://good.test/forever");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_true(f->last.a_truncated);
	assert_int_equal(strlen(out), SB_OUTPUT_BYTES);
	assert_int_equal(strspn(out, "a\n"), SB_OUTPUT_BYTES);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	out = fetch(f, "https://badcert.test/ok");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_non_null(strstr(out, "curl: (60)"));
	assert_true(log_has("log-bad.txt", "accept"));
	assert_false(log_has("log-bad.txt", "request"));
	free(out);
	sb_after_case(f);
}

/*
 * Hostile servers: headers a byte a second (slowloris), a redirect to
 * itself, and a body of 64 MiB, a thousand times output_bytes.
 */
static void
test_hostile_servers(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/slowloris");
	sb_expect_failed(f, out, "timed out after 3 s\n");
	free(out);
	out = fetch(f, "https://good.test/loop");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_non_null(strstr(out, "Maximum (5) redirects followed"));
	sb_expect_record(f, f->calls, true, out);
	free(out);
	out = fetch(f, "https://good.test/big/67108864");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_true(f->last.a_truncated);
	assert_int_equal(strlen(out), SB_OUTPUT_BYTES);
	assert_int_equal(strspn(out, "a"), SB_OUTPUT_BYTES);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	sb_after_case(f);
}

/* Past [egress] max_bytes the proxy closes and the fetch says so. */
static void
test_byte_limit(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	grant_fetch(f);
	out = fetch(f, "https://good.test/forever");
	sb_expect_failed(f, out, "egress byte limit reached (%d bytes)",
	    SMALL_MAX_BYTES);
	free(out);
	sb_after_case(f);
}

/* brokerd killed mid-fetch: its proxy dies with it, the restart sweeps. */
static void
test_brokerd_killed_mid_fetch(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_call c;
	char id[32];

	grant_fetch(f);
	snprintf(id, sizeof(id), "c%d", ++f->calls);
	assert_int_equal(rh_call_tool(&c, f->home.broker, SB_SESSION, id,
	    "http_fetch", "{\"url\":\"https://slow.test/silent\"}"), 0);
	assert_true(await_proxy(f, true, RH_WAIT_MS));
	rh_kill(&f->home, SIGKILL);
	rh_call_close(&c);
	assert_true(await_proxy(f, false, RH_WAIT_MS));
	sb_start(f);
	sb_expect_nothing_left(f);
	assert_false(sb_proxy_running(f));
	free(fetch(f, "https://good.test/ok"));
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	/* Not sb_after_case: the killed call's Decision has no Result. */
	sb_expect_nothing_left(f);
	assert_false(sb_proxy_running(f));
}

/* A proxy that does not work stops brokerd at startup, naming the runbook. */
static void
test_proxy_that_cannot_run(void **state)
{
	struct sb_fixture *f = *state;

	rh_kill(&f->home, SIGTERM);
	f->extra = "\n[egress]\nbxegress_path = \"/bin/false\"\n";
	sb_config(f);
	assert_int_equal(rh_start(&f->home, NULL), -1);
	/* Refused at connect, or the connection closed with no answer. */
	assert_true(rh_errs_contain(&f->home, "egress: cannot reach the "
	    "proxy") || rh_errs_contain(&f->home, "egress: the proxy did not "
	    "answer as SOCKS5"));
	assert_true(rh_errs_contain(&f->home, "see docs/runbook.md#"
	    "egress-proxy"));
	assert_false(sb_proxy_running(f));
}

/* The other tools have no proxy and no network at all. */
static void
test_others_have_no_network(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	sb_grant(f, "shell", "shell", "paths", "");
	clear_logs();
	out = sb_shell(f, NULL, "ls /.boxmaker; curl -sS --max-time 2 "
	    "https://good.test/ok; curl -sS --max-time 2 -k https://%s/ok",
	    getenv("BX_TESTNET_A"));
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_null(strstr(out, "egress"));
	assert_non_null(strstr(out, "Could not resolve host: good.test"));
	assert_non_null(strstr(out, "curl: (7)"));
	assert_false(log_has("log-a.txt", "accept"));
	free(out);
	sb_after_case(f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_allowed, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_redirects_followed, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_redirect_refused, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_ip_literal, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_private_addresses, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_port, setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_status_and_text, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_bounded, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_hostile_servers, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_byte_limit, setup_small,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_brokerd_killed_mid_fetch,
		    setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_proxy_that_cannot_run,
		    setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_others_have_no_network,
		    setup, sb_teardown),
	};
	const char *allow;

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-egress podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	must_env("BX_TESTNET_DIR", &testnet);
	must_env("BX_TESTNET_ALLOW", &allow);
	must_env("BX_TESTNET_A", &allow);
	allow = getenv("BX_TESTNET_ALLOW");
	snprintf(egress_conf, sizeof(egress_conf), "\n[egress]\n"
	    "connect_timeout_ms = 2000\nca_file = \"%s/ca.pem\"\n"
	    "allow_addresses = [\"%s\"]\n", testnet, allow);
	snprintf(egress_conf_small, sizeof(egress_conf_small), "%s"
	    "max_bytes = %d\n", egress_conf, SMALL_MAX_BYTES);
	return cmocka_run_group_tests_name(sb_kind, tests, NULL, NULL);
}
