/*
 * test-log.c: bxctl log, run as the real binary on audit logs written
 * record by record (auditlog.h): one row per call joined from its records,
 * in the order calls end; each outcome as the owner reads it (pending and
 * abandoned asks told apart through a fake brokerd); the filters, -n,
 * --json, --call; the chain verified at the end or the first failure with
 * its file and line; hostile arguments printed inert and cut to the
 * terminal; colour only on a terminal without NO_COLOR; --follow across a
 * new day's file; and every usage error.
 */
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pty.h>
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

#include <jansson.h>

#include "auditlog.h"
#include "proto/sha256.h"
#include "fake.h"
#include "run.h"

/* Generous: bxctl should answer at once, on a loaded machine too. */
#define WAIT_MS		30000

struct env {
	char		*dir;
	struct alog	 log;
	char		 head[BX_HASH_HEX_LEN + 1];
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->dir = run_tempdir();
	alog_init(&e->log, e->dir);
	/* Rows in UTC, laid out for a pipe, whatever the caller's shell. */
	setenv("TZ", "UTC", 1);
	unsetenv("COLUMNS");
	unsetenv("NO_COLOR");
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	run_rmdir(e->dir);
	free(e);
	unsetenv("COLUMNS");
	return 0;
}

/* One row as bxctl lays it out without a width: each column padded. */
static void
row(char *buf, size_t size, const char *when, const char *session,
    const char *tool, const char *outcome, const char *grant,
    const char *result, const char *class, const char *taint,
    const char *args)
{
	snprintf(buf, size, "%-19s  %-18s  %-10s  %-24s  %-16s  %-14s  %-7s  "
	    "%-7s  %s\n", when, session, tool, outcome, grant, result, class,
	    taint, args);
}

/* bxctl log ARGS... --home <the test's home>; up to six words. */
static void
run_log(struct env *e, struct run_result *res, const char *a, const char *b,
    const char *c, const char *d, const char *f, const char *g)
{
	const char *args[12] = { "log", a, b, c, d, f, g, NULL };
	size_t n = 1;

	while (args[n] != NULL)
		n++;
	args[n++] = "--home";
	args[n++] = e->dir;
	args[n] = NULL;
	run_bxctl(args, e->dir, NULL, res);
}

