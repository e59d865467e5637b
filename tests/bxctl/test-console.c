/*
 * test-console.c: bxctl sessions, grants list, explain and status, run as
 * the real binary against a fake brokerd admin socket (and a fake loopd
 * for status): the rows and lines printed, the frames sent, --json, what
 * brokerd's strings become (inert, whatever they hold), the exit status
 * and each failure: brokerd not running, an error answer, bad arguments.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <jansson.h>

#include "auditlog.h"
#include "bxctl/common/show.h"
#include "fake.h"
#include "run.h"

struct env {
	char		*dir;
	char		 admin_path[512];
	char		 loop_path[512];
	struct fake	*admin;
};

static void
mkdirs(const char *dir, const char *sub)
{
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, sub);
	assert_int_equal(mkdir(path, 0700), 0);
}

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->dir = run_tempdir();
	mkdirs(e->dir, "run");
	mkdirs(e->dir, "run/owner-broker");
	mkdirs(e->dir, "run/owner-loop");
	snprintf(e->admin_path, sizeof(e->admin_path),
	    "%s/run/owner-broker/admin.sock", e->dir);
	snprintf(e->loop_path, sizeof(e->loop_path),
	    "%s/run/owner-loop/loop.sock", e->dir);
	e->admin = fake_admin_start(e->admin_path);
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

	fake_stop(e->admin);
	run_rmdir(e->dir);
	free(e);
	return 0;
}

/* bxctl ARGS... with the test's home as BOXMAKER_HOME. */
static void
run5(struct env *e, struct run_result *res, const char *a, const char *b,
    const char *c, const char *d, const char *f)
{
	const char *args[6] = { a, b, c, d, f, NULL };

	run_bxctl(args, e->dir, NULL, res);
}

static void
run(struct env *e, struct run_result *res, const char *a, const char *b,
    const char *c, const char *d)
{
	const char *args[5] = { a, b, c, d, NULL };

	run_bxctl(args, e->dir, NULL, res);
}

/* out starts with want. */
static void
assert_starts(const char *out, const char *want)
{
	if (strncmp(out, want, strlen(want)) != 0)
		fail_msg("the output:\n%s\ndoes not start with:\n%s", out, want);
}

static void
assert_inert(const struct run_result *res)
{
	long at = run_find_control(res->out, res->outlen);

	if (at != -1)
		fail_msg("a control at byte %ld of:\n%s", at, res->out);
}

/* A Timestamp ms from now, into buf (BX_TIME_LEN + 1 bytes). */
static char *
from_now(char *buf, int64_t ms)
{
	bx_time_format(show_now() + ms, buf);
	return buf;
}

