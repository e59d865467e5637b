/*
 * test-runner.c: the runner seam (design section 7). A recording runtime
 * shows, per tool, the mounts and egress runner_run puts in the spec, and
 * that only allowed or approved decisions reach it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/runner/runner.h"
#include "grants-fixture.h"
#include "recording.h"

#define LATER	"2027-01-01T00:00:00.000Z"

struct fixture {
	char			*dir;
	struct recording	 rec;
	struct runtime		 rt;
	int64_t			 now;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;

	f->dir = fixture_dir();
	recording_init(&f->rec);
	f->rt = recording_runtime(&f->rec);
	if (bx_time_parse("2026-09-18T12:00:00.000Z", &f->now, &err) == -1)
		return -1;
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	recording_free(&f->rec);
	fixture_remove(f->dir);
	free(f->dir);
	free(f);
	return 0;
}

static struct decision *
decide(struct fixture *f, const char *tool, const char *args)
{
	struct policy_request r = { tool, args, strlen(args), BX_CLASS_PRIVATE,
	    false, f->now };
	struct decision *d = NULL;
	struct bx_error err;

	if (policy_decide(f->dir, &r, &d, NULL, &err) != 0)
		fail_msg("policy_decide: %s", err.msg);
	return d;
}

/* Decides and runs one call that must run; returns what the fake saw. */
static struct recorded_call *
run_one(struct fixture *f, const char *tool, const char *args)
{
	struct decision *d = decide(f, tool, args);
	struct run_result rr;
	struct bx_error err;
	size_t before = recording_count(&f->rec);

	if (runner_run(d, false, NULL, &f->rt, &rr, &err) == -1)
		fail_msg("runner_run %s: %s", tool, err.msg);
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_string_equal(rr.rr_text, "content");
	run_result_clear(&rr);
	decision_free(d);
	assert_int_equal(recording_count(&f->rec), before + 1);
	return &f->rec.calls[before];
}

/*
 * c mounts exactly the paths given (a NULL ends them), in that order, all
 * writable or all read-only.
 */
static void
expect_mounts(const struct recorded_call *c, int writable, ...)
{
	const char *path;
	va_list ap;
	size_t n = 0;

	va_start(ap, writable);
	while ((path = va_arg(ap, const char *)) != NULL) {
		assert_true(n < c->nmounts);
		assert_string_equal(c->mounts[n], path);
		assert_int_equal(c->writable[n], writable != 0);
		n++;
	}
	va_end(ap);
	assert_int_equal(c->nmounts, n);
}

static void
test_read_file_mounts_the_matched_path_read_only(void **state)
{
	struct fixture *f = *state;
	struct recorded_call *c;

	fixture_grant(f->dir, "notes", "read_file", "auto", "secret", LATER,
	    "paths = [\"/home/kyle\", \"/home/kyle/notes\", \"/srv\"]");
	c = run_one(f, "read_file", "{\"path\":\"/home/kyle/notes/a.md\"}");
	assert_int_equal(c->tool, BX_TOOL_READ_FILE);
	assert_string_equal(c->path, "/home/kyle/notes/a.md");
	expect_mounts(c, false, "/home/kyle/notes", NULL);
	assert_false(c->has_egress);
	assert_int_equal(c->negress, 0);
}

static void
test_write_file_mounts_the_matched_path_writable(void **state)
{
	struct fixture *f = *state;
	struct recorded_call *c;

	fixture_grant(f->dir, "scratch", "write_file", "auto", "secret", LATER,
	    "paths = [\"/srv\", \"/home/kyle/scratch\"]");
	c = run_one(f, "write_file",
	    "{\"path\":\"/home/kyle/scratch/b.txt\",\"content\":\"hi\"}");
	assert_int_equal(c->tool, BX_TOOL_WRITE_FILE);
	assert_string_equal(c->content, "hi");
	expect_mounts(c, true, "/home/kyle/scratch", NULL);
	assert_false(c->has_egress);
}

static void
test_shell_mounts_every_grant_path_writable(void **state)
{
	struct fixture *f = *state;
	struct recorded_call *c;

	fixture_grant(f->dir, "build", "shell", "auto", "secret", LATER,
	    "paths = [\"/home/kyle/src\", \"/home/kyle/scratch\"]");
	c = run_one(f, "shell",
	    "{\"command\":\"make\",\"cwd\":\"/home/kyle/src/boxmaker\"}");
	assert_int_equal(c->tool, BX_TOOL_SHELL);
	assert_string_equal(c->command, "make");
	expect_mounts(c, true, "/home/kyle/src", "/home/kyle/scratch", NULL);
	assert_false(c->has_egress);
}

static void
test_shell_without_paths_mounts_nothing(void **state)
{
	struct fixture *f = *state;
	struct recorded_call *c;

	fixture_grant(f->dir, "anywhere", "shell", "auto", "secret", LATER, "");
	c = run_one(f, "shell", "{\"command\":\"date\"}");
	assert_int_equal(c->nmounts, 0);
	assert_null(c->cwd);
	assert_false(c->has_egress);
}

static void
test_http_fetch_has_egress_to_the_grant_hosts_only(void **state)
{
	struct fixture *f = *state;
	struct recorded_call *c;

	fixture_grant(f->dir, "docs", "http_fetch", "auto", "secret", LATER,
	    "hosts = [\"example.com\", \"*.example.org\"]");
	c = run_one(f, "http_fetch", "{\"url\":\"https://www.example.org/a\"}");
	assert_int_equal(c->tool, BX_TOOL_HTTP_FETCH);
	assert_string_equal(c->url, "https://www.example.org/a");
	assert_int_equal(c->nmounts, 0);
	assert_true(c->has_egress);
	assert_int_equal(c->negress, 2);
	assert_string_equal(c->egress[0], "example.com");
	assert_string_equal(c->egress[1], "*.example.org");
}

