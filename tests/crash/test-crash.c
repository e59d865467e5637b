/*
 * test-crash.c: the real brokerd killed with SIGKILL at random moments
 * while concurrent clients make calls that are allowed, asked (then
 * approved, refused, abandoned or left waiting) and denied, and restarted,
 * cycle after cycle on the same home. After each kill the audit log must
 * verify (bxctl audit verify), its seq must have no gap, nothing may have
 * run without a record that lets it, and every answer a client received
 * must have its record on disk. Each restart must succeed on its own (no
 * --accept-break) and serve.
 *
 * The kill's moment is drawn in units of a call's time, measured first, so
 * that a slow machine (a sanitizer, a loaded host) sees as many calls
 * before a kill as a fast one; every other cycle (the first among them)
 * also waits for an answer before drawing it, so that answers are checked
 * at any speed.
 *
 *	CRASH_CYCLES	cycles (default 30; make check runs the default)
 *	CRASH_CLIENTS	client threads (default 6)
 *	CRASH_SEED	the random seed (default: from the clock; printed)
 */
#include <sys/wait.h>

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "harness.h"

#define CRASH_CYCLES_DEFAULT	30
#define CRASH_CLIENTS_DEFAULT	6
#define CRASH_CLIENTS_MAX	32
/* Calls one client makes in a cycle at most (it is killed long before). */
#define CRASH_SEEN_MAX		4096
/* Sessions the clients share, so that calls of one session queue. */
#define CRASH_SESSIONS		4
/*
 * The kill comes at random within this long after the clients start (or
 * after the first answer), or within CRASH_KILL_CALLS times a call's
 * measured time if that is longer.
 */
#define CRASH_KILL_MAX_MS	150
#define CRASH_KILL_CALLS	50
/* Calls timed alone before the cycles. */
#define CRASH_TIMED_CALLS	8
#define CRASH_OUT_MAX		65536

struct client {
	pthread_t		 c_thread;
	const struct rh_home	*c_home;
	atomic_bool		*c_stop;
	atomic_uint		*c_answered;	/* final answers, all clients */
	unsigned		 c_cycle;
	unsigned		 c_id;
	uint64_t		 c_rng;
	struct rh_seen		*c_seen;
	size_t			 c_nseen;
};

struct totals {
	size_t	calls;
	size_t	finals;
	size_t	pendings;
	size_t	approved;
	size_t	refused;
	size_t	torn;		/* cycles whose kill left a torn tail */
	size_t	records;
	size_t	recoveries;
};

static unsigned
env_number(const char *name, unsigned dflt)
{
	const char *v = getenv(name);

	return v != NULL && *v != '\0' ? (unsigned)strtoul(v, NULL, 10) : dflt;
}

/* The owner's answer to a pending call, chosen at random. */
static void
answer_pending(struct client *c, struct rh_seen *s, struct rh_call *call)
{
	struct bx_msg *ans;
	unsigned pick = (unsigned)(rh_rand(&c->c_rng) % 10);

	if (pick < 5) {
		if (rh_admin(c->c_home->admin, bx_msg_approve(s->s_approval),
		    &ans, RH_WAIT_MS) == 0 && ans->kind ==
		    BX_MSG_APPROVE_RESULT) {
			s->s_approved = true;
			s->s_approve_outcome = ans->approve_result;
		}
		bx_msg_free(ans);
	} else if (pick < 8) {
		if (rh_admin(c->c_home->admin, bx_msg_refuse(s->s_approval,
		    "crash test"), &ans, RH_WAIT_MS) == 0 && ans->kind ==
		    BX_MSG_OK)
			s->s_refused = true;
		bx_msg_free(ans);
	} else if (pick < 9)
		rh_call_close(call);	/* loopd went away mid-approval */
	/* else: nobody answers; the call waits until the kill. */
}

/* One call, recorded in *s as far as it got; false if it never started. */
static bool
one_call(void *arg, struct rh_seen *s, unsigned n)
{
	struct client *c = arg;
	static const char *const args[] = {
		RH_ARGS_ALLOW, RH_ARGS_ASK, RH_ARGS_DENY, RH_ARGS_NONE,
	};
	struct rh_answer a;
	struct rh_call call;

	memset(s, 0, sizeof(*s));
	snprintf(s->s_session, sizeof(s->s_session), "s%u",
	    c->c_id % CRASH_SESSIONS);
	snprintf(s->s_call, sizeof(s->s_call), "k%u-t%u-n%u", c->c_cycle,
	    c->c_id, n);
	if (rh_call_start(&call, c->c_home->broker, s->s_session, s->s_call,
	    args[rh_rand(&c->c_rng) % 4]) == -1) {
		rh_call_close(&call);
		return false;
	}
	while (rh_call_next(&call, RH_WAIT_MS, &a) == RH_PENDING) {
		s->s_pending = true;
		s->s_approval = a.a_approval;
		answer_pending(c, s, &call);
	}
	if (a.a_got == RH_FINAL) {
		s->s_final = true;
		s->s_status = a.a_status;
		s->s_reason = a.a_reason;
		s->s_unrecorded = a.a_status == BX_STATUS_FAILED &&
		    strcmp(a.a_message, BROKER_UNRECORDED) == 0;
		atomic_fetch_add(c->c_answered, 1);
	}
	rh_call_close(&call);
	return true;
}