static void
test_sessions(void **state)
{
	struct env *e = *state;
	struct run_result res;

	fake_admin_reply(e->admin, "sessions", "{\"kind\":\"session_list\","
	    "\"total\":1500,\"items\":[{\"session\":\"demo-1\",\"taint\":"
	    "\"private\",\"untrusted\":false,\"calls\":0,\"last_call\":null},"
	    "{\"session\":\"chat-1758200000000\",\"taint\":\"secret\","
	    "\"untrusted\":true,\"calls\":12,\"last_call\":"
	    "\"2025-09-18T12:00:00.000Z\"}]}");
	run(e, &res, "sessions", NULL, NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(fake_received(e->admin, 0), "{\"kind\":\"sessions\"}");
	assert_starts(res.out, "SESSION               TAINT    UNTRUSTED  "
	    "CALLS     LAST CALL\n"
	    "demo-1                private  no         0         -\n"
	    "chat-1758200000000    secret   yes        12        2025-09-18 "
	    "12:00:00 (");
	assert_non_null(strstr(res.out, " d ago)\nsessions: 1500 in all; the 2 "
	    "last called are shown\n"));
	run_result_free(&res);

	run(e, &res, "sessions", "--json", NULL, NULL);
	assert_string_equal(res.out, "{\"session\":\"demo-1\",\"taint\":"
	    "\"private\",\"untrusted\":false,\"calls\":0,\"last_call\":null}\n"
	    "{\"session\":\"chat-1758200000000\",\"taint\":\"secret\","
	    "\"untrusted\":true,\"calls\":12,\"last_call\":"
	    "\"2025-09-18T12:00:00.000Z\"}\n");
	run_result_free(&res);

	fake_admin_reply(e->admin, "sessions", "{\"kind\":\"session_list\","
	    "\"total\":0,\"items\":[]}");
	run(e, &res, "sessions", NULL, NULL, NULL);
	assert_string_equal(res.out, "sessions: none\n");
	run_result_free(&res);

	/* brokerd's error comes through, escaped. */
	fake_admin_reply(e->admin, "sessions", "{\"kind\":\"error\",\"code\":"
	    "\"unavailable\",\"message\":\"the audit log does not verify "
	    "\\u001b[2J\"}");
	run(e, &res, "sessions", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.err, "bxctl: brokerd answered error "
	    "unavailable: the audit log does not verify \\u001b[2J\n");
	run_result_free(&res);
}

static void
test_grants_list(void **state)
{
	struct env *e = *state;
	char list[4096], soon[BX_TIME_LEN + 1], later[BX_TIME_LEN + 1];
	struct run_result res;

	snprintf(list, sizeof(list), "{\"kind\":\"grant_list\",\"grants\":["
	    "{\"id\":\"old\",\"tool\":\"read_file\",\"mode\":\"auto\","
	    "\"max_taint\":\"secret\",\"result_class\":\"private\","
	    "\"untrusted\":false,\"expires\":\"2020-01-01T00:00:00.000Z\","
	    "\"paths\":[\"/a\",\"/b\\u001b[31m\\u202e\"],\"hosts\":[]},"
	    "{\"id\":\"soon\",\"tool\":\"http_fetch\",\"mode\":\"ask\","
	    "\"max_taint\":\"public\",\"result_class\":\"public\","
	    "\"untrusted\":true,\"expires\":\"%s\",\"paths\":[],"
	    "\"hosts\":[\"*.example.org\"]},"
	    "{\"id\":\"later\",\"tool\":\"shell\",\"mode\":\"deny\","
	    "\"max_taint\":\"secret\",\"result_class\":\"secret\","
	    "\"untrusted\":false,\"expires\":\"%s\",\"paths\":[],"
	    "\"hosts\":[]}],\"problems\":[]}",
	    from_now(soon, 3 * 86400000LL + 3600000),
	    from_now(later, 30 * 86400000LL));
	fake_admin_reply(e->admin, "list_grants", list);
	run(e, &res, "grants", "list", NULL, NULL);
	assert_int_equal(res.status, 0);
	assert_inert(&res);
	assert_string_equal(fake_received(e->admin, 0),
	    "{\"kind\":\"list_grants\"}");
	assert_starts(res.out, "ID                TOOL        MODE  "
	    "MAX_TAINT  RESULT_CLASS  UNTRUSTED  EXPIRES                     "
	    "    PATHS OR HOSTS\nold               read_file   auto  secret"
	    "     private       no         2020-01-01 00:00:00 (expired)   "
	    "/a, /b\\u001b[31m\\u202e\n");
	assert_non_null(strstr(res.out, "(in 3 d)    *.example.org\n"));
	assert_non_null(strstr(res.out, "\nlater             shell       deny "
	    " secret     secret        no         "));
	run_result_free(&res);

	/*
	 * An id longer than the column's 16 (bxctl approve --for writes
	 * them) widens it, on a terminal's width too.
	 */
	fake_admin_reply(e->admin, "list_grants", "{\"kind\":\"grant_list\","
	    "\"grants\":[{\"id\":\"approved-read-file-12\",\"tool\":"
	    "\"read_file\",\"mode\":\"auto\",\"max_taint\":\"secret\","
	    "\"result_class\":\"private\",\"untrusted\":false,\"expires\":"
	    "\"2020-01-01T00:00:00.000Z\",\"paths\":[\"/a\"],\"hosts\":[]}],"
	    "\"problems\":[]}");
	setenv("COLUMNS", "160", 1);
	run(e, &res, "grants", "list", NULL, NULL);
	unsetenv("COLUMNS");
	assert_int_equal(res.status, 0);
	assert_starts(res.out, "ID                     TOOL        MODE  ");
	assert_non_null(strstr(res.out, "\napproved-read-file-12  read_file   "
	    "auto  "));
	run_result_free(&res);

	/* Problems: listed with their line, and exit 1. */
	fake_admin_reply(e->admin, "list_grants", "{\"kind\":\"grant_list\","
	    "\"grants\":[],\"problems\":[{\"file\":\"/g/x.toml\",\"line\":3,"
	    "\"problem\":\"unknown key \\\"\\u001b]0;x\\u0007\\\"\"}]}");
	run(e, &res, "grants", "list", NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "grants: none\nproblem: /g/x.toml:3: "
	    "unknown key \"\\u001b]0;x\\u0007\"\ngrants: invalid, so every "
	    "call is denied; see docs/runbook.md#grants-invalid\n");
	run_result_free(&res);
	run(e, &res, "grants", "list", "--json", NULL);
	assert_int_equal(res.status, 1);
	assert_string_equal(res.out, "{\"type\":\"problem\",\"file\":"
	    "\"/g/x.toml\",\"line\":3,\"problem\":\"unknown key "
	    "\\\"\\u001b]0;x\\u0007\\\"\"}\n");
	run_result_free(&res);
}

static const char explanation[] = "{\"kind\":\"explanation\",\"session\":"
    "\"s-1\",\"taint\":\"secret\",\"untrusted\":true,\"now\":"
    "\"2026-09-18T12:00:00.000Z\",\"outcome\":{\"outcome\":\"ask\"},"
    "\"detail\":null,\"grant\":{\"id\":\"notes\",\"mode\":\"ask\","
    "\"result_class\":\"private\",\"untrusted\":false,\"matched_path\":"
    "\"/n\\u001b[2J\"},\"candidates\":[{\"grant\":\"docs\",\"mode\":"
    "\"auto\",\"verdict\":\"not_covered\",\"why\":\"ruled out: path "
    "/n/a\\u202e is not inside its paths [/docs]\"},{\"grant\":\"notes\","
    "\"mode\":\"ask\",\"verdict\":\"matched\",\"why\":\"matched\"}],"
    "\"problems\":[]}";

static void
test_explain(void **state)
{
	struct env *e = *state;
	struct run_result res;
	const char *args[6];
	char *big;

	fake_admin_reply(e->admin, "explain", explanation);
	run(e, &res, "explain", "read_file", "{\"path\":\"/n/a\xe2\x80\xae\"}",
	    NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(fake_received(e->admin, 0), "{\"kind\":\"explain\","
	    "\"session\":\"bxctl-explain\",\"tool\":\"read_file\","
	    "\"arguments\":\"{\\\"path\\\":\\\"/n/a\xe2\x80\xae\\\"}\"}");
	assert_string_equal(res.out, "session: s-1 (taint secret, untrusted)\n"
	    "outcome: ask\n"
	    "grant: notes (ask, result_class private, untrusted false, "
	    "matched path /n\\u001b[2J)\n"
	    "candidates:\n"
	    "  docs (auto): ruled out: path /n/a\\u202e is not inside its "
	    "paths [/docs]\n"
	    "  notes (ask): matched\n");
	run_result_free(&res);

	run5(e, &res, "explain", "--session", "s-1", "read_file", "{}");
	assert_int_equal(res.status, 0);
	assert_string_equal(fake_received(e->admin, 1), "{\"kind\":\"explain\","
	    "\"session\":\"s-1\",\"tool\":\"read_file\",\"arguments\":\"{}\"}");
	run_result_free(&res);

	run(e, &res, "explain", "read_file", "{}", "--json");
	assert_int_equal(res.status, 0);
	assert_starts(res.out, "{\"session\":\"s-1\",\"taint\":\"secret\","
	    "\"untrusted\":true,\"now\":\"2026-09-18T12:00:00.000Z\","
	    "\"outcome\":\"ask\",\"reason\":null,\"detail\":null,\"grant\":"
	    "{\"id\":\"notes\",");
	assert_inert(&res);
	run_result_free(&res);

	/* The longest argument the kernel passes, all escapes, fits. */
	big = malloc(120 * 1024);
	assert_non_null(big);
	memset(big, '\x1b', 120 * 1024 - 1);
	big[120 * 1024 - 1] = '\0';
	args[0] = "explain";
	args[1] = "shell";
	args[2] = big;
	args[3] = NULL;
	run_bxctl(args, e->dir, NULL, &res);
	assert_int_equal(res.status, 0);
	assert_true(strlen(fake_received(e->admin, 3)) > 6 * 120 * 1024);
	run_result_free(&res);
	free(big);
	run(e, &res, "explain", "read_file", NULL, NULL);
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "bxctl explain: missing TOOL and "
	    "ARGUMENTS_JSON\n"));
	run_result_free(&res);
	run(e, &res, "explain", "read_file", "\xff", NULL);
	assert_int_equal(res.status, 2);
	run_result_free(&res);
	run5(e, &res, "explain", "--session", "Bad!", "shell", "{}");
	assert_int_equal(res.status, 2);
	assert_non_null(strstr(res.err, "bxctl explain: --session: "));
	run_result_free(&res);
}

