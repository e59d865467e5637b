/*
 * test-load.c: sixteen sessions calling shell and read_file at once, for a
 * minute, through the real brokerd with a real runtime (the command line's)
 * and max_running below sixteen, so that calls wait for a slot. Every call
 * must be answered with its result, none lost: exactly one Result record
 * per call, the chain verifying, nothing of any call left. brokerd's memory
 * is sampled all along, printed, and must stay under a fixed bound.
 *
 *	test-load podman|bwrap
 *	LOAD_SECONDS	how long the sessions call (default 60)
 */

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "sandbox-fixture.h"

#define LOAD_SECONDS_DEFAULT	60
#define LOAD_SESSIONS		16
#define LOAD_MAX_RUNNING	4
#define LOAD_SEEN_MAX		16384
/* brokerd's resident memory, sanitizer builds included, stays below. */
#define LOAD_RSS_MAX_KIB	(512L * 1024)
#define LOAD_SAMPLE_MS		5000
/*
 * How long a call may take to be answered and still count: generous, for
 * a loaded sanitizer build. brokerd's own bound on a call is its timeout
 * plus, when the sandbox must be killed, two `podman rm` of up to 30 s
 * each, plus the wait for a slot; a call still unanswered past this is
 * lost. The slowest answer is printed.
 */
#define LOAD_ANSWER_WAIT_MS	120000

struct session {
	pthread_t		 s_thread;
	struct sb_fixture	*s_f;
	atomic_bool		*s_stop;
	unsigned		 s_id;
	struct rh_seen		*s_seen;
	size_t			 s_nseen;
	size_t			 s_lost;	/* calls with no final result */
	int64_t			 s_slowest_ms;	/* its slowest answer */
	char			 s_first_loss[512];
};

/* One call; a final result is the only good answer. */
static void
one_call(struct session *s, unsigned n)
{
	struct rh_seen *seen = &s->s_seen[s->s_nseen++];
	char args[PATH_MAX + 128];
	struct rh_answer a;
	struct rh_call call;
	const char *tool = n % 2 == 0 ? "shell" : "read_file";
	int64_t started, took;
	bool sent;

	memset(seen, 0, sizeof(*seen));
	snprintf(seen->s_session, sizeof(seen->s_session), "load-%u",
	    s->s_id);
	snprintf(seen->s_call, sizeof(seen->s_call), "c%u", n);
	if (n % 2 == 0)
		snprintf(args, sizeof(args), "{\"command\":\"echo %u\","
		    "\"cwd\":\"%s\"}", n, s->s_f->data);
	else
		snprintf(args, sizeof(args), "{\"path\":\"%s/docs/a.txt\"}",
		    s->s_f->data);
	memset(&a, 0, sizeof(a));
	started = rh_now_ms();
	sent = rh_call_tool(&call, s->s_f->home.broker, seen->s_session,
	    seen->s_call, tool, args) == 0;
	if (sent && rh_call_next(&call, LOAD_ANSWER_WAIT_MS, &a) == RH_FINAL) {
		seen->s_final = true;
		seen->s_status = a.a_status;
		seen->s_reason = a.a_reason;
	}
	rh_call_close(&call);
	took = rh_now_ms() - started;
	if (took > s->s_slowest_ms)
		s->s_slowest_ms = took;
	if (seen->s_final && seen->s_status == BX_STATUS_RESULT)
		return;
	/* Whether it was never sent, cut off, or not answered in time. */
	if (s->s_lost++ == 0)
		snprintf(s->s_first_loss, sizeof(s->s_first_loss), "%s %s "
		    "%s: %s, got %d after %lld ms, status %d: %s",
		    seen->s_session, seen->s_call, tool, sent ? "sent" :
		    "not sent", a.a_got, (long long)took,
		    a.a_status, a.a_message);
}

static void *
session_run(void *arg)
{
	struct session *s = arg;
	unsigned n = 0;

	while (!atomic_load(s->s_stop) && s->s_nseen < LOAD_SEEN_MAX)
		one_call(s, n++);
	return NULL;
}

/* brokerd's memory every LOAD_SAMPLE_MS until the end; the peak. */
static long
sample_memory(const struct sb_fixture *f, int64_t end)
{
	long rss, peak = 0;
	int64_t left;

	while ((left = end - rh_now_ms()) > 0) {
		rh_sleep_ms(left < LOAD_SAMPLE_MS ? (int)left : LOAD_SAMPLE_MS);
		rss = rh_vm_kib(f->home.brokerd, "VmRSS");
		printf("load: brokerd VmRSS %ld KiB, VmHWM %ld KiB\n", rss,
		    rh_vm_kib(f->home.brokerd, "VmHWM"));
		if (rss > peak)
			peak = rss;
	}
	return peak;
}