/* The calls every test starts from: each outcome once. */
static void
calls(struct env *e)
{
	struct alog *l = &e->log;
	uint64_t d;

	d = alog_decision(l, "s1", "c1", "read_file", "{\"path\":\"/n/a.md\"}",
	    BX_OUTCOME_ALLOWED, 0, "notes");
	alog_result(l, "s1", "c1", d, BX_RESULT_STATUS_RESULT, 25,
	    BX_CLASS_PRIVATE, BX_CLASS_PRIVATE);
	alog_decision(l, "s1", "c2", "read_file", "{\"path\":\"/etc/passwd\"}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	d = alog_decision(l, "s2", "c1", "shell", "{\"command\":\"ls\"}",
	    BX_OUTCOME_ASK, 0, "sh");
	alog_approval(l, "s2", "c1", d, BX_ANSWER_APPROVED, NULL,
	    BX_OUTCOME_ASK, 0);
	alog_result(l, "s2", "c1", d, BX_RESULT_STATUS_FAILED, 5000,
	    BX_CLASS_SECRET, BX_CLASS_SECRET);
	d = alog_decision(l, "s2", "c2", "shell", "{\"command\":\"rm -rf /\"}",
	    BX_OUTCOME_ASK, 0, "sh");
	alog_approval(l, "s2", "c2", d, BX_ANSWER_REFUSED, "no",
	    BX_OUTCOME_DENIED, BX_DENY_APPROVAL_REFUSED);
	d = alog_decision(l, "s1", "c3", "http_fetch",
	    "{\"url\":\"https://x.test/\"}", BX_OUTCOME_ASK, 0, "web");
	alog_approval(l, "s1", "c3", d, BX_ANSWER_EXPIRED, NULL,
	    BX_OUTCOME_DENIED, BX_DENY_APPROVAL_EXPIRED);
	d = alog_decision(l, "s2", "c3", "read_file", "{\"path\":\"/n/b.md\"}",
	    BX_OUTCOME_ASK, 0, "notes");
	alog_approval(l, "s2", "c3", d, BX_ANSWER_APPROVED, NULL,
	    BX_OUTCOME_DENIED, BX_DENY_TAINT_TOO_HIGH);
	alog_decision(l, "s1", "c4", "write_file",
	    "{\"path\":\"/w/t.txt\",\"content\":\"x\"}", BX_OUTCOME_ALLOWED, 0,
	    "work");
	alog_decision(l, "s2", "c4", "read_file", "{\"path\":\"/n/c.md\"}",
	    BX_OUTCOME_ASK, 0, "notes");
	bx_hash_format(&e->log.prev, e->head);
}

/* The rows of calls(), in the order bxctl prints them, into buf. */
static void
all_rows(struct env *e, char *buf, size_t size, const char *abandoned)
{
	static const char *r[][9] = {
		{ "2025-09-18 10:00:00", "s1", "read_file", "allowed", "notes",
		    "result 25 B", "private", "private",
		    "{\"path\":\"/n/a.md\"}" },
		{ "2025-09-18 10:00:02", "s1", "read_file", "denied: no_grant",
		    "-", "-", "-", "-", "{\"path\":\"/etc/passwd\"}" },
		{ "2025-09-18 10:00:03", "s2", "shell", "ask: approved at the terminal",
		    "sh", "failed 4.8 KiB", "secret", "secret",
		    "{\"command\":\"ls\"}" },
		{ "2025-09-18 10:00:06", "s2", "shell", "ask: refused at the terminal",
		    "sh", "-", "-", "-", "{\"command\":\"rm -rf /\"}" },
		{ "2025-09-18 10:00:08", "s1", "http_fetch", "ask: expired",
		    "web", "-", "-", "-", "{\"url\":\"https://x.test/\"}" },
		{ "2025-09-18 10:00:10", "s2", "read_file",
		    "ask: approved at the terminal, denied: taint_too_high", "notes",
		    "-", "-", "-", "{\"path\":\"/n/b.md\"}" },
		{ "2025-09-18 10:00:12", "s1", "write_file", "allowed", "work",
		    "no result", "-", "-",
		    "{\"path\":\"/w/t.txt\",\"content\":\"x\"}" },
		{ "2025-09-18 10:00:13", "s2", "read_file", NULL, "notes", "-",
		    "-", "-", "{\"path\":\"/n/c.md\"}" },
	};
	char one[1024];
	size_t i;

	snprintf(buf, size, "%-19s  %-18s  %-10s  %-24s  %-16s  %-14s  %-7s  "
	    "%-7s  ARGUMENTS\n", "TIME", "SESSION", "TOOL", "OUTCOME",
	    "GRANT", "RESULT", "CLASS", "TAINT");
	for (i = 0; i < 8; i++) {
		row(one, sizeof(one), r[i][0], r[i][1], r[i][2],
		    r[i][3] != NULL ? r[i][3] : abandoned, r[i][4], r[i][5],
		    r[i][6], r[i][7], r[i][8]);
		strncat(buf, one, size - strlen(buf) - 1);
	}
	snprintf(one, sizeof(one), "chain: verified, 14 records, head %s\n",
	    e->head);
	strncat(buf, one, size - strlen(buf) - 1);
}

static void
test_rows(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char want[8192];

	calls(e);
	/* No brokerd: nothing pends, so the unanswered ask was abandoned. */
	all_rows(e, want, sizeof(want), "ask: abandoned");
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_string_equal(res.out, want);
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

/* brokerd's approvals tell a pending ask from an abandoned one. */
static void
test_pending_ask(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char path[4096], want[8192], list[1024];
	struct fake *admin;

	calls(e);
	snprintf(path, sizeof(path), "%s/run", e->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/run/owner-broker", e->dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/run/owner-broker/admin.sock", e->dir);
	admin = fake_admin_start(path);
	snprintf(list, sizeof(list), "{\"kind\":\"approval_list\",\"items\":"
	    "[{\"approval\":13,\"session\":\"s2\",\"call\":\"c4\","
	    "\"tool\":\"read_file\",\"arguments\":\"{}\",\"grant\":\"notes\","
	    "\"taint\":\"private\",\"created\":\"2025-09-18T10:00:13.000Z\","
	    "\"expires\":\"2099-09-18T10:15:13.000Z\"}]}");
	fake_admin_reply(admin, "approvals", list);
	all_rows(e, want, sizeof(want), "ask: pending");
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_string_equal(res.out, want);
	assert_int_equal(res.status, 0);
	run_result_free(&res);
	/* A brokerd that cannot be asked: neither is claimed. */
	fake_admin_reply(admin, "approvals", NULL);
	all_rows(e, want, sizeof(want), "ask: unanswered");
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_string_equal(res.out, want);
	run_result_free(&res);
	fake_stop(admin);
}

/* The number of rows (lines but the title and the verdict). */
static int
rows(const struct run_result *res)
{
	const char *p;
	int n = 0;

	for (p = res->out; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	return n - 2;
}

static void
expect_rows(struct env *e, int want, const char *a, const char *b,
    const char *c, const char *d)
{
	struct run_result res;

	run_log(e, &res, a, b, c, d, NULL, NULL);
	if (res.status != 0 || rows(&res) != want)
		fail_msg("log %s %s %s %s: status %d, %d rows, want %d:\n%s%s",
		    a, b ? b : "", c ? c : "", d ? d : "", res.status,
		    rows(&res), want, res.out, res.err);
	run_result_free(&res);
}

static void
test_filters(void **state)
{
	struct env *e = *state;
	struct run_result res;

	calls(e);
	expect_rows(e, 4, "--session", "s1", NULL, NULL);
	expect_rows(e, 0, "--session", "s3", NULL, NULL);
	expect_rows(e, 4, "--tool", "read_file", NULL, NULL);
	expect_rows(e, 2, "--tool", "read_file", "--session", "s2");
	expect_rows(e, 2, "--outcome", "allowed", NULL, NULL);
	expect_rows(e, 5, "--outcome", "ask", NULL, NULL);
	/* Denied at the decision, refused, expired, re-decided denied. */
	expect_rows(e, 4, "--outcome", "denied", NULL, NULL);
	expect_rows(e, 1, "--outcome", "failed", NULL, NULL);
	expect_rows(e, 2, "--since", "2025-09-18T10:00:08Z", "--until",
	    "2025-09-18T12:00:10.5+02:00");
	expect_rows(e, 8, "--since", "36500d", NULL, NULL);
	expect_rows(e, 0, "--since", "1h", NULL, NULL);
	expect_rows(e, 2, "-n", "2", NULL, NULL);
	expect_rows(e, 1, "-n", "1", "--session", "s1");
	/* -n keeps the last rows, in order. */
	run_log(e, &res, "-n", "2", NULL, NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "write_file"));
	assert_true(strstr(res.out, "write_file") < strstr(res.out,
	    "{\"path\":\"/n/c.md\"}"));
	assert_null(strstr(res.out, "rm -rf"));
	run_result_free(&res);
}

static json_t *
json_line(const char *line)
{
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr);

	if (o == NULL)
		fail_msg("not JSON: %s (%s)", line, jerr.text);
	return o;
}

static void
test_json(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char *line, *next;
	json_t *o;
	int n = 0;

	calls(e);
	run_log(e, &res, "--json", NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	for (line = res.out; *line != '\0'; line = next, n++) {
		next = strchr(line, '\n');
		assert_non_null(next);
		*next++ = '\0';
		o = json_line(line);
		if (n == 2) {
			assert_string_equal(json_string_value(json_object_get(o,
			    "type")), "call");
			assert_string_equal(json_string_value(json_object_get(o,
			    "time")), "2025-09-18T10:00:03.000Z");
			assert_string_equal(json_string_value(json_object_get(o,
			    "answer")), "approved");
			assert_string_equal(json_string_value(json_object_get(o,
			    "status")), "failed");
			assert_int_equal(json_integer_value(json_object_get(o,
			    "bytes")), 5000);
			assert_string_equal(json_string_value(json_object_get(o,
			    "taint_after")), "secret");
			assert_int_equal(json_integer_value(json_object_get(o,
			    "decision")), 3);
		}
		if (n == 3)
			assert_string_equal(json_string_value(json_object_get(o,
			    "reason")), "approval_refused");
		if (n == 8) {
			assert_string_equal(json_string_value(json_object_get(o,
			    "type")), "verified");
			assert_int_equal(json_integer_value(json_object_get(o,
			    "records")), 14);
		}
		json_decref(o);
	}
	assert_int_equal(n, 9);
	run_result_free(&res);
}

static void
test_call(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char want[4096];

	calls(e);
	/* c1 is a call id in both sessions. */
	run_log(e, &res, "--call", "c1", NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "decision 0 at 2025-09-18 10:00:00 "
	    "(2025-09-18.jsonl:1)\n  session      s1\n"));
	assert_non_null(strstr(res.out, "\ndecision 3 at "));
	assert_non_null(strstr(res.out, "\napproval 4 at "));
	assert_non_null(strstr(res.out, "\nresult 5 at 2025-09-18 10:00:05 "
	    "(2025-09-18.jsonl:6)\n  decision     3\n  status       failed\n"
	    "  class        secret\n"));
	run_result_free(&res);

	run_log(e, &res, "--call", "c2", "--session", "s2", NULL, NULL);
	snprintf(want, sizeof(want), "decision 6 at 2025-09-18 10:00:06 "
	    "(2025-09-18.jsonl:7)\n");
	assert_memory_equal(res.out, want, strlen(want));
	assert_non_null(strstr(res.out, "  reason       no\n  outcome      "
	    "denied: approval_refused\n"));
	assert_null(strstr(res.out, "/etc/passwd"));
	run_result_free(&res);

	run_log(e, &res, "--call", "c1", "--json", NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_memory_equal(res.out, "{\"file\":\"2025-09-18.jsonl\",\"line\":1,"
	    "\"record\":{\"seq\":0,", 50);
	run_result_free(&res);

	run_log(e, &res, "--call", "c9", NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "");
	assert_string_equal(res.err, "bxctl: no record of a call c9 in the "
	    "log\n");
	run_result_free(&res);
}

/* A chain that breaks: the calls before it, then where, exit 1. */
static void
test_broken_chain(void **state)
{
	struct env *e = *state;
	struct run_result res;

	calls(e);
	e->log.prev.bytes[0] ^= 1;
	alog_decision(&e->log, "s3", "c1", "read_file", "{}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "{\"path\":\"/n/c.md\"}\nchain: broken "
	    "at 2025-09-18.jsonl:15: prev is not the hash of the line before\n"
	    "bxctl log stops there; see docs/runbook.md#audit-chain-broken\n"));
	assert_null(strstr(res.out, "s3"));
	run_result_free(&res);
	run_log(e, &res, "--json", NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "{\"type\":\"broken\",\"file\":"
	    "\"2025-09-18.jsonl\",\"line\":15,\"what\":\"prev is not the hash "
	    "of the line before\"}\n"));
	run_result_free(&res);
}

/* A recovered line and an accepted break have rows of their own. */
static void
test_recovery_and_break(void **state)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };
	struct env *e = *state;
	struct run_result res;
	const char torn[] = "{\"seq\":1,\"time\":\"2025";

	alog_decision(&e->log, "s1", "c1", "read_file", "{}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	alog_raw(&e->log, torn, sizeof(torn) - 1);
	alog_raw(&e->log, "\n", 1);
	ev.recovery.torn_bytes = sizeof(torn) - 1;
	assert_int_equal(bx_sha256(torn, sizeof(torn) - 1,
	    &ev.recovery.torn_sha256, NULL), 0);
	alog_event(&e->log, &ev);
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "2025-09-18 10:00:01  recovered: "
	    "2025-09-18.jsonl:2 was a torn line (21 bytes), never a record; "
	    "the Recovery record after it says so\n"));
	run_result_free(&res);
	/* Records that are no call are left out by a call filter. */
	run_log(e, &res, "--session", "s1", NULL, NULL, NULL, NULL);
	assert_null(strstr(res.out, "recovered"));
	run_result_free(&res);
}