/* The answers of a healthy brokerd for status. */
static void
healthy(struct env *e, const char *version, const char *approvals)
{
	char status[1024], started[BX_TIME_LEN + 1], now[BX_TIME_LEN + 1];

	snprintf(status, sizeof(status), "{\"kind\":\"broker_status\","
	    "\"version\":\"%s\",\"runtime\":\"podman\",\"started\":\"%s\","
	    "\"now\":\"%s\"}", version, from_now(started, -7200500),
	    from_now(now, 0));
	fake_admin_reply(e->admin, "status", status);
	fake_admin_reply(e->admin, "list_grants", "{\"kind\":\"grant_list\","
	    "\"grants\":[],\"problems\":[]}");
	fake_admin_reply(e->admin, "approvals", approvals);
	fake_admin_reply(e->admin, "sessions", "{\"kind\":\"session_list\","
	    "\"total\":3,\"items\":[]}");
}

#define JAIL_UID	4242

/*
 * loop.sock as a jailed loopd serves it: listened on by another uid, which
 * is what SO_PEERCRED reports to bxctl. Returns the listener's pid once it
 * listens.
 */
static pid_t
jailed_loop_start(const char *path)
{
	struct sockaddr_un sun;
	int fd, c, ready[2];
	pid_t pid;
	char b;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	snprintf(sun.sun_path, sizeof(sun.sun_path), "%s", path);
	assert_true((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) >= 0);
	unlink(path);
	assert_int_equal(bind(fd, (struct sockaddr *)&sun, sizeof(sun)), 0);
	assert_int_equal(pipe(ready), 0);
	assert_true((pid = fork()) != -1);
	if (pid == 0) {
		if (setresgid(JAIL_UID, JAIL_UID, JAIL_UID) == -1 ||
		    setresuid(JAIL_UID, JAIL_UID, JAIL_UID) == -1 ||
		    listen(fd, 8) == -1 || write(ready[1], "r", 1) != 1)
			_exit(1);
		for (;;)
			if ((c = accept(fd, NULL, NULL)) >= 0)
				close(c);
	}
	close(ready[1]);
	assert_int_equal(read(ready[0], &b, 1), 1);
	close(ready[0]);
	close(fd);
	return pid;
}

