/*
 * test-sandbox-calls.c: the cases of test-sandbox about a call's life
 * rather than what its sandbox sees: limits that end it, a caller who
 * hangs up, brokerd killed under it, and max_running. Linked into
 * test-sandbox, which runs them (sandbox-calls.h).
 *
 * Nothing here leans on the machine's speed: what must have happened is
 * waited for, and a bound on elapsed time is the time the command itself
 * would have taken had the limit not stopped it.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "sandbox-calls.h"
#include "sandbox-fixture.h"

/* A sleep the wall time must cut short: a call this long was not cut. */
#define CALLS_SLEEP_S		120
/* What a call that reached the fixture's pids = 32 says. */
#define PIDS_REACHED		"the process limit (32) was reached"
/* test_max_running_holds's calls; their timeout (the first waits for go). */
#define CALLS_SLOTS		3
#define CALLS_HOLD_TIMEOUT_MS	600000

/* Limits hold: wall time, memory (the sandbox's /tmp too), processes, output. */
void
test_limits(void **state)
{
	struct sb_fixture *f = *state;
	int64_t t0;
	char *out;

	sb_grant(f, "shell", "shell", "paths", "");
	t0 = rh_now_ms();
	out = sb_shell(f, NULL, "echo before; sleep %d", CALLS_SLEEP_S);
	assert_true(rh_now_ms() - t0 < CALLS_SLEEP_S * 1000);
	assert_string_equal(out, "timed out after 3 s\nbefore\n");
	sb_expect_record(f, f->calls, true, out);
	free(out);
	out = sb_shell(f, NULL, "tail /dev/zero");
	assert_string_equal(out, "out of memory (64 MiB)");
	free(out);
	/* The sandbox's /tmp counts: the memory limit or its size stops it. */
	out = sb_shell(f, NULL, "head -c 200M /dev/zero > /tmp/big && echo wrote");
	if (strstr(out, "out of memory (64 MiB)") == NULL &&
	    strstr(out, "No space left on device") == NULL)
		fail_msg("200 MiB into /tmp: %s", out);
	free(out);
	/* pids = 32: a hundred children cannot all start. */
	out = sb_shell(f, NULL, "python3 -c 'import os, time\n"
	    "n = 0\ntry:\n while n < 100:\n  if os.fork() == 0:\n"
	    "   time.sleep(5)\n   os._exit(0)\n  n += 1\n"
	    "except OSError:\n pass\nprint(n, flush=True)\nos._exit(0)'");
	if (atoi(out) <= 0 || atoi(out) > 32 ||
	    strstr(out, "\n" PIDS_REACHED) == NULL)
		fail_msg("pids = 32 let %s processes run", out);
	free(out);
	/* Background sleeps past the limit: the result says which limit. */
	out = sb_shell(f, NULL, "for i in $(seq 100); do sleep 1 & done; wait");
	if (strstr(out, PIDS_REACHED) == NULL)
		fail_msg("100 sleeps under pids = 32: %.300s", out);
	free(out);
	t0 = rh_now_ms();
	/* A fork bomb is bounded: its shell dies or the wall time ends it. */
	out = sb_shell(f, NULL, "f() { f | f & }; f; sleep %d", CALLS_SLEEP_S);
	assert_true(rh_now_ms() - t0 < CALLS_SLEEP_S * 1000);
	if ((strstr(out, "timed out after 3 s") == NULL &&
	    strstr(out, "exit status 2") == NULL && !f->last.a_truncated) ||
	    strstr(out, PIDS_REACHED) == NULL)
		fail_msg("the fork bomb's call answered: %.200s", out);
	free(out);
	out = sb_shell(f, NULL, "yes");
	assert_true(f->last.a_truncated);
	assert_int_equal(strlen(out), SB_OUTPUT_BYTES);
	assert_int_equal(strspn(out, "y\n"), SB_OUTPUT_BYTES);
	sb_expect_record(f, f->calls, false, out);
	free(out);
	sb_after_case(f);
}

static void
send_sleep(struct sb_fixture *f, struct rh_call *c, const char *secs)
{
	char args[128], id[32];

	snprintf(id, sizeof(id), "c%d", ++f->calls);
	snprintf(args, sizeof(args), "{\"command\":\"sleep %s\"}", secs);
	assert_int_equal(rh_call_tool(c, f->home.broker, SB_SESSION, id, "shell",
	    args), 0);
}

/* Whether the log holds a record of type for session and call. */
static bool
has_record(const struct sb_fixture *f, enum bx_event_type type,
    const char *session, const char *call)
{
	struct rh_log log;
	bool found;

	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	found = rh_log_find(&log, type, session, call) != NULL;
	rh_log_free(&log);
	return found;
}

/* Until the log holds that record, or fail saying which was awaited. */
static void
await_record(const struct sb_fixture *f, enum bx_event_type type,
    const char *session, const char *call)
{
	int64_t until = rh_now_ms() + RH_WAIT_MS;

	while (!has_record(f, type, session, call) && rh_now_ms() < until)
		rh_sleep_ms(20);
	if (!has_record(f, type, session, call))
		fail_msg("no %s record of %s %s in %d ms", type ==
		    BX_AUDIT_RESULT ? "Result" : "Decision", session, call,
		    RH_WAIT_MS);
}

/* A caller who hangs up ends its sandbox; the Result says so. */
void
test_caller_hangs_up(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_call c;
	char id[32];

	sb_grant(f, "shell", "shell", "paths", "");
	send_sleep(f, &c, "41.25");
	assert_true(rh_await_process("sleep 41.25", true, RH_WAIT_MS));
	rh_call_close(&c);
	assert_true(rh_await_process("sleep 41.25", false, RH_WAIT_MS));
	snprintf(id, sizeof(id), "c%d", f->calls);
	await_record(f, BX_AUDIT_RESULT, SB_SESSION, id);
	sb_expect_record(f, f->calls, true, "the caller went away");
	sb_after_case(f);
}