/* The first byte a terminal would act on, anywhere in out. */
static void
assert_inert(const struct run_result *res)
{
	long at = run_find_control(res->out, res->outlen);

	if (at != -1)
		fail_msg("a control at byte %ld of the output", at);
}

static void
test_hostile_arguments(void **state)
{
	struct env *e = *state;
	struct run_result res;
	size_t big = 1024 * 1024, i;
	char *args, *p;

	args = malloc(big + 64);
	assert_non_null(args);
	strcpy(args, "{\"x\":\"\x1b[2J\x1b]0;owned\x07 \xe2\x80\xae"
	    "evil\xe2\x80\x8b\xc2\x9b\x7f\"");
	for (i = strlen(args); i < big; i++)
		args[i] = 'a';
	strcpy(args + big, "\"}");
	alog_decision(&e->log, "s1", "c1", "shell\x1b[31m", args,
	    BX_OUTCOME_DENIED, BX_DENY_INVALID_ARGUMENTS, NULL);
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_inert(&res);
	assert_non_null(strstr(res.out, "shell\\u001b[31m"));
	assert_non_null(strstr(res.out, "{\"x\":\"\\u001b[2J\\u001b]0;owned"
	    "\\u0007 \\u202eevil\\u200b\\u009b\\u007f"));
	/* Without a width, every byte is there. */
	assert_true(res.outlen > big);
	run_result_free(&res);

	/* On an 80-column terminal the row is cut to 80, with "...". */
	setenv("COLUMNS", "80", 1);
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	p = strchr(res.out, '\n') + 1;
	assert_true(strchr(p, '\n') - p <= 80);
	assert_memory_equal(strchr(p, '\n') - 3, "...", 3);
	assert_inert(&res);
	run_result_free(&res);

	/* --call and --json print it all, inert. */
	run_log(e, &res, "--call", "c1", NULL, NULL, NULL, NULL);
	assert_inert(&res);
	assert_true(res.outlen > big);
	run_result_free(&res);
	run_log(e, &res, "--json", NULL, NULL, NULL, NULL, NULL);
	assert_inert(&res);
	assert_non_null(strstr(res.out, "\\u001b[2J"));
	assert_non_null(strstr(res.out, "\\u202eevil\\u200b\\u009b\\u007f"));
	run_result_free(&res);
	free(args);
}