static void
jailed_loop_stop(pid_t pid, const char *path)
{
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	unlink(path);
}

/* A loopd that answers as the owner's uid runs without its jail. */
static void
test_status_unjailed(void **state)
{
	struct env *e = *state;
	struct run_result res;
	struct fake *loop;

	loop = fake_loop_start(e->loop_path, NULL);
	healthy(e, "0.3.0", "{\"kind\":\"approval_list\",\"items\":[]}");
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "loopd      up, its turn loop not "
	    "jailed (it runs as you)\n"));
	assert_non_null(strstr(res.out, "needs you: loopd's turn loop runs as "
	    "you, not in its jail ([jail] mode = \"off\"); see "
	    "docs/runbook.md#jail-off\n"));
	run_result_free(&res);
	run(e, &res, "status", "--json", NULL, NULL);
	assert_non_null(strstr(res.out, "\"loopd\":{\"up\":true,\"jailed\":"
	    "false}"));
	run_result_free(&res);
	fake_stop(loop);
}

/* One GrantInfo, expiring at ms from now. */
static void
grant_info(char *buf, size_t size, const char *id, int64_t ms)
{
	char when[BX_TIME_LEN + 1];

	snprintf(buf, size, "{\"id\":\"%s\",\"tool\":\"read_file\","
	    "\"mode\":\"auto\",\"max_taint\":\"private\",\"result_class\":"
	    "\"private\",\"untrusted\":false,\"expires\":\"%s\",\"paths\":"
	    "[\"/home/kyle/a\"],\"hosts\":[]}", id, from_now(when, ms));
}

