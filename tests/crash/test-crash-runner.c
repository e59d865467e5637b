/*
 * test-crash-runner.c: the real brokerd killed with SIGKILL while tools
 * run in real sandboxes (the runtime named on the command line), and
 * restarted, cycle after cycle on the same home. Client threads call shell
 * and read_file under auto grants; each kill comes while a call's sandbox
 * exists. After each restart (whose startup sweep must clean up by itself)
 * no process, container, cgroup or per-call directory of the killed calls
 * remains, the audit log verifies, and every answer a client received has
 * its records.
 *
 * The kills are aimed in units of a call's time, measured here first: a
 * runtime's start (podman: 0.6 s idle, over 2 s loaded) moves them with it.
 * Every other cycle (the first among them) waits for an answer before the
 * kill is aimed, so that answers are checked at any speed; the others may
 * kill before any call of the restarted brokerd is answered.
 *
 *	test-crash-runner podman|bwrap
 *	CRASH_CYCLES	cycles (default 30; make check runs the default, the
 *			issue's long run is CRASH_CYCLES=100)
 *	CRASH_SEED	the random seed (default: from the clock; printed)
 */
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
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
#include <unistd.h>
#include <cmocka.h>

#include "sandbox-fixture.h"

#define CRASH_CYCLES_DEFAULT	30
#define CRASH_CLIENTS		4
#define CRASH_SEEN_MAX		256
/* Calls timed alone before the cycles, alternately shell and read_file. */
#define CRASH_TIMED_CALLS	4
/*
 * How long a cycle waits for an answer, or for a call's sandbox to show
 * up, before it fails: generous, for a loaded machine; each client's call
 * may wait for the other clients' calls (max_running is 1), each bounded
 * by the runner's timeout.
 */
#define CRASH_WAIT_MS		(RH_WAIT_MS + CRASH_CLIENTS * SB_TIMEOUT_MS)
/* Processes of a killed sandbox must be gone within this long. */
#define CRASH_GONE_WAIT_MS	RH_WAIT_MS

struct client {
	pthread_t		 c_thread;
	struct sb_fixture	*c_f;
	atomic_bool		*c_stop;
	atomic_uint		*c_answered;	/* final answers, all clients */
	unsigned		 c_cycle;
	unsigned		 c_id;
	uint64_t		 c_rng;
	struct rh_seen		 c_seen[CRASH_SEEN_MAX];
	size_t			 c_nseen;
};

/* What the cycles share. */
struct run {
	uint64_t	r_rng;
	int64_t		r_call_ms;	/* the slowest call timed alone */
	unsigned	r_hits;		/* kills while a call's sandbox ran */
	size_t		r_finals;	/* final answers the clients received */
	size_t		r_results;	/* ...of them results (not failures) */
};

/* One call of shell or read_file; false if it never reached brokerd. */
static bool
one_call(void *arg, struct rh_seen *s, unsigned n)
{
	struct client *c = arg;
	char args[PATH_MAX + 128];
	struct rh_answer a;
	struct rh_call call;
	const char *tool;
	int rc;

	memset(s, 0, sizeof(*s));
	snprintf(s->s_session, sizeof(s->s_session), "s%u", c->c_id);
	snprintf(s->s_call, sizeof(s->s_call), "k%u-t%u-n%u", c->c_cycle,
	    c->c_id, n);
	if (rh_rand(&c->c_rng) % 2 == 0) {
		tool = "shell";
		snprintf(args, sizeof(args), "{\"command\":\"sleep 0.%02u; "
		    "echo ran\",\"cwd\":\"%s\"}",
		    (unsigned)(rh_rand(&c->c_rng) % 30), c->c_f->data);
	} else {
		tool = "read_file";
		snprintf(args, sizeof(args), "{\"path\":\"%s/docs/a.txt\"}",
		    c->c_f->data);
	}
	rc = rh_call_tool(&call, c->c_f->home.broker, s->s_session,
	    s->s_call, tool, args);
	if (rc == 0 && rh_call_next(&call, SB_TIMEOUT_MS + RH_WAIT_MS, &a) ==
	    RH_FINAL) {
		s->s_final = true;
		s->s_status = a.a_status;
		s->s_reason = a.a_reason;
		s->s_unrecorded = a.a_status == BX_STATUS_FAILED &&
		    strcmp(a.a_message, BROKER_UNRECORDED) == 0;
		atomic_fetch_add(c->c_answered, 1);
	}
	rh_call_close(&call);
	return rc == 0;
}

static void *
client_run(void *arg)
{
	struct client *c = arg;

	c->c_nseen = rh_client_loop(c->c_stop, c->c_seen, CRASH_SEEN_MAX,
	    one_call, c);
	return NULL;
}

