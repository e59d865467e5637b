/*
 * test-egress-secret.c: http_fetch under a grant that names a secret
 * (docs/design.md, "Secrets"), under the runtime named on the command
 * line, inside tests/egress/testnet.sh's network (see test-egress.c for
 * its names; without the wrapper these tests fail, never pass).
 *
 * What the hosts' logs show is what was sent: tls-host logs each request
 * header as "header SNI LINE". What the model got is the call's content.
 * Every case also searches brokerd's output and the audit log for the
 * value, and the echo host's /echo route sends the value back in every
 * form the redaction must find.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"
#include "sandbox-fixture.h"
#include "secret-search.h"

#define VALUE		"bxs3cr3t-V4lue-0123456789abcdef"
#define HEADER_LINE	"Authorization: Bearer " VALUE
#define SECRET		"github"
#define LOG_MAX		(1024 * 1024)
#define CHAIN_TIMEOUT_MS 60000
#define UNUSABLE	"the secret " SECRET " cannot be used: "
#define RUNBOOK		"; see docs/runbook.md#secret-unavailable"

static const char *testnet;	/* $BX_TESTNET_DIR */
static char egress_conf[2048];

static void
must_env(const char *name, const char **ret)
{
	if ((*ret = getenv(name)) == NULL || **ret == '\0') {
		fprintf(stderr, "test-egress-secret: %s is not set: run me "
		    "through tests/egress/testnet.sh\n", name);
		exit(1);
	}
}

static int
setup(void **state)
{
	return sb_setup_with(state, egress_conf);
}

/* A whole file (malloc'd, NUL-ended), "" when it cannot be read. */
static char *
slurp(const char *path)
{
	char *buf;
	size_t n = 0;
	FILE *fp;

	if ((buf = calloc(1, LOG_MAX + 1)) == NULL)
		fail_msg("out of memory");
	if ((fp = fopen(path, "r")) != NULL) {
		n = fread(buf, 1, LOG_MAX, fp);
		fclose(fp);
	}
	buf[n] = '\0';
	return buf;
}

static char *
host_log(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/log-a.txt", testnet);
	return slurp(path);
}

static size_t
count(const char *text, const char *needle)
{
	size_t n = 0;

	for (; (text = strstr(text, needle)) != NULL; text++)
		n++;
	return n;
}

static size_t
log_count(const char *needle)
{
	char *text = host_log();
	size_t n = count(text, needle);

	free(text);
	return n;
}

static void
clear_log(void)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/log-a.txt", testnet);
	if (truncate(path, 0) == -1)
		fail_msg("%s: %s", path, strerror(errno));
}

/*
 * No form of the value or of its header (secret-search.h: every form the
 * echo host sends, and any 8 bytes of the value in a row) is in text.
 */
static void
expect_no_value(const char *where, const char *text)
{
	static struct secret_needles needles;
	const struct secret_needle *hit;

	if (needles.sn_count == 0)
		secret_needles_make(&needles, "Bearer " VALUE, VALUE);
	if ((hit = secret_search(&needles, text, strlen(text))) != NULL)
		fail_msg("%s holds the value: its %s \"%s\"", where,
		    hit->sn_label, hit->sn_text);
}

/* Every file under dir searched for the value. */
static void
expect_no_value_under(const char *dir)
{
	char path[PATH_MAX], *text;
	struct dirent *e;
	struct stat st;
	DIR *d;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		if (lstat(path, &st) == -1)
			continue;
		if (S_ISDIR(st.st_mode))
			expect_no_value_under(path);
		else if (S_ISREG(st.st_mode)) {
			text = slurp(path);
			expect_no_value(path, text);
			free(text);
		}
	}
	closedir(d);
}

/* brokerd's output and the audit log: neither holds the value. */
static void
expect_logs_clean(struct sb_fixture *f)
{
	char *text = slurp(f->home.errs);

	expect_no_value("brokerd's output", text);
	free(text);
	expect_no_value_under(f->home.audit);
}