/*
 * Expired grants counted; those of approve --for expired over 7 days
 * named as what grants prune removes. Nothing needs the owner for it.
 */
static void
test_status_expired_grants(void **state)
{
	char list[2048], g[4][400];
	struct env *e = *state;
	struct run_result res;
	pid_t loop;

	grant_info(g[0], sizeof(g[0]), "approved-read-file-1",
	    -30LL * 86400000);
	grant_info(g[1], sizeof(g[1]), "approved-read-file-2", -86400000);
	grant_info(g[2], sizeof(g[2]), "notes", -30LL * 86400000);
	grant_info(g[3], sizeof(g[3]), "notes-live", 86400000);
	snprintf(list, sizeof(list), "{\"kind\":\"grant_list\",\"grants\":"
	    "[%s,%s,%s,%s],\"problems\":[]}", g[0], g[1], g[2], g[3]);
	loop = jailed_loop_start(e->loop_path);
	healthy(e, "0.3.0", "{\"kind\":\"approval_list\",\"items\":[]}");
	fake_admin_reply(e->admin, "list_grants", list);
	run(e, &res, "status", NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "grants     ok: 4 grants, 3 expired\n"
	    "           1 of them approve --for's, expired over 7 d ago: bxctl "
	    "grants prune removes them, and every call reads fewer files\n"));
	/* Not something that needs the owner: no line of its own. */
	assert_null(strstr(res.out, "needs you: 1 of them"));
	assert_null(strstr(res.out, "needs you: grant"));
	run_result_free(&res);
	run(e, &res, "status", "--json", NULL, NULL);
	assert_non_null(strstr(res.out, "\"grants\":{\"grants\":4,"
	    "\"expired\":3,\"prunable\":1,\"problems\":0}"));
	run_result_free(&res);
	jailed_loop_stop(loop, e->loop_path);
}

static void
test_status(void **state)
{
	struct env *e = *state;
	struct run_result res;
	pid_t loop;
	struct alog log;
	char head[128], want[2048], pending[1024], created[BX_TIME_LEN + 1];

	alog_init(&log, e->dir);
	alog_decision(&log, "s1", "c1", "read_file", "{}", BX_OUTCOME_DENIED,
	    BX_DENY_NO_GRANT, NULL);
	bx_hash_format(&log.prev, head);
	loop = jailed_loop_start(e->loop_path);
	healthy(e, "0.3.0", "{\"kind\":\"approval_list\",\"items\":[]}");
	run(e, &res, "status", NULL, NULL, NULL);
	snprintf(want, sizeof(want), "loopd      up, its turn loop jailed as "
	    "uid 4242\ngrants     ok: 0 grants, 0 expired\n"
	    "approvals  none pending\naudit log  ok: 1 records, head 0:%s, "
	    "last record 2025-09-18 10:00:00\nsessions   3\n", head);
	assert_non_null(strstr(res.out, ", runtime podman, up 2 h (since "));
	assert_non_null(strstr(res.out, want));
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 0);
	run_result_free(&res);

	/* A pending approval needs the owner: exit 1, with the runbook. */
	snprintf(pending, sizeof(pending), "{\"kind\":\"approval_list\","
	    "\"items\":[{\"approval\":41,\"session\":\"s1\",\"call\":\"c1\","
	    "\"tool\":\"shell\",\"arguments\":\"{}\",\"grant\":\"g\","
	    "\"taint\":\"private\",\"created\":\"%s\",\"expires\":"
	    "\"2099-01-01T00:00:00.000Z\"}]}", from_now(created, -300500));
	healthy(e, "0.3\\u001b[2J", pending);
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_inert(&res);
	assert_non_null(strstr(res.out, "up: version 0.3\\u001b[2J, "));
	assert_non_null(strstr(res.out, "approvals  1 pending, the oldest for "
	    "5 min\n"));
	assert_non_null(strstr(res.out, "needs you: 1 approvals wait for your "
	    "answer (bxctl approvals); see docs/runbook.md#approval-pending\n"));
	run_result_free(&res);

	run(e, &res, "status", "--json", NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "\"approvals\":{\"pending\":1,"));
	assert_non_null(strstr(res.out, "\"loopd\":{\"up\":true,\"jailed\":"
	    "true}"));
	run_result_free(&res);

	/* An invalid grant set: each problem, inert, and the runbook. */
	healthy(e, "0.3.0", "{\"kind\":\"approval_list\",\"items\":[]}");
	fake_admin_reply(e->admin, "list_grants", "{\"kind\":\"grant_list\","
	    "\"grants\":[],\"problems\":[{\"file\":\"/g/x.toml\",\"line\":2,"
	    "\"problem\":\"unknown key \\\"\\u001b[8m\\\"\"}]}");
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "grants     invalid: 1 problems\n"
	    "           /g/x.toml:2: unknown key \"\\u001b[8m\"\n"));
	assert_non_null(strstr(res.out, "needs you: the grant files have 1 "
	    "problems, so every call is denied; see "
	    "docs/runbook.md#grants-invalid\n"));
	run_result_free(&res);

	/* loopd down and a log that no longer verifies. */
	jailed_loop_stop(loop, e->loop_path);
	log.prev.bytes[0] ^= 1;
	alog_decision(&log, "s1", "c2", "read_file", "{}", BX_OUTCOME_DENIED,
	    BX_DENY_NO_GRANT, NULL);
	healthy(e, "0.3.0", "{\"kind\":\"approval_list\",\"items\":[]}");
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "needs you: loopd is not running at %s; "
	    "see docs/runbook.md#loopd-not-running\nneeds you: the audit log "
	    "does not verify at 2025-09-18.jsonl:2: prev is not the hash of "
	    "the line before; see docs/runbook.md#audit-chain-broken\n",
	    e->loop_path);
	assert_non_null(strstr(res.out, want));
	assert_non_null(strstr(res.out, "loopd      not running\n"));
	assert_non_null(strstr(res.out, "audit log  does not verify\n"));
	run_result_free(&res);
}