/* Whether a call's directory exists under <home>/broker/runner. */
static bool
call_running(const struct sb_fixture *f)
{
	char path[PATH_MAX];
	struct dirent *e;
	bool found = false;
	DIR *d;

	snprintf(path, sizeof(path), "%s/broker/runner", f->home.dir);
	if ((d = opendir(path)) == NULL)
		return false;
	while (!found && (e = readdir(d)) != NULL)
		found = e->d_name[0] != '.';
	closedir(d);
	return found;
}

/*
 * A process other than brokerd whose command line names the home (a
 * sandbox's runtime, bxtool's command) or the home's id (a container);
 * its pid, or 0.
 */
static pid_t
leftover_process(const struct sb_fixture *f)
{
	pid_t pid = rh_process_with(f->home.dir, f->home.brokerd);

	return pid != 0 ? pid : rh_process_with(f->home_id, f->home.brokerd);
}

static void
expect_no_process(const struct sb_fixture *f, unsigned cycle)
{
	int64_t until = rh_now_ms() + CRASH_GONE_WAIT_MS;
	char path[64], line[512] = "";
	pid_t pid;
	FILE *fp;

	while ((pid = leftover_process(f)) != 0 && rh_now_ms() < until)
		rh_sleep_ms(20);
	if (pid == 0)
		return;
	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
	if ((fp = fopen(path, "r")) != NULL) {
		line[fread(line, 1, sizeof(line) - 1, fp)] = '\0';
		fclose(fp);
	}
	fail_msg("cycle %u: process %d of a killed call outlived the restart: "
	    "%s", cycle, (int)pid, line);
}

/* The log verifies, keeps its promises, and has every answer's record. */
static void
check_log(const struct sb_fixture *f, const struct client *cl,
    unsigned cycle)
{
	const struct rh_seen *lists[CRASH_CLIENTS];
	size_t counts[CRASH_CLIENTS];
	char why[512];
	unsigned i;

	for (i = 0; i < CRASH_CLIENTS; i++) {
		lists[i] = cl[i].c_seen;
		counts[i] = cl[i].c_nseen;
	}
	if (rh_run_check(f->home.dir, lists, counts, CRASH_CLIENTS, why,
	    sizeof(why)) == -1)
		fail_msg("cycle %u: %s", cycle, why);
}

/*
 * Until some client has been answered, or fail: a cycle that checks
 * answers must have one, however slow the runtime.
 */
static void
await_answer(atomic_uint *answered, unsigned cycle, const struct run *r)
{
	int64_t until = rh_now_ms() + CRASH_WAIT_MS;

	while (atomic_load(answered) == 0 && rh_now_ms() < until)
		rh_sleep_ms(5);
	if (atomic_load(answered) == 0)
		fail_msg("cycle %u: no call was answered in %d ms (one alone "
		    "took %lld ms)", cycle, CRASH_WAIT_MS,
		    (long long)r->r_call_ms);
}

/*
 * Until a call's directory has been seen, or fail. Seen once is enough: a
 * bwrap read_file's directory lives a few milliseconds, so a second look
 * may find it gone already.
 */
static void
await_sandbox(const struct sb_fixture *f, unsigned cycle)
{
	int64_t until = rh_now_ms() + CRASH_WAIT_MS;
	bool seen;

	while (!(seen = call_running(f)) && rh_now_ms() < until)
		rh_sleep_ms(1);
	if (!seen)
		fail_msg("cycle %u: no call's sandbox appeared in %d ms", cycle,
		    CRASH_WAIT_MS);
}

/* A random part of one call's time, in ms. */
static int
part_of_call(struct run *r)
{
	return (int)(rh_rand(&r->r_rng) % (uint64_t)r->r_call_ms);
}

static void
start_clients(struct sb_fixture *f, struct client *cl, unsigned k,
    atomic_bool *stop, atomic_uint *answered, struct run *r)
{
	unsigned i;

	for (i = 0; i < CRASH_CLIENTS; i++) {
		cl[i].c_f = f;
		cl[i].c_stop = stop;
		cl[i].c_answered = answered;
		cl[i].c_cycle = k;
		cl[i].c_id = i;
		cl[i].c_rng = rh_rand(&r->r_rng) | 1;
		cl[i].c_nseen = 0;
		assert_int_equal(pthread_create(&cl[i].c_thread, NULL,
		    client_run, &cl[i]), 0);
	}
}

static void
join_clients(struct client *cl, struct run *r)
{
	const struct rh_seen *s;
	unsigned i;
	size_t j;

	for (i = 0; i < CRASH_CLIENTS; i++) {
		pthread_join(cl[i].c_thread, NULL);
		for (j = 0; j < cl[i].c_nseen; j++) {
			s = &cl[i].c_seen[j];
			r->r_finals += s->s_final;
			r->r_results += s->s_final &&
			    s->s_status == BX_STATUS_RESULT;
		}
	}
}

