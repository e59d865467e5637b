/*
 * test-faults.c: syscall faults injected into the real brokerd with strace.
 * One allowed request, and one asked and approved, each on a fresh home,
 * are traced first, to list the writes and syncs of the request's thread
 * (the audit records, the session state file, the new day file and the
 * directories). Then, for each of them in turn,
 * a fresh brokerd runs under strace with that one call made to fail:
 *
 *	write		error=EIO, retval=K (a short write: half its bytes;
 *			audit records only, see test_faults), signal=KILL
 *	fdatasync	error=EIO, signal=KILL
 *	fsync		error=EIO, signal=KILL
 *
 * strace counts calls per thread. brokerd starts a worker thread when
 * none is idle, and each faulted brokerd is fresh, so its one traced
 * request runs on a thread of its own and `when=N` hits the Nth call of
 * that request (strace is attached once brokerd serves, so its startup is
 * not counted). Each time: the
 * request's answer must be a failure (audit_unavailable, or "the result
 * could not be recorded"), never the answer of a call that went through,
 * since a retry that pretends success is exactly what must not happen;
 * with strace detached, the next request must go through (brokerd repaired
 * what the fault left), unless the writer stopped for a restart, as it must
 * when a new file's sync failed; and brokerd,
 * restarted without strace, must come back by itself with a log that
 * verifies and keeps every promise, and serve a call normally.
 *
 *	test-faults		(needs strace; skipped with exit 77 without it)
 */
#include <sys/wait.h>

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"

/* Calls of the traced request's thread we take (it makes about ten). */
#define FAULTS_POINTS_MAX	32
#define FAULTS_LINE_MAX		8192
#define FAULTS_OUT_MAX		65536
#define CONCURRENT_CALLS	16

struct point {
	char	p_name[16];		/* write, fdatasync, fsync */
	int	p_nth;			/* 1-based, per name, in the thread */
	char	p_target[64];		/* what the descriptor is */
	size_t	p_len;			/* write: bytes asked */
};

/* The two requests whose calls are broken: allowed, and asked then approved. */
enum { KIND_ALLOW, KIND_ASK, KIND_MAX };

static const char *const kind_names[KIND_MAX] = { "allowed", "approved" };
static const char *const kind_args[KIND_MAX] = { RH_ARGS_ALLOW, RH_ARGS_ASK };

struct faults {
	struct point	f_points[KIND_MAX][FAULTS_POINTS_MAX];
	size_t		f_npoints[KIND_MAX];
	unsigned	f_cases;
};

/* The home of the case in progress, for teardown after a failure. */
static struct rh_home *current;

/* A short name for the file a descriptor in strace's -y output names. */
static void
describe(const char *path, char *out, size_t size)
{
	const char *base = strrchr(path, '/');

	if (strstr(path, ".jsonl") != NULL)
		snprintf(out, size, "the audit file");
	else if (strstr(path, ".json.tmp") != NULL)
		snprintf(out, size, "the session state file");
	else if (base != NULL && strcmp(base, "/audit") == 0)
		snprintf(out, size, "the audit directory");
	else if (base != NULL && strcmp(base, "/sessions") == 0)
		snprintf(out, size, "the sessions directory");
	else
		snprintf(out, size, "%s", base != NULL ? base + 1 : path);
}

/* Parses "PID name(FD<PATH>, ..., LEN) = RET" into pid and a point. */
static bool
parse_line(const char *line, long *pid, struct point *p)
{
	const char *open, *lt, *gt, *eq, *comma;
	char path[4096];
	size_t n;

	memset(p, 0, sizeof(*p));
	*pid = strtol(line, (char **)&line, 10);
	/* strace pads the pid column when pids differ in width. */
	line += strspn(line, " ");
	if ((open = strchr(line, '(')) == NULL ||
	    (lt = strchr(open, '<')) == NULL || (gt = strchr(lt, '>')) == NULL)
		return false;
	n = (size_t)(open - line);
	if (n == 0 || n >= sizeof(p->p_name))
		return false;
	memcpy(p->p_name, line, n);
	n = (size_t)(gt - lt - 1) < sizeof(path) ? (size_t)(gt - lt - 1) :
	    sizeof(path) - 1;
	memcpy(path, lt + 1, n);
	path[n] = '\0';
	describe(path, p->p_target, sizeof(p->p_target));
	if (strcmp(p->p_name, "write") == 0 &&
	    (eq = strstr(gt, ") = ")) != NULL) {
		for (comma = eq; comma > gt && *comma != ','; comma--)
			continue;
		p->p_len = strtoul(comma + 1, NULL, 10);
	}
	return true;
}