static void *
client_run(void *arg)
{
	struct client *c = arg;

	c->c_nseen = rh_client_loop(c->c_stop, c->c_seen, CRASH_SEEN_MAX,
	    one_call, c);
	return NULL;
}

/* The log verifies, keeps its promises, and has every answer's record. */
static void
check_log(const struct rh_home *h, struct client *cl, unsigned nclients,
    unsigned cycle, struct totals *t)
{
	struct rh_log log;
	char out[CRASH_OUT_MAX], why[512];
	unsigned i;
	int rc;

	rc = rh_verify(h->dir, out, sizeof(out));
	if (rc != 0 || strncmp(out, "audit: ok", 9) != 0)
		fail_msg("cycle %u: bxctl audit verify exited %d: %s", cycle,
		    rc, out);
	if (rh_log_torn(h->dir))
		t->torn++;
	assert_int_equal(rh_log_read(h->dir, &log), 0);
	if (rh_log_check(&log, why, sizeof(why)) == -1)
		fail_msg("cycle %u: %s", cycle, why);
	for (i = 0; i < nclients; i++)
		if (rh_answers_check(&log, cl[i].c_seen, cl[i].c_nseen, why,
		    sizeof(why)) == -1)
			fail_msg("cycle %u: %s", cycle, why);
	t->records = log.l_n;
	t->recoveries = log.l_recoveries;
	rh_log_free(&log);
}

static void
count(const struct client *c, struct totals *t)
{
	size_t i;

	for (i = 0; i < c->c_nseen; i++) {
		const struct rh_seen *s = &c->c_seen[i];

		t->calls++;
		t->finals += s->s_final;
		t->pendings += s->s_pending;
		t->approved += s->s_approved;
		t->refused += s->s_refused;
		if (s->s_final && s->s_status == BX_STATUS_DENIED &&
		    (s->s_reason == BX_DENY_STATE_UNREADABLE ||
		    s->s_reason == BX_DENY_AUDIT_UNAVAILABLE))
			fail_msg("%s: denied %s after a crash", s->s_call,
			    bx_deny_name(s->s_reason));
	}
}

/*
 * Until some client has been answered, or fail: a cycle that checks
 * answers must have one, however slow the machine.
 */
static void
await_answer(atomic_uint *answered, unsigned cycle)
{
	int64_t until = rh_now_ms() + RH_WAIT_MS;

	while (atomic_load(answered) == 0 && rh_now_ms() < until)
		rh_sleep_ms(1);
	if (atomic_load(answered) == 0)
		fail_msg("cycle %u: no call was answered in %d ms", cycle,
		    RH_WAIT_MS);
}

static void
start_clients(const struct rh_home *h, struct client *cl, unsigned nclients,
    unsigned k, uint64_t *rng, atomic_bool *stop, atomic_uint *answered)
{
	unsigned i;

	for (i = 0; i < nclients; i++) {
		cl[i].c_home = h;
		cl[i].c_stop = stop;
		cl[i].c_answered = answered;
		cl[i].c_cycle = k;
		cl[i].c_id = i;
		cl[i].c_rng = rh_rand(rng) | 1;
		cl[i].c_nseen = 0;
		assert_int_equal(pthread_create(&cl[i].c_thread, NULL,
		    client_run, &cl[i]), 0);
	}
}

/* One cycle: start, clients, a kill at a random moment, checks. */
static void
cycle(struct rh_home *h, struct client *cl, unsigned nclients, unsigned k,
    uint64_t *rng, int64_t window_ms, struct totals *t)
{
	atomic_bool stop = false;
	atomic_uint answered = 0;
	unsigned i;
	int status;

	if (rh_start(h, NULL) == -1)
		fail_msg("cycle %u: brokerd did not come back by itself (see "
		    "%s)", k, h->errs);
	start_clients(h, cl, nclients, k, rng, &stop, &answered);
	if (k % 2 == 0)
		await_answer(&answered, k);
	rh_sleep_ms((int)(rh_rand(rng) % (uint64_t)window_ms));
	status = rh_kill(h, SIGKILL);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	atomic_store(&stop, true);
	for (i = 0; i < nclients; i++) {
		pthread_join(cl[i].c_thread, NULL);
		count(&cl[i], t);
	}
	check_log(h, cl, nclients, k, t);
}