/* bxctl log on a terminal of cols columns: its output (a pty's). */
static char *
log_on_tty(struct env *e, unsigned short cols, bool no_color)
{
	struct winsize ws = { 24, cols, 0, 0 };
	char path[4096], *out = NULL;
	size_t len = 0;
	struct pollfd p;
	char buf[4096];
	ssize_t n;
	int fd, status;
	pid_t pid;

	snprintf(path, sizeof(path), "%s/src/bxctl/bxctl",
	    getenv("BX_BUILD_ROOT"));
	pid = forkpty(&fd, NULL, NULL, &ws);
	assert_true(pid != -1);
	if (pid == 0) {
		if (no_color)
			setenv("NO_COLOR", "", 1);
		execl(path, "bxctl", "log", "--home", e->dir, (char *)NULL);
		_exit(127);
	}
	p.fd = fd;
	p.events = POLLIN;
	/* Until the pty hangs up: the child's output, all of it. */
	while (poll(&p, 1, WAIT_MS) == 1 &&
	    (n = read(fd, buf, sizeof(buf))) > 0) {
		assert_non_null(out = realloc(out, len + (size_t)n + 1));
		memcpy(out + len, buf, (size_t)n);
		len += (size_t)n;
		out[len] = '\0';
	}
	close(fd);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_non_null(out);
	return out;
}