/* The writes and syncs of the thread that handled the traced request. */
static void
read_trace(const char *path, struct point *points, size_t *npoints)
{
	char line[FAULTS_LINE_MAX];
	struct point p;
	long pid, thread = -1;
	size_t i;
	int nth;
	FILE *fp;

	assert_non_null(fp = fopen(path, "r"));
	while (fgets(line, sizeof(line), fp) != NULL &&
	    *npoints < FAULTS_POINTS_MAX) {
		if (!parse_line(line, &pid, &p))
			continue;
		if (thread == -1 && strstr(line, ".jsonl") != NULL)
			thread = pid;
		if (pid != thread)
			continue;
		for (nth = 1, i = 0; i < *npoints; i++)
			nth += strcmp(points[i].p_name, p.p_name) == 0;
		p.p_nth = nth;
		points[(*npoints)++] = p;
	}
	fclose(fp);
}

/* The owner approves a pending call, as bxctl approve would. */
static void
approve(const struct rh_home *h, struct rh_seen *s)
{
	struct bx_msg *ans;

	if (rh_admin(h->admin, bx_msg_approve(s->s_approval), &ans,
	    RH_WAIT_MS) == 0 && ans->kind == BX_MSG_APPROVE_RESULT) {
		s->s_approved = true;
		s->s_approve_outcome = ans->approve_result;
	}
	bx_msg_free(ans);
}

/*
 * One call of a kind, approved if it is asked; its final answer in *a, and
 * what the client saw in *s.
 */
static enum rh_got
call(const struct rh_home *h, int kind, const char *id, struct rh_seen *s,
    struct rh_answer *a)
{
	struct rh_call c;

	memset(s, 0, sizeof(*s));
	snprintf(s->s_session, sizeof(s->s_session), "faults");
	snprintf(s->s_call, sizeof(s->s_call), "%s", id);
	if (rh_call_start(&c, h->broker, s->s_session, id, kind_args[kind]) ==
	    -1) {
		rh_call_close(&c);
		memset(a, 0, sizeof(*a));
		return RH_NOTHING;
	}
	while (rh_call_next(&c, RH_WAIT_MS, a) == RH_PENDING) {
		s->s_pending = true;
		s->s_approval = a->a_approval;
		approve(h, s);
	}
	if (a->a_got == RH_FINAL) {
		s->s_final = true;
		s->s_status = a->a_status;
		s->s_reason = a->a_reason;
		s->s_unrecorded = a->a_status == BX_STATUS_FAILED &&
		    strcmp(a->a_message, BROKER_UNRECORDED) == 0;
	}
	rh_call_close(&c);
	return a->a_got;
}

/* The answer of a call that went through M3a's refusing runner. */
static bool
ran(const struct rh_answer *a)
{
	return a->a_got == RH_FINAL && a->a_status == BX_STATUS_FAILED &&
	    strcmp(a->a_message, RUNNER_REFUSE_MESSAGE) == 0;
}

/* The answer as text; two buffers, so that one printf can show two. */
static const char *
answer_text(const struct rh_answer *a)
{
	static char text[2][300];
	static int which;
	char *t = text[which ^= 1];

	if (a->a_got == RH_NOTHING)
		return "no answer";
	if (a->a_got == RH_FINAL && a->a_status == BX_STATUS_DENIED)
		snprintf(t, sizeof(text[0]), "denied %s",
		    bx_deny_name(a->a_reason));
	else
		snprintf(t, sizeof(text[0]), "%s \"%s\"", a->a_got == RH_ERROR ?
		    "error" : "failed", a->a_message);
	return t;
}