/* <home>/secrets/github.toml with text, the directory and file modes. */
static void
put_secret(struct sb_fixture *f, const char *text, mode_t dir_mode,
    mode_t file_mode)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/secrets", f->home.dir);
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		fail_msg("%s: %s", dir, strerror(errno));
	assert_int_equal(chmod(dir, dir_mode), 0);
	if (text == NULL)
		return;
	sb_put(dir, SECRET ".toml", text);
	snprintf(dir, sizeof(dir), "%s/secrets/" SECRET ".toml", f->home.dir);
	assert_int_equal(chmod(dir, file_mode), 0);
}

static void
put_bearer(struct sb_fixture *f, const char *hosts)
{
	char text[1024];

	snprintf(text, sizeof(text), "kind = \"bearer\"\nhosts = [%s]\n"
	    "value = \"" VALUE "\"\n", hosts);
	put_secret(f, text, 0700, 0600);
}

/* The grant "fetch": http_fetch of hosts, sending the secret. */
static void
grant_fetch_secret(struct sb_fixture *f, const char *hosts)
{
	char text[1024];

	snprintf(text, sizeof(text), "tool = \"http_fetch\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\nsecret = \"" SECRET "\"\n"
	    "\n[constraints]\nhosts = [%s]\n", hosts);
	sb_put(f->home.grants, "fetch.toml", text);
	clear_log();
}

static char *
fetch(struct sb_fixture *f, const char *url)
{
	return sb_call_arg(f, "http_fetch", "url", url);
}

/*
 * The bearer secret reaches good.test in its header; the host's echo of
 * it in every form comes back redacted, and the model is told how many.
 */
static void
test_bearer_echo(void **state)
{
	struct sb_fixture *f = *state;
	char *out, *log;

	put_bearer(f, "\"good.test\"");
	grant_fetch_secret(f, "\"good.test\"");
	out = fetch(f, "https://good.test/echo/authorization");
	log = host_log();
	fprintf(stderr, "--- the host's log (%s) ---\n%s--- the result the "
	    "model got ---\n%s\n---\n", sb_kind, log, out);
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_non_null(strstr(log, "header good.test " HEADER_LINE "\n"));
	free(log);
	expect_no_value("the result", out);
	assert_non_null(strstr(out, "[secret " SECRET "]"));
	assert_non_null(strstr(out, " of the secret " SECRET " were removed]"));
	sb_expect_record(f, f->calls, false, out);
	expect_logs_clean(f);
	free(out);
	sb_after_case(f);
}

/* The output limit cuts inside an occurrence: the start goes too. */
static void
test_cut_inside(void **state)
{
	struct sb_fixture *f = *state;
	char url[256], *out;
	size_t before = SB_OUTPUT_BYTES - 12;

	put_bearer(f, "\"good.test\"");
	grant_fetch_secret(f, "\"good.test\"");
	snprintf(url, sizeof(url), "https://good.test/echo-big/authorization/"
	    "%zu", before);
	out = fetch(f, url);
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_true(f->last.a_truncated);
	assert_int_equal(strspn(out, "x"), before);
	assert_string_equal(out + before, "\n[1 occurrence of the secret "
	    SECRET " was removed]");
	expect_no_value("the result", out);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	sb_after_case(f);
}

/* A gzip body is not returned once the secret was sent. */
static void
test_gzip_refused(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	put_bearer(f, "\"good.test\"");
	grant_fetch_secret(f, "\"good.test\"");
	out = fetch(f, "https://good.test/echo-gzip/authorization");
	sb_expect_failed(f, out, "HTTP 200: the response has a Content-Encoding "
	    "other than identity, which is not returned after the secret "
	    SECRET " was sent");
	assert_int_equal(log_count("header good.test " HEADER_LINE "\n"), 1);
	free(out);
	sb_after_case(f);
}