/* The columns line takes on a terminal: its characters, SGR left out. */
static size_t
shown_width(const char *line)
{
	size_t n = 0;

	while (*line != '\0' && *line != '\r' && *line != '\n') {
		if (*line == '\033') {
			line += strcspn(line, "m") + 1;
			continue;
		}
		if (((unsigned char)*line & 0xc0) != 0x80)
			n++;
		line++;
	}
	return n;
}

static void
test_terminal(void **state)
{
	struct env *e = *state;
	char *out, *line;

	calls(e);
	out = log_on_tty(e, 100, false);
	assert_non_null(strstr(out, "\033[32mallowed"));
	assert_non_null(strstr(out, "\033[31mdenied: no_grant"));
	/* Every line fits the terminal's 100 columns. */
	for (line = out; *line != '\0'; line = strchr(line, '\n') + 1)
		assert_true(shown_width(line) <= 100);
	free(out);
	out = log_on_tty(e, 100, true);
	assert_null(strchr(out, '\033'));
	for (line = out; *line != '\0'; line = strchr(line, '\n') + 1)
		assert_true(strcspn(line, "\r\n") <= 100);
	/* The rows were cut to the terminal, with "...". */
	assert_non_null(strstr(out, "...  "));
	free(out);
}

/* Reads fd into buf until it holds want, or fails after WAIT_MS. */
static void
await(int fd, char *buf, size_t size, size_t *len, const char *want)
{
	struct timespec t0, t;
	struct pollfd p = { fd, POLLIN, 0 };
	ssize_t n;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (strstr(buf, want) == NULL) {
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((t.tv_sec - t0.tv_sec) * 1000 > WAIT_MS)
			fail_msg("--follow never printed \"%s\"; it printed:\n%s",
			    want, buf);
		if (poll(&p, 1, 1000) != 1)
			continue;
		n = read(fd, buf + *len, size - *len - 1);
		if (n <= 0)
			fail_msg("--follow ended; it printed:\n%s", buf);
		*len += (size_t)n;
		buf[*len] = '\0';
	}
}

