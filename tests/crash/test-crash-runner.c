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
/* A call's sandbox must show up within this long, or the cycle fails. */
#define CRASH_RUNNING_WAIT_MS	10000
/* Calls run this long at most before the kill is aimed, at random. */
#define CRASH_RUN_MAX_MS	400
/* After a sandbox shows up, the kill comes within this long. */
#define CRASH_KILL_MAX_MS	80
/* Processes of a killed sandbox must be gone within this long. */
#define CRASH_GONE_WAIT_MS	10000

struct client {
	pthread_t		 c_thread;
	struct sb_fixture	*c_f;
	atomic_bool		*c_stop;
	unsigned		 c_cycle;
	unsigned		 c_id;
	uint64_t		 c_rng;
	struct rh_seen		 c_seen[CRASH_SEEN_MAX];
	size_t			 c_nseen;
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
 * One cycle on a serving brokerd: clients, a kill aimed at a time a
 * sandbox exists, a restart, the checks. Returns the final answers the
 * clients received; *ret_hit whether a call's directory was still there
 * at the kill (a dead brokerd removes nothing, so it tells).
 */
static size_t
cycle(struct sb_fixture *f, struct client *cl, unsigned k, uint64_t *rng,
    bool *ret_hit)
{
	atomic_bool stop = false;
	int64_t until;
	size_t finals = 0, j;
	unsigned i;
	int status;

	for (i = 0; i < CRASH_CLIENTS; i++) {
		cl[i].c_f = f;
		cl[i].c_stop = &stop;
		cl[i].c_cycle = k;
		cl[i].c_id = i;
		cl[i].c_rng = rh_rand(rng) | 1;
		cl[i].c_nseen = 0;
		assert_int_equal(pthread_create(&cl[i].c_thread, NULL,
		    client_run, &cl[i]), 0);
	}
	rh_sleep_ms((int)(rh_rand(rng) % CRASH_RUN_MAX_MS));
	until = rh_now_ms() + CRASH_RUNNING_WAIT_MS;
	while (!call_running(f) && rh_now_ms() < until)
		rh_sleep_ms(1);
	if (!call_running(f))
		fail_msg("cycle %u: no call's sandbox appeared in %d ms", k,
		    CRASH_RUNNING_WAIT_MS);
	rh_sleep_ms((int)(rh_rand(rng) % CRASH_KILL_MAX_MS));
	status = rh_kill(&f->home, SIGKILL);
	assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	*ret_hit = call_running(f);
	atomic_store(&stop, true);
	for (i = 0; i < CRASH_CLIENTS; i++) {
		pthread_join(cl[i].c_thread, NULL);
		for (j = 0; j < cl[i].c_nseen; j++)
			finals += cl[i].c_seen[j].s_final;
	}
	if (rh_start(&f->home, NULL) == -1)
		fail_msg("cycle %u: brokerd did not come back by itself (see "
		    "%s)", k, f->home.errs);
	expect_no_process(f, k);
	sb_expect_nothing_left(f);
	check_log(f, cl, k);
	return finals;
}

static int
setup(void **state)
{
	struct sb_fixture *f;

	if (sb_setup(state) == -1)
		return -1;
	f = *state;
	sb_put(f->data, "docs/a.txt", "a file to read\n");
	sb_grant_data(f, "shell", "shell");
	sb_grant_data(f, "read", "read_file");
	return 0;
}

static void
test_sigkill_while_running(void **state)
{
	struct sb_fixture *f = *state;
	struct client *cl;
	const char *cycles_env = getenv("CRASH_CYCLES");
	unsigned cycles, k, hits = 0;
	bool hit;
	uint64_t seed, rng;
	int64_t started = rh_now_ms();
	size_t finals = 0;
	int status;

	cycles = cycles_env != NULL && *cycles_env != '\0' ?
	    (unsigned)strtoul(cycles_env, NULL, 10) : CRASH_CYCLES_DEFAULT;
	seed = getenv("CRASH_SEED") != NULL ?
	    strtoull(getenv("CRASH_SEED"), NULL, 10) :
	    (uint64_t)time(NULL) ^ (uint64_t)rh_now_ms();
	rng = seed | 1;
	printf("crash-runner: %s, seed %llu, %u cycles, %d clients\n",
	    sb_kind, (unsigned long long)seed, cycles, CRASH_CLIENTS);
	assert_non_null(cl = calloc(CRASH_CLIENTS, sizeof(*cl)));
	for (k = 0; k < cycles; k++) {
		finals += cycle(f, cl, k, &rng, &hit);
		hits += hit;
	}
	status = rh_kill(&f->home, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("crash-runner: %s: %u kills, %u of them while a sandbox ran, "
	    "in %lld ms; %zu final answers, each with its records; nothing "
	    "left after any restart\n", sb_kind, cycles, hits,
	    (long long)(rh_now_ms() - started), finals);
	/* Some kills must have cut a sandbox short, some calls got through. */
	assert_true(cycles == 0 || hits > 0);
	assert_true(cycles == 0 || finals > 0);
	free(cl);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sigkill_while_running,
		    setup, sb_teardown),
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