/* A redirect to the same host is followed, the secret sent again. */
static void
test_redirect_same_host(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	put_bearer(f, "\"good.test\"");
	grant_fetch_secret(f, "\"good.test\"");
	out = fetch(f, "https://good.test/redirect/good.test/echo/"
	    "authorization");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_int_equal(log_count("request good.test GET /redirect/"), 1);
	assert_int_equal(log_count("request good.test GET /echo/"), 1);
	assert_int_equal(log_count("header good.test " HEADER_LINE "\n"), 2);
	expect_no_value("the result", out);
	assert_non_null(strstr(out, "[secret " SECRET "]"));
	free(out);
	/*
	 * Five hops and no more, as without a secret. Six TLS handshakes
	 * took over SB_TIMEOUT_MS at load average 20, so these calls get a
	 * limit that only a hang reaches.
	 */
	f->timeout_ms = CHAIN_TIMEOUT_MS;
	sb_restart(f, 1);
	out = fetch(f, "https://good.test/chain/5");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "end of chain\n");
	free(out);
	out = fetch(f, "https://good.test/chain/6");
	sb_expect_failed(f, out, "Maximum (5) redirects followed");
	free(out);
	sb_after_case(f);
}

/* A redirect to another granted host is not followed, and says so. */
static void
test_redirect_other_host(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	put_bearer(f, "\"good.test\", \"also.test\"");
	grant_fetch_secret(f, "\"good.test\", \"also.test\"");
	out = fetch(f, "https://good.test/redirect/also.test/echo/"
	    "authorization");
	sb_expect_failed(f, out, "HTTP 302: redirect to "
	    "https://also.test/echo/authorization not followed: the secret "
	    SECRET " is only for good.test");
	assert_int_equal(log_count("request also.test"), 0);
	assert_int_equal(log_count("header also.test"), 0);
	free(out);
	sb_after_case(f);
}

/* A granted host that is not among the secret's: nothing sent at all. */
static void
test_host_not_the_secrets(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	put_bearer(f, "\"good.test\"");
	grant_fetch_secret(f, "\"good.test\", \"also.test\"");
	out = fetch(f, "https://also.test/echo/authorization");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	assert_int_equal(strncmp(out, UNUSABLE "also.test is not among its "
	    "hosts (", strlen(UNUSABLE "also.test is not among its hosts (")),
	    0);
	assert_non_null(strstr(out, RUNBOOK));
	sb_expect_record(f, f->calls, true, out);
	assert_int_equal(log_count("accept"), 0);
	free(out);
	sb_after_case(f);
}

/* A secret that cannot be used fails the call before anything is sent. */
static void
expect_unusable(struct sb_fixture *f, const char *why)
{
	char *out;

	clear_log();
	out = fetch(f, "https://good.test/echo/authorization");
	assert_int_equal(f->last.a_status, BX_STATUS_FAILED);
	if (strncmp(out, UNUSABLE, strlen(UNUSABLE)) != 0 ||
	    strstr(out, why) == NULL || strstr(out, RUNBOOK) == NULL)
		fail_msg("not the failure of \"%s\": %s", why, out);
	sb_expect_record(f, f->calls, true, out);
	assert_int_equal(log_count("accept"), 0);
	expect_no_value("the result", out);
	free(out);
}

static void
test_unusable(void **state)
{
	struct sb_fixture *f = *state;
	char path[PATH_MAX];

	grant_fetch_secret(f, "\"good.test\"");
	put_secret(f, NULL, 0700, 0600);
	expect_unusable(f, "there is no such secret");
	put_bearer(f, "\"good.test\"");
	snprintf(path, sizeof(path), "%s/secrets/" SECRET ".toml",
	    f->home.dir);
	assert_int_equal(chmod(path, 0644), 0);
	expect_unusable(f, "has mode 0644, not 0600");
	put_bearer(f, "\"good.test\"");
	snprintf(path, sizeof(path), "%s/secrets", f->home.dir);
	assert_int_equal(chmod(path, 0755), 0);
	expect_unusable(f, "has mode 0755, not 0700");
	put_secret(f, "kind = \"bearer\"\nhosts = [\"good.test\"]\nvalue = \""
	    VALUE "\"\nscope = \"all\"\n", 0700, 0600);
	expect_unusable(f, "unknown key");
	put_secret(f, "kind = \"bearer\"\nhosts = [\"good.test\"]\nvalue = \""
	    "bxs3cr3t\\nV4lue-0123\"\n", 0700, 0600);
	expect_unusable(f, "field \"value\" holds");
	put_secret(f, "kind = \"bearer\"\nhosts = [\"good.test\"]\nvalue = \""
	    "bx5hort\"\n", 0700, 0600);
	expect_unusable(f, "field \"value\" is shorter than");
	expect_logs_clean(f);
	sb_after_case(f);
}