static int
cmp_ms(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * The window the kill is drawn in: CRASH_KILL_MAX_MS, or CRASH_KILL_CALLS
 * times the median of a few allowed calls made one at a time on a fresh
 * brokerd (the first is slower: it opens the log), if longer.
 */
static int64_t
kill_window(struct rh_home *h)
{
	struct rh_answer a;
	struct rh_call call;
	char id[32];
	int64_t t0, took[CRASH_TIMED_CALLS], median;
	int i, status;

	if (rh_start(h, NULL) == -1)
		fail_msg("brokerd did not start (see %s)", h->errs);
	for (i = 0; i < CRASH_TIMED_CALLS; i++) {
		snprintf(id, sizeof(id), "timed-%d", i);
		t0 = rh_now_ms();
		assert_int_equal(rh_call_start(&call, h->broker, "timed", id,
		    RH_ARGS_ALLOW), 0);
		assert_int_equal(rh_call_next(&call, RH_WAIT_MS, &a),
		    RH_FINAL);
		rh_call_close(&call);
		took[i] = rh_now_ms() - t0;
	}
	status = rh_kill(h, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	qsort(took, CRASH_TIMED_CALLS, sizeof(took[0]), cmp_ms);
	median = took[CRASH_TIMED_CALLS / 2];
	printf("crash: an allowed call alone took %lld ms (median; %lld to "
	    "%lld)\n", (long long)median, (long long)took[0],
	    (long long)took[CRASH_TIMED_CALLS - 1]);
	return median * CRASH_KILL_CALLS > CRASH_KILL_MAX_MS ?
	    median * CRASH_KILL_CALLS : CRASH_KILL_MAX_MS;
}

static int
setup(void **state)
{
	struct rh_home *h;

	if ((h = calloc(1, sizeof(*h))) == NULL || rh_home_make(h, 60000) == -1)
		return -1;
	*state = h;
	return 0;
}

/* Also after a failure: brokerd is killed and the home removed. */
static int
teardown(void **state)
{
	rh_home_remove(*state);
	free(*state);
	return 0;
}

static void
test_sigkill_cycles(void **state)
{
	struct client cl[CRASH_CLIENTS_MAX];
	struct totals t;
	struct rh_home *h = *state;
	struct rh_answer a;
	struct rh_call call;
	unsigned cycles, nclients, k, i;
	uint64_t seed, rng;
	int64_t started = rh_now_ms(), window_ms;
	int status;

	cycles = env_number("CRASH_CYCLES", CRASH_CYCLES_DEFAULT);
	nclients = env_number("CRASH_CLIENTS", CRASH_CLIENTS_DEFAULT);
	if (nclients == 0 || nclients > CRASH_CLIENTS_MAX)
		nclients = CRASH_CLIENTS_DEFAULT;
	seed = getenv("CRASH_SEED") != NULL ?
	    strtoull(getenv("CRASH_SEED"), NULL, 10) :
	    (uint64_t)time(NULL) ^ (uint64_t)rh_now_ms();
	rng = seed | 1;
	window_ms = kill_window(h);
	printf("crash: seed %llu, %u cycles, %u clients, kills within %lld "
	    "ms\n", (unsigned long long)seed, cycles, nclients,
	    (long long)window_ms);
	memset(&t, 0, sizeof(t));
	memset(cl, 0, sizeof(cl));
	for (i = 0; i < nclients; i++)
		assert_non_null(cl[i].c_seen = calloc(CRASH_SEEN_MAX,
		    sizeof(struct rh_seen)));
	for (k = 0; k < cycles; k++)
		cycle(h, cl, nclients, k, &rng, window_ms, &t);
	/* After the last kill: it still comes back, serves and stops cleanly. */
	if (rh_start(h, NULL) == -1)
		fail_msg("brokerd did not come back after the last kill");
	assert_int_equal(rh_call_start(&call, h->broker, "s0", "last",
	    RH_ARGS_DENY), 0);
	assert_int_equal(rh_call_next(&call, RH_WAIT_MS, &a), RH_FINAL);
	assert_int_equal(a.a_reason, BX_DENY_DENIED_BY_GRANT);
	rh_call_close(&call);
	status = rh_kill(h, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("crash: %u cycles in %lld ms: %zu calls, %zu final answers, "
	    "%zu pending, %zu approved, %zu refused; %zu records, %zu "
	    "recoveries, %zu kills left a torn tail\n", cycles,
	    (long long)(rh_now_ms() - started), t.calls, t.finals,
	    t.pendings, t.approved, t.refused, t.records, t.recoveries,
	    t.torn);
	/* The answers await_answer saw were kept and checked. */
	assert_true(cycles == 0 || t.finals > 0);
	for (i = 0; i < nclients; i++)
		free(cl[i].c_seen);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sigkill_cycles, setup,
		    teardown),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
