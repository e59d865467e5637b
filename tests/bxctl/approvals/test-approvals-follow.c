/*
 * test-approvals-follow.c: bxctl approvals --follow, run as the real
 * binary against an audit log written record by record (auditlog.h) and
 * the fake admin socket (fake.h): what already waits, then each new ask
 * as it is recorded (with its expiry while brokerd holds it), and each
 * answer, approved, refused or expired; as text and as JSON lines. The
 * log's history before the start is not shown.
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <poll.h>
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

#include "auditlog.h"
#include "fake.h"
#include "run.h"

#define WAIT_MS		30000
#define HOUR_MS		3600000LL
#define MM_USER		"kz8f3q1xwbyn5c7tdm2re4hs6a"
#define MM_POST		"p9w2c7dj4xkqm8rf3nt6ybz1ve"

struct env {
	char		*dir;
	struct alog	 log;
	struct fake	*admin;
	char		 sock[4200];
	pid_t		 pid;
	int		 out;
	char		 buf[65536];
	size_t		 len;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->dir = run_tempdir();
	alog_init(&e->log, e->dir);
	snprintf(e->sock, sizeof(e->sock), "%s/admin.sock", e->dir);
	e->admin = fake_admin_start(e->sock);
	e->pid = -1;
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	if (e->pid != -1) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
		close(e->out);
	}
	fake_stop(e->admin);
	run_rmdir(e->dir);
	free(e);
	return 0;
}

/* brokerd's list: the asks with these ids ({"n":ID}), for an hour. */
static void
holds(struct env *e, const uint64_t *ids, size_t n)
{
	char created[BX_TIME_LEN + 1], expires[BX_TIME_LEN + 1];
	char list[8192] = "{\"kind\":\"approval_list\",\"items\":[";
	struct timespec t;
	int64_t now;
	size_t i, len;

	clock_gettime(CLOCK_REALTIME, &t);
	now = (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
	bx_time_format(now, created);
	bx_time_format(now + HOUR_MS + 30000, expires);
	for (i = 0; i < n; i++) {
		len = strlen(list);
		snprintf(list + len, sizeof(list) - len, "%s{\"approval\":%llu,"
		    "\"session\":\"s1\",\"call\":\"c%llu\",\"tool\":\"shell\","
		    "\"arguments\":\"{\\\"n\\\":%llu}\",\"grant\":\"sh\","
		    "\"taint\":\"private\",\"created\":\"%s\",\"expires\":"
		    "\"%s\"}", i > 0 ? "," : "", (unsigned long long)ids[i],
		    (unsigned long long)ids[i], (unsigned long long)ids[i],
		    created, expires);
	}
	strcat(list, "]}");
	fake_admin_reply(e->admin, "approvals", list);
}

static uint64_t
ask(struct env *e, uint64_t n)
{
	char call[16], args[32];

	snprintf(call, sizeof(call), "c%llu", (unsigned long long)n);
	snprintf(args, sizeof(args), "{\"n\":%llu}", (unsigned long long)n);
	return alog_decision(&e->log, "s1", call, "shell", args,
	    BX_OUTCOME_ASK, 0, "sh");
}

static void
answer(struct env *e, uint64_t d, enum bx_answer a, const char *reason)
{
	alog_approval(&e->log, "s1", "c", d, a, reason, a ==
	    BX_ANSWER_APPROVED ? BX_OUTCOME_ALLOWED : BX_OUTCOME_DENIED,
	    a == BX_ANSWER_APPROVED ? 0 : a == BX_ANSWER_EXPIRED ?
	    BX_DENY_APPROVAL_EXPIRED : BX_DENY_APPROVAL_REFUSED);
}

static void
start_follow(struct env *e, bool json)
{
	char path[4096];
	int out[2];

	snprintf(path, sizeof(path), "%s/src/bxctl/bxctl",
	    getenv("BX_BUILD_ROOT"));
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	e->pid = fork();
	assert_true(e->pid != -1);
	if (e->pid == 0) {
		dup2(out[1], 1);
		execl(path, "bxctl", "approvals", "--follow", "--home", e->dir,
		    "--admin-socket", e->sock, json ? "--json" : (char *)NULL,
		    (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	e->out = out[0];
}

static int64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Until bxctl has printed want, or fail after WAIT_MS. */
static void
await(struct env *e, const char *want)
{
	struct pollfd p = { e->out, POLLIN, 0 };
	int64_t until = now_ms() + WAIT_MS;
	ssize_t n;

	while (strstr(e->buf, want) == NULL) {
		if (now_ms() > until)
			fail_msg("--follow never printed \"%s\"; it printed:\n"
			    "%s", want, e->buf);
		if (poll(&p, 1, 1000) != 1)
			continue;
		n = read(e->out, e->buf + e->len, sizeof(e->buf) - e->len - 1);
		if (n <= 0)
			fail_msg("--follow ended; it printed:\n%s", e->buf);
		e->len += (size_t)n;
		e->buf[e->len] = '\0';
	}
}

static int
count(const char *s, const char *what)
{
	int n = 0;

	for (; (s = strstr(s, what)) != NULL; s++)
		n++;
	return n;
}

static void
test_follow_text(void **state)
{
	struct env *e = *state;
	uint64_t ids[2], d1, d2, d4;

	/* History: an ask answered long ago, and one that waits. */
	answer(e, ask(e, 0), BX_ANSWER_APPROVED, NULL);
	ids[0] = d1 = ask(e, 1);
	holds(e, ids, 1);
	start_follow(e, false);
	await(e, "  expires in 1 h  session s1  grant sh  taint private\n"
	    "    shell {\"n\":2}\n");
	assert_int_equal(strncmp(e->buf, "2  ", 3), 0);
	/* A new ask, while brokerd holds it: as `bxctl approvals` shows it. */
	ids[1] = d2 = 3;
	holds(e, ids, 2);
	assert_int_equal(ask(e, 2), d2);
	await(e, "  expires in 1 h  session s1  grant sh  taint private\n"
	    "    shell {\"n\":3}\n");
	assert_non_null(strstr(e->buf, "\n3  "));
	answer(e, d2, BX_ANSWER_APPROVED, NULL);
	await(e, "3  approved at the terminal\n");
	/* An answer from Mattermost: by whom, in which post. */
	alog_approval_from(&e->log, "s1", "c", d1, BX_ANSWER_REFUSED,
	    "not now", BX_OUTCOME_DENIED, BX_DENY_APPROVAL_REFUSED, MM_USER,
	    MM_POST);
	await(e, "2  refused in Mattermost by " MM_USER " (post " MM_POST
	    "): not now\n");
	/* One brokerd no longer holds: no expiry to show. */
	holds(e, NULL, 0);
	d4 = ask(e, 4);
	await(e, " ago  session s1  grant sh  taint private\n"
	    "    shell {\"n\":4}\n");
	assert_non_null(strstr(e->buf, "\n6  "));
	answer(e, d4, BX_ANSWER_EXPIRED, NULL);
	await(e, "6  expired\n");
	/* Nothing of the history; what waited at the start shown once. */
	assert_null(strstr(e->buf, "{\"n\":0}"));
	assert_int_equal(count(e->buf, "{\"n\":2}"), 1);
	assert_null(strstr(e->buf, "broken"));
}

static void
test_follow_json(void **state)
{
	struct env *e = *state;
	uint64_t ids[1], d;

	start_follow(e, true);
	/* Nothing waits; the first look is done once brokerd was asked. */
	ids[0] = 0;
	holds(e, ids, 1);
	d = ask(e, 7);
	await(e, "{\"type\":\"pending\",\"approval\":0,\"session\":\"s1\","
	    "\"call\":\"c0\",\"tool\":\"shell\",\"arguments\":\"{\\\"n\\\":0}\","
	    "\"grant\":\"sh\",\"taint\":\"private\",\"created\":");
	answer(e, d, BX_ANSWER_REFUSED, "no");
	await(e, "{\"type\":\"answer\",\"approval\":0,\"answer\":\"refused\","
	    "\"by\":\"bxctl\",\"post\":null,\"reason\":\"no\","
	    "\"time\":\"2025-09-18T10:00:01.000Z\"}\n");
	d = ask(e, 8);
	alog_approval_from(&e->log, "s1", "c", d, BX_ANSWER_APPROVED, NULL,
	    BX_OUTCOME_ALLOWED, 0, MM_USER, MM_POST);
	await(e, "{\"type\":\"answer\",\"approval\":2,\"answer\":\"approved\","
	    "\"by\":\"" MM_USER "\",\"post\":\"" MM_POST "\",\"reason\":null,\"time\":");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_follow_text, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_follow_json, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