/* Whether /proc/PID/cmdline or environ of a process holds the value. */
static bool
holds_value(const char *pid, const void *ctx)
{
	static const char *const files[] = { "cmdline", "environ" };
	char path[64], buf[65536];
	size_t i, n;
	FILE *fp;

	(void)ctx;
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "/proc/%s/%s", pid, files[i]);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		n = fread(buf, 1, sizeof(buf), fp);
		fclose(fp);
		if (memmem(buf, n, VALUE, strlen(VALUE)) != NULL) {
			fprintf(stderr, "%s holds the value\n", path);
			return true;
		}
	}
	return false;
}

/*
 * While curl waits on a host that never answers, with the header sent: no
 * process on the machine (brokerd, the runtime, bxtool, curl, the proxy)
 * has the value in its argv or environment.
 */
static void
test_proc_while_held(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_answer a;
	struct rh_call c;
	char id[32], *out = NULL;
	int64_t until;

	put_bearer(f, "\"slow.test\"");
	grant_fetch_secret(f, "\"slow.test\"");
	snprintf(id, sizeof(id), "c%d", ++f->calls);
	assert_int_equal(rh_call_tool(&c, f->home.broker, SB_SESSION, id,
	    "http_fetch", "{\"url\":\"https://slow.test/silent\"}"), 0);
	until = rh_now_ms() + RH_WAIT_MS;
	while (log_count("header slow.test " HEADER_LINE "\n") == 0) {
		if (rh_now_ms() >= until)
			fail_msg("slow.test's log never showed the header");
		rh_sleep_ms(20);
	}
	assert_false(sb_any_process(holds_value, NULL));
	assert_int_equal(rh_call_next_full(&c, RH_WAIT_MS, &a, &out), RH_FINAL);
	assert_int_equal(a.a_status, BX_STATUS_FAILED);
	assert_non_null(strstr(out, "timed out"));
	free(out);
	rh_call_close(&c);
	expect_logs_clean(f);
	sb_after_case(f);
}

/* A call under a grant without a secret sends no Authorization at all. */
static void
test_no_secret_no_header(void **state)
{
	struct sb_fixture *f = *state;
	char *out;

	sb_grant(f, "fetch", "http_fetch", "hosts", "\"good.test\"");
	clear_log();
	out = fetch(f, "https://good.test/echo/authorization");
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
	assert_string_equal(out, "no authorization header\n");
	assert_int_equal(log_count("header good.test Authorization"), 0);
	free(out);
	sb_after_case(f);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_bearer_echo, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_cut_inside, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_gzip_refused, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_redirect_same_host, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_redirect_other_host, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_host_not_the_secrets,
		    setup, sb_teardown),
		cmocka_unit_test_setup_teardown(test_unusable, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_proc_while_held, setup,
		    sb_teardown),
		cmocka_unit_test_setup_teardown(test_no_secret_no_header, setup,
		    sb_teardown),
	};
	const char *allow;

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-egress-secret podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	must_env("BX_TESTNET_DIR", &testnet);
	must_env("BX_TESTNET_ALLOW", &allow);
	snprintf(egress_conf, sizeof(egress_conf), "\n[egress]\n"
	    "connect_timeout_ms = 2000\nca_file = \"%s/ca.pem\"\n"
	    "allow_addresses = [\"%s\"]\n", testnet, allow);
	return cmocka_run_group_tests_name(sb_kind, tests, NULL, NULL);
}