static void
test_only_allowed_or_approved_decisions_run(void **state)
{
	struct fixture *f = *state;
	struct decision *d;
	struct run_result rr;
	struct bx_error err;

	fixture_grant(f->dir, "ask-notes", "read_file", "ask", "secret", LATER,
	    "paths = [\"/notes\"]");
	fixture_grant(f->dir, "no-etc", "read_file", "deny", "secret", LATER,
	    "paths = [\"/etc\"]");
	d = decide(f, "read_file", "{\"path\":\"/etc/passwd\"}");
	assert_int_equal(decision_outcome(d).kind, BX_OUTCOME_DENIED);
	assert_int_equal(runner_run(d, true, NULL, &f->rt, &rr, &err), -1);
	decision_free(d);
	d = decide(f, "read_file", "{\"path\":\"/nowhere\"}");
	assert_int_equal(runner_run(d, true, NULL, &f->rt, &rr, &err), -1);
	decision_free(d);
	d = decide(f, "read_file", "{\"path\":\"/notes/x\"}");
	assert_int_equal(decision_outcome(d).kind, BX_OUTCOME_ASK);
	assert_int_equal(runner_run(d, false, NULL, &f->rt, &rr, &err), -1);
	assert_int_equal(recording_count(&f->rec), 0);
	assert_int_equal(runner_run(d, true, NULL, &f->rt, &rr, &err), 0);
	assert_int_equal(recording_count(&f->rec), 1);
	assert_string_equal(f->rec.calls[0].mounts[0], "/notes");
	run_result_clear(&rr);
	decision_free(d);
}

static void
test_refusing_runtime_says_so(void **state)
{
	struct fixture *f = *state;
	struct decision *d;
	struct run_result rr;
	struct bx_error err;

	fixture_grant(f->dir, "notes", "read_file", "auto", "secret", LATER,
	    "paths = [\"/notes\"]");
	d = decide(f, "read_file", "{\"path\":\"/notes/x\"}");
	assert_int_equal(runner_run(d, false, NULL, &runner_refusing, &rr, &err), 0);
	assert_int_equal(rr.rr_status, RUN_UNAVAILABLE);
	assert_string_equal(rr.rr_text, "no tool runs: the runner kind "
	    "is refuse");
	assert_false(rr.rr_truncated);
	run_result_clear(&rr);
	/* A runtime that cannot say why is unavailable, with its message. */
	f->rec.hard_fail = true;
	assert_int_equal(runner_run(d, false, NULL, &f->rt, &rr, &err), 0);
	assert_int_equal(rr.rr_status, RUN_UNAVAILABLE);
	assert_string_equal(rr.rr_text, "recording: told to fail");
	run_result_clear(&rr);
	run_result_clear(NULL);
	decision_free(d);
}

/* A runtime that fails without a message and leaves text behind. */
static int
silent_run(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	(void)ctx;
	(void)spec;
	(void)err;
	ret->rr_status = RUN_OK;
	ret->rr_text = strdup("half an answer");
	return -1;
}

static void
test_a_silent_runtime_failure_is_unavailable(void **state)
{
	struct fixture *f = *state;
	struct runtime silent = { silent_run, NULL };
	struct decision *d;
	struct run_result rr;
	struct bx_error err;

	fixture_grant(f->dir, "notes", "read_file", "auto", "secret", LATER,
	    "paths = [\"/notes\"]");
	d = decide(f, "read_file", "{\"path\":\"/notes/x\"}");
	/* A message of runner.c's own, and what it left is freed. */
	assert_int_equal(runner_run(d, false, NULL, &silent, &rr, &err), 0);
	assert_int_equal(rr.rr_status, RUN_UNAVAILABLE);
	assert_string_equal(rr.rr_text, "the runtime failed without saying why");
	assert_false(rr.rr_truncated);
	run_result_clear(&rr);
	decision_free(d);
}

static void
test_failures_and_truncation_pass_through(void **state)
{
	struct fixture *f = *state;
	struct decision *d;
	struct run_result rr;
	struct bx_error err;

	fixture_grant(f->dir, "notes", "read_file", "auto", "secret", LATER,
	    "paths = [\"/notes\"]");
	d = decide(f, "read_file", "{\"path\":\"/notes/x\"}");
	f->rec.truncated = true;
	assert_int_equal(runner_run(d, false, NULL, &f->rt, &rr, &err), 0);
	assert_int_equal(rr.rr_status, RUN_OK);
	assert_true(rr.rr_truncated);
	run_result_clear(&rr);
	f->rec.status = RUN_FAILED;
	snprintf(f->rec.text, sizeof(f->rec.text), "cat: x: No such file");
	assert_int_equal(runner_run(d, false, NULL, &f->rt, &rr, &err), 0);
	assert_int_equal(rr.rr_status, RUN_FAILED);
	assert_string_equal(rr.rr_text, "cat: x: No such file");
	assert_false(rr.rr_truncated);
	run_result_clear(&rr);
	decision_free(d);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_read_file_mounts_the_matched_path_read_only),
		T(test_write_file_mounts_the_matched_path_writable),
		T(test_shell_mounts_every_grant_path_writable),
		T(test_shell_without_paths_mounts_nothing),
		T(test_http_fetch_has_egress_to_the_grant_hosts_only),
		T(test_only_allowed_or_approved_decisions_run),
		T(test_refusing_runtime_says_so),
		T(test_a_silent_runtime_failure_is_unavailable),
		T(test_failures_and_truncation_pass_through),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