/* Restarted without strace: the log verifies, keeps its promises, serves. */
static void
after_restart(struct rh_home *h, int kind, struct rh_seen *seen, size_t n,
    const char *label)
{
	char out[FAULTS_OUT_MAX], why[512];
	struct rh_answer a;
	struct rh_log log;
	int status;

	if (rh_start(h, NULL) == -1)
		fail_msg("%s: brokerd did not restart by itself (see %s)",
		    label, h->errs);
	assert_int_equal(call(h, kind, "after", &seen[n], &a), RH_FINAL);
	if (!ran(&a))
		fail_msg("%s: after the restart a call was answered %s", label,
		    answer_text(&a));
	status = rh_verify(h->dir, out, sizeof(out));
	if (status != 0 || strncmp(out, "audit: ok", 9) != 0)
		fail_msg("%s: bxctl audit verify exited %d: %s", label, status,
		    out);
	assert_int_equal(rh_log_read(h->dir, &log), 0);
	if (rh_log_check(&log, why, sizeof(why)) == -1 ||
	    rh_answers_check(&log, seen, n + 1, why, sizeof(why)) == -1)
		fail_msg("%s: %s", label, why);
	rh_log_free(&log);
	status = rh_kill(h, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* Waits for brokerd (and strace) to die of an injected SIGKILL. */
static void
wait_killed(struct rh_home *h, const char *label)
{
	int64_t until = rh_now_ms() + RH_WAIT_MS;

	while (rh_reaped(h) == -1) {
		if (rh_now_ms() > until)
			fail_msg("%s: brokerd survived its SIGKILL", label);
		rh_sleep_ms(5);
	}
}

/* One fault at one call of the request: inject is strace's value. */
static void
one_case(struct faults *f, int kind, const struct point *p, const char *inject,
    const char *what)
{
	char trace[64], spec[128], label[256];
	const char *args[] = { "-o", "/dev/null", "-e", trace, "-e", spec,
	    NULL };
	struct rh_seen seen[3];
	struct rh_answer a, b;
	struct rh_home h;
	bool killed = strstr(inject, "signal=KILL") != NULL;
	pid_t sp;

	snprintf(trace, sizeof(trace), "trace=%s", p->p_name);
	snprintf(spec, sizeof(spec), "inject=%s:%s:when=%d", p->p_name, inject,
	    p->p_nth);
	snprintf(label, sizeof(label), "%s: %s #%d (%s), %s", kind_names[kind],
	    p->p_name, p->p_nth, p->p_target, what);
	assert_int_equal(rh_home_make(&h, 60000), 0);
	current = &h;
	if (rh_start(&h, NULL) == -1)
		fail_msg("%s: brokerd did not start", label);
	if ((sp = rh_strace_attach(&h, args)) == -1)
		fail_msg("%s: strace did not attach", label);
	call(&h, kind, "first", &seen[0], &a);
	if (killed) {
		if (a.a_got != RH_NOTHING)
			fail_msg("%s: answered %s, then killed?", label,
			    answer_text(&a));
		wait_killed(&h, label);
		memset(&b, 0, sizeof(b));
		seen[1] = seen[0];
		seen[1].s_final = false;
	} else {
		if (a.a_got != RH_FINAL || ran(&a) || !(seen[0].s_unrecorded ||
		    (a.a_status == BX_STATUS_DENIED &&
		    a.a_reason == BX_DENY_AUDIT_UNAVAILABLE)))
			fail_msg("%s: answered %s, not a failure", label,
			    answer_text(&a));
		/* strace detaches on SIGTERM: brokerd goes on without faults. */
		kill(sp, SIGTERM);
		rh_strace_wait(sp);
		call(&h, kind, "second", &seen[1], &b);
		if (!ran(&b) && !(b.a_got == RH_FINAL &&
		    b.a_status == BX_STATUS_DENIED &&
		    b.a_reason == BX_DENY_AUDIT_UNAVAILABLE &&
		    rh_errs_contain(&h, "restart brokerd to check the log")))
			fail_msg("%s: without the fault, the next call was "
			    "answered %s", label, answer_text(&b));
		rh_kill(&h, SIGTERM);
	}
	if (killed)
		rh_strace_wait(sp);
	after_restart(&h, kind, seen, 2, label);
	printf("faults: %-55s first: %s; second: %s; restart: ok\n", label,
	    answer_text(&a), killed ? "-" : answer_text(&b));
	rh_home_remove(&h);
	current = NULL;
	f->f_cases++;
}

/* After a failure too: no brokerd left running, no home left behind. */
static int
teardown(void **state)
{
	(void)state;
	if (current != NULL)
		rh_home_remove(current);
	current = NULL;
	return 0;
}

static void
test_faults(void **state)
{
	struct faults *f = *state;
	const struct point *p;
	char kinds[64];
	size_t i, n = 0;
	int k;

	for (k = 0; k < KIND_MAX; k++)
	for (i = 0; i < f->f_npoints[k]; i++, n++) {
		p = &f->f_points[k][i];
		one_case(f, k, p, "error=EIO", "EIO");
		/*
		 * strace's retval=K skips the call and claims K bytes: a real
		 * short write has written them. The audit writer must stop at
		 * any short write, so the claim tests it; the state writer
		 * rightly goes on with the rest, which after a skipped call
		 * leaves a file no kernel would (the disk-full test makes
		 * real short writes there).
		 */
		if (strcmp(p->p_name, "write") == 0 && p->p_len > 1 &&
		    strcmp(p->p_target, "the audit file") == 0) {
			snprintf(kinds, sizeof(kinds), "retval=%zu",
			    p->p_len / 2);
			one_case(f, k, p, kinds, "short write");
		}
		one_case(f, k, p, "signal=KILL", "SIGKILL");
	}
	printf("faults: %u cases at %zu calls of two requests\n", f->f_cases,
	    n);
}

/*
 * Sixteen calls at once while every request thread's first fdatasync fails:
 * group commit shares one sync among the records written meanwhile, so a
 * failure fails all of them (and the writer stops if it cannot recover them
 * one by one). Every answer must still match the log after the restart.
 */
static void
test_concurrent_sync_failure(void **state)
{
	const char *args[] = { "-o", "/dev/null", "-e", "trace=fdatasync",
	    "-e", "inject=fdatasync:error=EIO:when=1", NULL };
	struct rh_call c[CONCURRENT_CALLS];
	struct rh_seen seen[CONCURRENT_CALLS + 2];
	struct rh_answer a;
	struct rh_home h;
	size_t i, failed = 0, ran_ok = 0;
	pid_t sp;

	(void)state;
	assert_int_equal(rh_home_make(&h, 60000), 0);
	current = &h;
	assert_int_equal(rh_start(&h, NULL), 0);
	assert_true((sp = rh_strace_attach(&h, args)) > 0);
	memset(seen, 0, sizeof(seen));
	for (i = 0; i < CONCURRENT_CALLS; i++) {
		snprintf(seen[i].s_session, sizeof(seen[i].s_session), "p%zu",
		    i % 4);
		snprintf(seen[i].s_call, sizeof(seen[i].s_call), "many-%zu", i);
		assert_int_equal(rh_call_start(&c[i], h.broker,
		    seen[i].s_session, seen[i].s_call, i % 2 == 0 ?
		    RH_ARGS_ALLOW : RH_ARGS_DENY), 0);
	}
	for (i = 0; i < CONCURRENT_CALLS; i++) {
		if (rh_call_next(&c[i], RH_WAIT_MS, &a) == RH_FINAL) {
			seen[i].s_final = true;
			seen[i].s_status = a.a_status;
			seen[i].s_reason = a.a_reason;
			seen[i].s_unrecorded = a.a_status == BX_STATUS_FAILED &&
			    strcmp(a.a_message, BROKER_UNRECORDED) == 0;
			failed += seen[i].s_unrecorded ||
			    a.a_reason == BX_DENY_AUDIT_UNAVAILABLE;
			ran_ok += ran(&a);
		}
		rh_call_close(&c[i]);
	}
	kill(sp, SIGTERM);
	rh_strace_wait(sp);
	call(&h, KIND_ALLOW, "then", &seen[CONCURRENT_CALLS], &a);
	rh_kill(&h, SIGTERM);
	after_restart(&h, KIND_ALLOW, seen, CONCURRENT_CALLS + 1,
	    "16 calls at once, fdatasync EIO");
	printf("faults: 16 calls at once with failing syncs: %zu answered a "
	    "failure, %zu went through; the next call: %s; restart: ok\n",
	    failed, ran_ok, answer_text(&a));
	assert_true(failed > 0);
	rh_home_remove(&h);
	current = NULL;
}

/* Traces one request of a kind on a fresh home: the calls to break. */
static int
trace_kind(struct faults *f, int kind)
{
	char path[PATH_MAX];
	const char *wrapper[] = { "strace", "-f", "-qq", "-y", "-o", path,
	    "-e", "trace=write,fdatasync,fsync", NULL };
	struct rh_seen s;
	struct rh_answer a;
	struct rh_home h;
	const struct point *p;
	size_t i;

	if (rh_home_make(&h, 60000) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s/trace", h.dir);
	if (rh_start(&h, wrapper) == -1 ||
	    call(&h, kind, "traced", &s, &a) != RH_FINAL || !ran(&a)) {
		rh_home_remove(&h);
		return -1;
	}
	rh_kill(&h, SIGTERM);
	read_trace(path, f->f_points[kind], &f->f_npoints[kind]);
	rh_home_remove(&h);
	for (i = 0; i < f->f_npoints[kind]; i++) {
		p = &f->f_points[kind][i];
		printf("faults: the %s request's %s #%d is on %s\n",
		    kind_names[kind], p->p_name, p->p_nth, p->p_target);
	}
	return f->f_npoints[kind] > 0 ? 0 : -1;
}

static int
setup(void **state)
{
	static struct faults f;

	if (trace_kind(&f, KIND_ALLOW) == -1 || trace_kind(&f, KIND_ASK) == -1)
		return -1;
	*state = &f;
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_faults, teardown),
		cmocka_unit_test_teardown(test_concurrent_sync_failure,
		    teardown),
	};

	if (system("strace -V >/dev/null 2>&1") != 0) {
		printf("test-faults: skipped: strace is not installed "
		    "(scripts/install-deps.sh installs it)\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, setup, NULL);
}