/*
 * One cycle on a serving brokerd: clients, a kill aimed at a random part
 * of a call's life once a sandbox exists, a restart, the checks. Whether a
 * call's directory was still there at the kill counts as a hit (a dead
 * brokerd removes nothing, so it tells).
 */
static void
cycle(struct sb_fixture *f, struct client *cl, unsigned k, struct run *r)
{
	atomic_bool stop = false;
	atomic_uint answered = 0;
	int status;

	start_clients(f, cl, k, &stop, &answered, r);
	if (k % 2 == 0)
		await_answer(&answered, k, r);
	rh_sleep_ms(part_of_call(r));
	await_sandbox(f, k);
	rh_sleep_ms(part_of_call(r));
	status = rh_kill(&f->home, SIGKILL);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	r->r_hits += call_running(f);
	atomic_store(&stop, true);
	join_clients(cl, r);
	if (rh_start(&f->home, NULL) == -1)
		fail_msg("cycle %u: brokerd did not come back by itself (see "
		    "%s)", k, f->home.errs);
	expect_no_process(f, k);
	sb_expect_nothing_left(f);
	check_log(f, cl, k);
}

/*
 * The slowest of a few calls made one at a time, each of which must run:
 * the unit the kills are aimed in. The shell call sleeps as long as the
 * clients' longest.
 */
static int64_t
time_calls(struct sb_fixture *f)
{
	char args[PATH_MAX + 128], *content;
	const char *tool;
	struct rh_answer a;
	int64_t t0, took, slowest = 1;
	int i;

	for (i = 0; i < CRASH_TIMED_CALLS; i++) {
		tool = i % 2 == 0 ? "shell" : "read_file";
		if (i % 2 == 0)
			snprintf(args, sizeof(args), "{\"command\":\"sleep "
			    "0.29; echo ran\",\"cwd\":\"%s\"}", f->data);
		else
			snprintf(args, sizeof(args), "{\"path\":\"%s/docs/"
			    "a.txt\"}", f->data);
		t0 = rh_now_ms();
		a = sb_call(f, tool, args, &content);
		took = rh_now_ms() - t0;
		if (a.a_status != BX_STATUS_RESULT)
			fail_msg("timed call %d (%s) did not run: %s", i, tool,
			    content);
		free(content);
		printf("crash-runner: %s: %s alone took %lld ms\n", sb_kind,
		    tool, (long long)took);
		slowest = took > slowest ? took : slowest;
	}
	return slowest;
}

static void
test_sigkill_while_running(void **state)
{
	struct sb_fixture *f = *state;
	struct client *cl;
	const char *cycles_env = getenv("CRASH_CYCLES");
	struct run r;
	unsigned cycles, k;
	uint64_t seed;
	int64_t started = rh_now_ms();
	int status;

	cycles = cycles_env != NULL && *cycles_env != '\0' ?
	    (unsigned)strtoul(cycles_env, NULL, 10) : CRASH_CYCLES_DEFAULT;
	seed = getenv("CRASH_SEED") != NULL ?
	    strtoull(getenv("CRASH_SEED"), NULL, 10) :
	    (uint64_t)time(NULL) ^ (uint64_t)rh_now_ms();
	memset(&r, 0, sizeof(r));
	r.r_rng = seed | 1;
	r.r_call_ms = time_calls(f);
	printf("crash-runner: %s, seed %llu, %u cycles, %d clients, kills "
	    "aimed in units of %lld ms\n", sb_kind, (unsigned long long)seed,
	    cycles, CRASH_CLIENTS, (long long)r.r_call_ms);
	assert_non_null(cl = calloc(CRASH_CLIENTS, sizeof(*cl)));
	for (k = 0; k < cycles; k++)
		cycle(f, cl, k, &r);
	status = rh_kill(&f->home, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("crash-runner: %s: %u kills, %u of them while a sandbox ran, "
	    "in %lld ms; %zu final answers (%zu results), each with its "
	    "records; nothing left after any restart\n", sb_kind, cycles,
	    r.r_hits, (long long)(rh_now_ms() - started), r.r_finals,
	    r.r_results);
	/*
	 * Some kills must have cut a sandbox short; the answers await_answer
	 * saw must have been kept and checked.
	 */
	assert_true(cycles == 0 || r.r_hits > 0);
	assert_true(cycles == 0 || r.r_finals > 0);
	free(cl);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sigkill_while_running,
		    sb_setup_calls, sb_teardown),
	};

	if (argc != 2 || (strcmp(argv[1], "podman") != 0 &&
	    strcmp(argv[1], "bwrap") != 0)) {
		fprintf(stderr, "usage: test-crash-runner podman|bwrap\n");
		return 2;
	}
	sb_kind = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