static void
test_follow(void **state)
{
	struct env *e = *state;
	char path[4096], buf[65536] = "";
	size_t len = 0;
	int out[2], status;
	uint64_t d;
	pid_t pid;

	d = alog_decision(&e->log, "s1", "c1", "read_file", "{\"n\":1}",
	    BX_OUTCOME_ALLOWED, 0, "notes");
	snprintf(path, sizeof(path), "%s/src/bxctl/bxctl",
	    getenv("BX_BUILD_ROOT"));
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		dup2(out[1], 1);
		execl(path, "bxctl", "log", "--follow", "--home", e->dir,
		    (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	await(out[0], buf, sizeof(buf), &len, "TIME ");
	/* Its result ends the call, which shows at once. */
	alog_result(&e->log, "s1", "c1", d, BX_RESULT_STATUS_RESULT, 7,
	    BX_CLASS_PRIVATE, BX_CLASS_PRIVATE);
	await(out[0], buf, sizeof(buf), &len, "result 7 B");
	alog_decision(&e->log, "s1", "c2", "read_file", "{\"n\":2}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	await(out[0], buf, sizeof(buf), &len, "{\"n\":2}");
	/* An ask shows as it starts to wait, and again once answered. */
	d = alog_decision(&e->log, "s1", "c4", "shell", "{\"n\":4}",
	    BX_OUTCOME_ASK, 0, "sh");
	await(out[0], buf, sizeof(buf), &len, "ask: waiting");
	alog_approval(&e->log, "s1", "c4", d, BX_ANSWER_REFUSED, NULL,
	    BX_OUTCOME_DENIED, BX_DENY_APPROVAL_REFUSED);
	await(out[0], buf, sizeof(buf), &len, "ask: refused at the terminal");
	/* The next day's file. */
	e->log.time += ALOG_DAY_MS;
	alog_decision(&e->log, "s1", "c3", "read_file", "{\"n\":3}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	await(out[0], buf, sizeof(buf), &len, "2025-09-19 10:00:05  s1");
	/* An answer from Mattermost says who gave it and in which post. */
	d = alog_decision(&e->log, "s1", "c5", "shell", "{\"n\":5}",
	    BX_OUTCOME_ASK, 0, "sh");
	alog_approval_from(&e->log, "s1", "c5", d, BX_ANSWER_REFUSED, NULL,
	    BX_OUTCOME_DENIED, BX_DENY_APPROVAL_REFUSED,
	    "kz8f3q1xwbyn5c7tdm2re4hs6a", "p9w2c7dj4xkqm8rf3nt6ybz1ve");
	await(out[0], buf, sizeof(buf), &len, "ask: refused in Mattermost by "
	    "kz8f3q1xwbyn5c7tdm2re4hs6a (post p9w2c7dj4xkqm8rf3nt6ybz1ve)");
	/* A break in the chain ends it, naming where. */
	alog_raw(&e->log, "garbage\n", 8);
	await(out[0], buf, sizeof(buf), &len, "chain: broken at "
	    "2025-09-19.jsonl:4: not an audit record");
	/* Nothing was shown twice but the waiting ask. */
	assert_null(strstr(strstr(buf, "{\"n\":2}") + 1, "{\"n\":2}"));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 1);
	close(out[0]);
}

static void
test_usage(void **state)
{
	static const char *cases[][3] = {
		{ "--outcome", "maybe", "--outcome 'maybe': give allowed, ask, "
		    "denied or failed" },
		{ "-n", "0", "-n '0': give a number from 1 to 100000" },
		{ "-n", "x", "-n 'x': give a number" },
		{ "--since", "yesterday", "--since: 'yesterday' is not a time" },
		{ "--until", "2025-02-30T00:00:00Z", "--until: '2025-02-30" },
		{ "--session", "Bad/Id", "--session: " },
		{ "--call", "a b", "--call: " },
		{ "extra", NULL, "unexpected argument 'extra'" },
	};
	struct env *e = *state;
	struct run_result res;
	char want[256];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		run_log(e, &res, cases[i][0], cases[i][1], NULL, NULL, NULL,
		    NULL);
		snprintf(want, sizeof(want), "bxctl log: %s", cases[i][2]);
		if (res.status != 2 || strncmp(res.err, want, strlen(want)) != 0)
			fail_msg("case %zu: status %d, stderr %s", i,
			    res.status, res.err);
		assert_string_equal(res.out, "");
		run_result_free(&res);
	}
	run_log(e, &res, "--call", "c1", "--tool", "shell", NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "--call prints every record of one "
	    "call"));
	run_result_free(&res);
	run_log(e, &res, "--since", "1h", "--until", "2h", NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "--since is after --until"));
	run_result_free(&res);
	/* No audit directory: a failure, not a usage error. */
	rmdir(e->log.dir);
	run_log(e, &res, NULL, NULL, NULL, NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "cannot open"));
	run_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_rows, setup, teardown),
		cmocka_unit_test_setup_teardown(test_pending_ask, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_filters, setup, teardown),
		cmocka_unit_test_setup_teardown(test_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_call, setup, teardown),
		cmocka_unit_test_setup_teardown(test_broken_chain, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_recovery_and_break, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_hostile_arguments, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_terminal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_usage, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
