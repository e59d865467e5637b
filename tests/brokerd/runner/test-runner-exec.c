/*
 * test-runner-exec.c: a call's time is the tool's (brokerd/runner_exec.h).
 * With a start bound, the timeout counts from bxtool's "started" line, so
 * a runtime that is slow to start does not eat the tool's time; the start
 * has its own bound; a started line that does not begin a line does not
 * count; without a start bound the timeout counts from the fork, as podman
 * rm and ps need. The "runtimes" are sh scripts that take their time on
 * purpose: a slow start is the thing under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <string.h>
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
	struct exec_hooks hooks = { NULL, NULL };
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slow_start_is_not_the_tools_time),
		cmocka_unit_test(test_started_line_split_across_reads),
		cmocka_unit_test(test_tool_time_counts_from_started),
		cmocka_unit_test(test_start_has_its_own_bound),
		cmocka_unit_test(test_without_a_start_bound_the_fork_counts),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
