/*
 * test-runner-exec.c: a call's time is the tool's (brokerd/runner_exec.h).
 * With a start bound, the timeout counts from bxtool's "started" line, so
 * a runtime that is slow to start does not eat the tool's time; the start
 * has its own bound; a started line that does not begin a line does not
 * count; without a start bound the timeout counts from the fork, as podman
 * rm and ps need. The "runtimes" are sh scripts that take their time on
 * purpose: a slow start is the thing under test.
 *
 * On cgroup v2 the child is made in the call's cgroup (clone3); that is
 * tested in a cgroup of this machine's v2 hierarchy (/sys/fs/cgroup, or
 * /sys/fs/cgroup/unified beside v1), which the test needs and makes as
 * root.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/runner/runner_exec.h"

/* Longer than the tool's timeout below, as a busy podman start can be. */
#define SLOW_START	"sleep 2; "
#define TOOL_MS		1000

static void
run(const char *script, int64_t start_timeout_ms, struct exec_outcome *o)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct exec_limits lim;
	struct exec_hooks hooks = { 0 };
	struct exec_spawn sp;
	struct exec_child c;
	struct bx_error err;

	memset(&sp, 0, sizeof(sp));
	sp.es_argv = argv;
	sp.es_status_read = -1;
	memset(&lim, 0, sizeof(lim));
	lim.el_timeout_ms = TOOL_MS;
	lim.el_start_timeout_ms = start_timeout_ms;
	lim.el_output_bytes = 4096;
	lim.el_hangup_fd = -1;
	if (exec_start(&sp, &c, &err) == -1 ||
	    exec_supervise(&c, &lim, &hooks, o, &err) == -1)
		fail_msg("%s", err.msg);
}

static void
test_slow_start_is_not_the_tools_time(void **state)
{
	struct exec_outcome o;

	(void)state;
	run(SLOW_START "printf 'podman noise\\nbxtool: started\\n' >&2; "
	    "echo done", 60000, &o);
	assert_int_equal(o.eo_end, EXEC_EXITED);
	assert_true(o.eo_started);
	assert_int_equal(o.eo_out_len, 5);
	assert_memory_equal(o.eo_out, "done\n", 5);
	exec_outcome_clear(&o);
}

/* A started line that arrives in two reads still counts, once whole. */
static void
test_started_line_split_across_reads(void **state)
{
	struct exec_outcome o;

	(void)state;
	run("printf 'noise\\nbxtool: sta' >&2; " SLOW_START
	    "printf 'rted\\n' >&2; echo done", 60000, &o);
	assert_int_equal(o.eo_end, EXEC_EXITED);
	assert_true(o.eo_started);
	exec_outcome_clear(&o);
}

static void
test_tool_time_counts_from_started(void **state)
{
	struct exec_outcome o;

	(void)state;
	run("printf 'bxtool: started\\n' >&2; exec sleep 60", 60000, &o);
	assert_int_equal(o.eo_end, EXEC_TIMED_OUT);
	assert_true(o.eo_started);
	exec_outcome_clear(&o);
}

static void
test_start_has_its_own_bound(void **state)
{
	struct exec_outcome o;

	(void)state;
	run("exec sleep 60", 1000, &o);
	assert_int_equal(o.eo_end, EXEC_TIMED_OUT);
	assert_false(o.eo_started);
	exec_outcome_clear(&o);
	/* Only a whole line counts. */
	run("printf 'noise bxtool: started\\n' >&2; exec sleep 60", 1000, &o);
	assert_int_equal(o.eo_end, EXEC_TIMED_OUT);
	assert_false(o.eo_started);
	exec_outcome_clear(&o);
}

static void
test_without_a_start_bound_the_fork_counts(void **state)
{
	struct exec_outcome o;

	(void)state;
	run(SLOW_START "printf 'bxtool: started\\n' >&2; echo done", 0, &o);
	assert_int_equal(o.eo_end, EXEC_TIMED_OUT);
	assert_false(o.eo_started);
	exec_outcome_clear(&o);
}

/* This machine's cgroup v2 hierarchy; the test fails without one. */
static const char *
v2_mount(void)
{
	static const char *const mounts[] = {
		"/sys/fs/cgroup", "/sys/fs/cgroup/unified",
	};
	char path[64];
	size_t i;

	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", mounts[i]);
		if (access(path, F_OK) == 0 && (i == 1 ||
		    access("/sys/fs/cgroup/cgroup.controllers", F_OK) == 0))
			return mounts[i];
	}
	fail_msg("no cgroup v2 hierarchy at /sys/fs/cgroup or "
	    "/sys/fs/cgroup/unified: this test needs one");
	return NULL;
}

/* Runs cat /proc/self/cgroup made in dirfd; *o gets what it printed. */
static int
run_in(int dirfd, struct exec_outcome *o, struct bx_error *err)
{
	char *argv[] = { "/bin/cat", "/proc/self/cgroup", NULL };
	struct exec_hooks hooks = { 0 };
	struct exec_limits lim;
	struct exec_spawn sp;
	struct exec_child c;

	memset(&sp, 0, sizeof(sp));
	sp.es_argv = argv;
	sp.es_status_read = -1;
	sp.es_into_cgroup = true;
	sp.es_cgroup_dir = dirfd;
	memset(&lim, 0, sizeof(lim));
	lim.el_timeout_ms = 60000;
	lim.el_output_bytes = 4096;
	lim.el_hangup_fd = -1;
	if (exec_start(&sp, &c, err) == -1)
		return -1;
	if (exec_supervise(&c, &lim, &hooks, o, err) == -1)
		fail_msg("%s", err->msg);
	return 0;
}

static void
test_child_is_made_in_the_cgroup(void **state)
{
	char dir[128], want[128], got[4097];
	struct exec_outcome o;
	struct bx_error err;
	int fd;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/boxmaker-test-exec-%ld", v2_mount(),
	    (long)getpid());
	snprintf(want, sizeof(want), "0::/boxmaker-test-exec-%ld\n",
	    (long)getpid());
	if (mkdir(dir, 0755) == -1)
		fail_msg("mkdir %s: %m", dir);
	assert_true((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	if (run_in(fd, &o, &err) == -1)
		fail_msg("%s", err.msg);
	close(fd);
	assert_int_equal(o.eo_end, EXEC_EXITED);
	/* eo_out is bytes, not a string. */
	snprintf(got, sizeof(got), "%.*s", (int)o.eo_out_len,
	    o.eo_out != NULL ? o.eo_out : "");
	if (strstr(got, want) == NULL)
		fail_msg("the child's /proc/self/cgroup has no \"%s\": %s",
		    want, got);
	exec_outcome_clear(&o);
	assert_int_equal(rmdir(dir), 0);
}

/* A directory that is no cgroup: nothing starts, and the error says so. */
static void
test_no_cgroup_no_child(void **state)
{
	struct exec_outcome o;
	struct bx_error err;
	int fd;

	(void)state;
	assert_true((fd = open("/", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) >= 0);
	assert_int_equal(run_in(fd, &o, &err), -1);
	close(fd);
	if (strstr(err.msg, "clone3 into the call's cgroup") == NULL)
		fail_msg("unexpected error: %s", err.msg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_start_is_not_the_tools_time),
		cmocka_unit_test(test_started_line_split_across_reads),
		cmocka_unit_test(test_tool_time_counts_from_started),
		cmocka_unit_test(test_start_has_its_own_bound),
		cmocka_unit_test(test_without_a_start_bound_the_fork_counts),
		cmocka_unit_test(test_child_is_made_in_the_cgroup),
		cmocka_unit_test(test_no_cgroup_no_child),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