/* Without brokerd, what needs it is unknown, and that needs the owner. */
static void
test_status_without_brokerd(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char want[1024];

	fake_stop(e->admin);
	e->admin = NULL;
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "brokerd    not running\n"));
	assert_non_null(strstr(res.out, "grants     unknown (brokerd is not "
	    "running)\n"));
	snprintf(want, sizeof(want), "needs you: brokerd is not running at %s; "
	    "see docs/runbook.md#broker-unavailable\n", e->admin_path);
	assert_non_null(strstr(res.out, want));
	/* No audit directory either. */
	assert_non_null(strstr(res.out, "audit log  cannot be read\n"));
	run_result_free(&res);

	run(e, &res, "sessions", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "bxctl: brokerd is not running at %s\n",
	    e->admin_path);
	assert_string_equal(res.err, want);
	run_result_free(&res);
	run(e, &res, "status", "extra", NULL, NULL);
	assert_int_equal(res.status, 2);
	run_result_free(&res);
}

/* <home>/bridge/state.json: pid, updated s ago, the states, the rest. */
static void
bridge_state(struct env *e, long pid, long ago_s, const char *mm,
    const char *broker, const char *rest)
{
	char path[600];
	long long now = show_now() / 1000;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/bridge", e->dir);
	(void)mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/bridge/state.json", e->dir);
	assert_non_null(fp = fopen(path, "w"));
	fprintf(fp, "{\"pid\": %ld, \"started\": %lld, \"updated\": %lld, "
	    "\"mattermost\": \"%s\", \"broker\": \"%s\", %s}\n", pid,
	    now - 7300, now - ago_s, mm, broker, rest);
	assert_int_equal(fclose(fp), 0);
}

#define BRIDGE_NO_ERROR "\"last_error\": null, \"last_error_at\": null, " \
	"\"runbook\": null, \"pending_posts\": 2"

/*
 * The Mattermost bridge: not set up (no line for the owner), running and
 * connected, its token refused (its error inert, with its runbook entry),
 * stale, brokerd out of its reach, and a malformed state file.
 */