/*
 * brokerd SIGKILLed mid-call: the restart removes what it left; the
 * Decision without its Result stays as the evidence, and the chain
 * verifies.
 */
void
test_brokerd_killed_mid_call(void **state)
{
	struct sb_fixture *f = *state;
	const struct bx_audit_record *r;
	struct rh_call c;
	struct rh_log log;
	char out[4096], id[32];

	sb_grant(f, "shell", "shell", "paths", "");
	send_sleep(f, &c, "42.75");
	assert_true(rh_await_process("sleep 42.75", true, RH_WAIT_MS));
	rh_kill(&f->home, SIGKILL);
	rh_call_close(&c);
	sb_start(f);
	assert_true(rh_await_process("sleep 42.75", false, RH_WAIT_MS));
	sb_expect_nothing_left(f);
	assert_true(rh_errs_contain(&f->home, "runner: removed"));
	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	snprintf(id, sizeof(id), "c%d", f->calls);
	assert_non_null(r = rh_log_find(&log, BX_AUDIT_DECISION, SB_SESSION, id));
	assert_null(rh_log_find(&log, BX_AUDIT_RESULT, SB_SESSION, id));
	rh_log_free(&log);
	assert_int_equal(rh_verify(f->home.dir, out, sizeof(out)), 0);
	/* And the restarted brokerd runs calls. */
	free(sb_shell(f, NULL, "true"));
	assert_int_equal(f->last.a_status, BX_STATUS_RESULT);
}

/* Entries of <home>/broker/runner: brokerd makes one per call holding a slot. */
static int
calls_holding_slots(const struct sb_fixture *f)
{
	char path[PATH_MAX];
	struct dirent *e;
	int n = 0;
	DIR *d;

	snprintf(path, sizeof(path), "%s/broker/runner", f->home.dir);
	assert_non_null(d = opendir(path));
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* Until path exists, or fail; how long it took. */
static int64_t
await_path(const char *path)
{
	int64_t t0 = rh_now_ms(), until = t0 + RH_WAIT_MS;

	while (access(path, F_OK) == -1 && rh_now_ms() < until)
		rh_sleep_ms(5);
	if (access(path, F_OK) == -1)
		fail_msg("%s did not appear in %d ms", path, RH_WAIT_MS);
	return rh_now_ms() - t0;
}

/*
 * While the first call holds its slot: all three are decided (queued for
 * a slot or, were max_running broken, running), and for as long again as
 * the first took to start, no second call has a directory. Then go.
 */
static void
hold_first_slot(struct sb_fixture *f, int64_t start_ms)
{
	char path[PATH_MAX], id[32];
	int64_t until;
	int i, fd;

	for (i = 0; i < CALLS_SLOTS; i++) {
		snprintf(path, sizeof(path), "slots-%d", i);
		snprintf(id, sizeof(id), "slot%d", i);
		await_record(f, BX_AUDIT_DECISION, path, id);
	}
	until = rh_now_ms() + start_ms;
	do {
		if (calls_holding_slots(f) > 1)
			fail_msg("max_running = 1, yet %d calls have a slot",
			    calls_holding_slots(f));
		rh_sleep_ms(5);
	} while (rh_now_ms() < until);
	snprintf(path, sizeof(path), "%s/work/go", f->data);
	assert_true((fd = open(path, O_WRONLY | O_CREAT, 0644)) >= 0);
	close(fd);
}

/*
 * max_running = 1: three calls of three sessions sent at once run one after
 * another, never two sandboxes at a time, and all three are answered. The
 * first to run holds its slot until the test says go: a directory in a
 * shared grant that each call makes and removes shows an overlap from
 * inside, and brokerd's call directories show it from outside, however
 * long a sandbox takes to start.
 */
void
test_max_running_holds(void **state)
{
	struct sb_fixture *f = *state;
	struct rh_call c[CALLS_SLOTS];
	struct rh_answer a;
	char paths[PATH_MAX], args[2 * PATH_MAX], session[32], id[32];
	char *content;
	int64_t start_ms;
	int i;

	f->timeout_ms = CALLS_HOLD_TIMEOUT_MS;
	sb_restart(f, 1);
	snprintf(paths, sizeof(paths), "\"%s/work\"", f->data);
	sb_grant(f, "shell", "shell", "paths", paths);
	snprintf(args, sizeof(args), "{\"command\":\"mkdir slot || echo "
	    "OVERLAP; until [ -e go ]; do sleep 0.01; done; rmdir slot\","
	    "\"cwd\":\"%s/work\"}", f->data);
	for (i = 0; i < CALLS_SLOTS; i++) {
		snprintf(session, sizeof(session), "slots-%d", i);
		snprintf(id, sizeof(id), "slot%d", i);
		assert_int_equal(rh_call_tool(&c[i], f->home.broker, session, id,
		    "shell", args), 0);
	}
	snprintf(paths, sizeof(paths), "%s/work/slot", f->data);
	start_ms = await_path(paths);
	hold_first_slot(f, start_ms);
	for (i = 0; i < CALLS_SLOTS; i++) {
		content = NULL;
		rh_call_next_full(&c[i], CALLS_SLOTS * RH_WAIT_MS, &a,
		    &content);
		rh_call_close(&c[i]);
		assert_int_equal(a.a_got, RH_FINAL);
		assert_int_equal(a.a_status, BX_STATUS_RESULT);
		assert_non_null(content);
		assert_null(strstr(content, "OVERLAP"));
		free(content);
	}
	sb_after_case(f);
}