/* Exactly one Result record per call, the chain verifying. */
static void
check_log(const struct sb_fixture *f, const struct session *ss,
    size_t calls)
{
	const struct rh_seen *lists[LOAD_SESSIONS];
	size_t counts[LOAD_SESSIONS], i, results = 0;
	struct rh_log log;
	char why[512];

	for (i = 0; i < LOAD_SESSIONS; i++) {
		lists[i] = ss[i].s_seen;
		counts[i] = ss[i].s_nseen;
	}
	if (rh_run_check(f->home.dir, lists, counts, LOAD_SESSIONS, why,
	    sizeof(why)) == -1)
		fail_msg("%s", why);
	assert_int_equal(rh_log_read(f->home.dir, &log), 0);
	for (i = 0; i < log.l_n; i++)
		results += log.l_recs[i].event.type == BX_AUDIT_RESULT &&
		    strncmp(log.l_recs[i].event.result.session, "load-",
		    5) == 0;
	rh_log_free(&log);
	if (results != calls)
		fail_msg("%zu calls were answered but the log holds %zu Result "
		    "records of them", calls, results);
}

/* The calls wait for a slot: max_running is below the sessions. */
static int
setup(void **state)
{
	if (sb_setup_calls(state) == -1)
		return -1;
	sb_restart(*state, LOAD_MAX_RUNNING);
	return 0;
}

static void
test_sixteen_sessions(void **state)
{
	struct sb_fixture *f = *state;
	struct session *ss;
	const char *env = getenv("LOAD_SECONDS");
	atomic_bool stop = false;
	unsigned seconds, i;
	size_t calls = 0, lost = 0;
	int64_t started = rh_now_ms(), slowest = 0;
	long peak;

	seconds = env != NULL && *env != '\0' ?
	    (unsigned)strtoul(env, NULL, 10) : LOAD_SECONDS_DEFAULT;
	assert_non_null(ss = calloc(LOAD_SESSIONS, sizeof(*ss)));
	for (i = 0; i < LOAD_SESSIONS; i++) {
		ss[i].s_f = f;
		ss[i].s_stop = &stop;
		ss[i].s_id = i;
		assert_non_null(ss[i].s_seen = calloc(LOAD_SEEN_MAX,
		    sizeof(struct rh_seen)));
		assert_int_equal(pthread_create(&ss[i].s_thread, NULL,
		    session_run, &ss[i]), 0);
	}
	peak = sample_memory(f, started + (int64_t)seconds * 1000);
	atomic_store(&stop, true);
	for (i = 0; i < LOAD_SESSIONS; i++) {
		pthread_join(ss[i].s_thread, NULL);
		calls += ss[i].s_nseen;
		lost += ss[i].s_lost;
		if (ss[i].s_slowest_ms > slowest)
			slowest = ss[i].s_slowest_ms;
		if (ss[i].s_lost > 0)
			fprintf(stderr, "load: session %u lost %zu calls, the "
			    "first: %s\n", i, ss[i].s_lost,
			    ss[i].s_first_loss);
	}
	printf("load: %s, %d sessions, max_running %d, %u s: %zu calls "
	    "(%.1f/s), %zu without their result, the slowest answered in "
	    "%lld ms; brokerd VmRSS peak %ld KiB, VmHWM %ld KiB\n", sb_kind,
	    LOAD_SESSIONS, LOAD_MAX_RUNNING, seconds, calls,
	    calls * 1000.0 / (double)(rh_now_ms() - started), lost,
	    (long long)slowest, peak, rh_vm_kib(f->home.brokerd, "VmHWM"));
	assert_int_equal(lost, 0);
	assert_true(calls >= LOAD_SESSIONS);
	if (peak <= 0 || peak > LOAD_RSS_MAX_KIB)
		fail_msg("brokerd's VmRSS peaked at %ld KiB (bound %ld)", peak,
		    LOAD_RSS_MAX_KIB);
	check_log(f, ss, calls);
	sb_expect_nothing_left(f);
	for (i = 0; i < LOAD_SESSIONS; i++)
		free(ss[i].s_seen);
	free(ss);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sixteen_sessions, setup,
		    sb_teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-load podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