static void
test_status_bridge(void **state)
{
	struct env *e = *state;
	struct run_result res;
	char want[1024];
	struct alog log;
	pid_t loop;

	alog_init(&log, e->dir);
	alog_decision(&log, "s1", "c1", "read_file", "{}", BX_OUTCOME_DENIED,
	    BX_DENY_NO_GRANT, NULL);
	loop = jailed_loop_start(e->loop_path);
	healthy(e, "0.3.0", "{\"kind\":\"approval_list\",\"items\":[]}");
	run(e, &res, "status", NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "\nbridge     not set up (optional: "
	    "approvals in Mattermost; see docs/runbook.md#bridge-not-set-up)\n"));
	assert_null(strstr(res.out, "needs you"));
	run_result_free(&res);
	run(e, &res, "status", "--json", NULL, NULL);
	assert_non_null(strstr(res.out, "\"bridge\":{\"state\":\"not set up\""));
	run_result_free(&res);

	bridge_state(e, (long)getpid(), 1, "connected", "connected",
	    BRIDGE_NO_ERROR);
	run(e, &res, "status", NULL, NULL, NULL);
	snprintf(want, sizeof(want), "\nbridge     running as pid %ld, up 2 h: "
	    "Mattermost connected, brokerd connected, 2 posts waiting for an "
	    "answer\n", (long)getpid());
	assert_non_null(strstr(res.out, want));
	assert_null(strstr(res.out, "needs you"));
	assert_int_equal(res.status, 0);
	run_result_free(&res);

	bridge_state(e, (long)getpid(), 1, "token-refused", "connected",
	    "\"last_error\": \"GET /api/v4/users/me: 401 \\u001b[2J\", "
	    "\"last_error_at\": 1758189600, \"runbook\": "
	    "\"docs/runbook.md#bridge-token-refused\", \"pending_posts\": 1");
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_inert(&res);
	assert_non_null(strstr(res.out, "Mattermost token-refused, brokerd "
	    "connected, 1 post waiting for an answer\n           last error "
	    "2025-09-18 10:00:00 ("));
	assert_non_null(strstr(res.out, " ago): GET /api/v4/users/me: 401 "
	    "\\u001b[2J; see docs/runbook.md#bridge-token-refused\n"));
	assert_non_null(strstr(res.out, "needs you: the Mattermost bridge "
	    "cannot use Mattermost (token-refused); see "
	    "docs/runbook.md#bridge-token-refused\n"));
	run_result_free(&res);
	run(e, &res, "status", "--json", NULL, NULL);
	assert_non_null(strstr(res.out, "\"mattermost\":\"token-refused\","));
	assert_non_null(strstr(res.out, "\"last_error_at\":"
	    "\"2025-09-18T10:00:00.000Z\""));
	run_result_free(&res);

	/* 200 s without an update: stale at any poll_s (at most 60). */
	bridge_state(e, (long)getpid(), 200, "connected", "unreachable",
	    BRIDGE_NO_ERROR);
	run(e, &res, "status", NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "\nbridge     not running: no update "
	    "for 200 s (over "));
	assert_non_null(strstr(res.out, "needs you: the Mattermost bridge is "
	    "not running (no update for 200 s (over "));
	assert_non_null(strstr(res.out, "), so approvals wait for the terminal "
	    "alone; see docs/runbook.md#bridge-not-set-up\n"));
	run_result_free(&res);
	bridge_state(e, (long)getpid(), 10, "connected", "unreachable",
	    BRIDGE_NO_ERROR);
	run(e, &res, "status", NULL, NULL, NULL);
	assert_non_null(strstr(res.out, "Mattermost connected, brokerd "
	    "unreachable, 2 posts"));
	assert_non_null(strstr(res.out, "needs you: the Mattermost bridge "
	    "cannot reach brokerd's bridge.sock; see "
	    "docs/runbook.md#bridge-broker-unreachable\n"));
	run_result_free(&res);

	bridge_state(e, (long)getpid(), 1, "\\u001b[2Jhacked", "connected",
	    BRIDGE_NO_ERROR);
	run(e, &res, "status", NULL, NULL, NULL);
	assert_int_equal(res.status, 1);
	assert_inert(&res);
	assert_non_null(strstr(res.out, "\nbridge     state file malformed: "
	    "\"mattermost\" is not one of the states the bridge writes\n"));
	snprintf(want, sizeof(want), "needs you: the Mattermost bridge's "
	    "state file %s/bridge/state.json is malformed (\"mattermost\" is "
	    "not one of the states the bridge writes); see "
	    "docs/runbook.md#bridge-state-malformed\n", e->dir);
	assert_non_null(strstr(res.out, want));
	run_result_free(&res);
	jailed_loop_stop(loop, e->loop_path);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_sessions),
		T(test_grants_list),
		T(test_explain),
		T(test_status),
		T(test_status_expired_grants),
		T(test_status_unjailed),
		T(test_status_without_brokerd),
		T(test_status_bridge),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
