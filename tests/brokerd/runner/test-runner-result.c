/*
 * test-runner-result.c: what a sandbox's run becomes for the model
 * (runner_result.h), from made-up runs: the helper's status lines, the
 * runtime's words, early ends, the output limit cut at a UTF-8 boundary,
 * U+FFFD for bytes that are not UTF-8, the 1 MiB answer frame, and the
 * process limit said beside whatever ended the call.
 */
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/runner/runner_result.h"
#include "proto/frame.h"

/* What the egress proxy reported, for http_fetch's runs. */
static const char *egress_refusal;
static int64_t egress_limit;
/* Whether stderr went past what is kept. */
static bool err_lost;
/* Whether the call reached its process limit (of 32). */
static bool pids_hit;

/* A run whose stdout is out (len bytes) and stderr err. */
static struct run_result
shape(enum bx_tool tool, enum exec_end end, const char *out, size_t len,
    const char *err, bool oomed, size_t limit)
{
	struct exec_outcome o;
	struct result_input in;
	struct run_result r;
	struct bx_error e;

	memset(&o, 0, sizeof(o));
	o.eo_end = end;
	o.eo_out = (char *)out;
	o.eo_out_len = len;
	o.eo_err = (char *)err;
	o.eo_err_len = strlen(err);
	o.eo_err_lost = err_lost;
	memset(&in, 0, sizeof(in));
	in.ri_tool = tool;
	in.ri_run = &o;
	in.ri_runtime = "bwrap";
	in.ri_oomed = oomed;
	in.ri_pids_hit = pids_hit;
	in.ri_pids = 32;
	in.ri_timeout_ms = 2500;
	in.ri_start_timeout_ms = 30000;
	in.ri_memory_mb = 64;
	in.ri_output_bytes = limit;
	in.ri_egress_refusal = egress_refusal;
	in.ri_egress_limit = egress_limit;
	if (runner_result(&in, &r, &e) == -1)
		fail_msg("runner_result: %s", e.msg);
	return r;
}

#define STARTED	"bxtool: started\n"

static void
expect(struct run_result r, enum run_status status, const char *text,
    bool truncated)
{
	assert_int_equal(r.rr_status, status);
	assert_string_equal(r.rr_text, text);
	assert_int_equal(r.rr_truncated, truncated);
	run_result_clear(&r);
}

static void
test_file_tools(void **state)
{
	(void)state;
	expect(shape(BX_TOOL_READ_FILE, EXEC_EXITED, "text\n", 5,
	    STARTED "bxtool: ok\n", false, 100), RUN_OK, "text\n", false);
	expect(shape(BX_TOOL_READ_FILE, EXEC_EXITED, "te", 2,
	    STARTED "bxtool: truncated\n", false, 2), RUN_OK, "te", true);
	expect(shape(BX_TOOL_READ_FILE, EXEC_EXITED, "", 0,
	    STARTED "bxtool: failed not UTF-8 text (9 bytes)\n", false, 100),
	    RUN_FAILED, "not UTF-8 text (9 bytes)", false);
	/* A status line is the last one after "started". */
	expect(shape(BX_TOOL_WRITE_FILE, EXEC_EXITED, "wrote 2 bytes to /a", 19,
	    STARTED "bxtool: ok\n", false, 100), RUN_OK, "wrote 2 bytes to /a",
	    false);
}

/*
 * More on stderr than is kept: a command wrote there through /proc, and
 * whatever status line is left is not bxtool's last. Failed, not forged.
 */
static void
test_status_channel_overflowed(void **state)
{
	(void)state;
	err_lost = true;
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "real\n", 5,
	    STARTED "bxtool: truncated\n", false, 100), RUN_FAILED,
	    "the tool's status was lost: more than 64 KiB came on the "
	    "sandbox's stderr, where only bxtool writes", false);
	expect(shape(BX_TOOL_READ_FILE, EXEC_EXITED, "text\n", 5,
	    STARTED "bxtool: ok\n", false, 100), RUN_FAILED,
	    "the tool's status was lost: more than 64 KiB came on the "
	    "sandbox's stderr, where only bxtool writes", false);
	err_lost = false;
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "real\n", 5,
	    STARTED "bxtool: exit 0\n", false, 100), RUN_OK, "real\n", false);
}

/* A fetch's body, its status, its text, and the proxy's reasons. */
static void
test_http_fetch(void **state)
{
	static char big[4096];
	struct run_result r;

	(void)state;
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "hello\n", 6,
	    STARTED "bxtool: http 200\n", false, 100), RUN_OK, "hello\n",
	    false);
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "", 0,
	    STARTED "bxtool: http 204\n", false, 100), RUN_OK, "", false);
	/* Cut by bxtool inside a sequence: the cut moves back to its start. */
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "ab\xc3", 3,
	    STARTED "bxtool: http 200 truncated\n", false, 3), RUN_OK, "ab",
	    true);
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "caf\xe9\n", 5,
	    STARTED "bxtool: http 200\n", false, 100), RUN_FAILED,
	    "not UTF-8 text", false);
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "a\0b", 3,
	    STARTED "bxtool: http 200\n", false, 100), RUN_FAILED,
	    "not UTF-8 text", false);
	/* Any other status: its code and the body's first 1 KiB, U+FFFD'd. */
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "gone\xff", 5,
	    STARTED "bxtool: http 404\n", false, 100), RUN_FAILED,
	    "HTTP 404: gone\xef\xbf\xbd", false);
	memset(big, 'x', sizeof(big));
	r = shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, big, sizeof(big),
	    STARTED "bxtool: http 500\n", false, sizeof(big));
	assert_int_equal(r.rr_status, RUN_FAILED);
	assert_int_equal(strlen(r.rr_text), strlen("HTTP 500: ") +
	    RESULT_HTTP_BODY_MAX);
	run_result_clear(&r);
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "", 0,
	    STARTED "bxtool: failed curl: (60) SSL certificate problem\n",
	    false, 100), RUN_FAILED, "curl: (60) SSL certificate problem",
	    false);
	/* The proxy's refusal names the cause instead of curl's words. */
	egress_refusal = "egress refused other.test:443: not in the grant's "
	    "hosts";
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "", 0,
	    STARTED "bxtool: failed curl: (97) Can't complete SOCKS5\n",
	    false, 100), RUN_FAILED, egress_refusal, false);
	/* The byte limit wins, even over a 200 of a body cut where it closed. */
	egress_limit = 32768;
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "aaaa", 4,
	    STARTED "bxtool: http 200\n", false, 100), RUN_FAILED,
	    "egress byte limit reached (32768 bytes)", false);
	egress_refusal = NULL;
	egress_limit = 0;
	/* A line bxtool does not write is no status. */
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "x", 1,
	    STARTED "bxtool: http 200 later\n", false, 100), RUN_FAILED,
	    "the tool ended without a status: bwrap exited 0", false);
	/*
	 * Nor is a file tool's "ok" (fuzz/regress/runner-result): the body
	 * would come back U+FFFD'd, past the rule that it be UTF-8.
	 */
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "caf\xe9", 4,
	    STARTED "bxtool: ok\n", false, 100), RUN_FAILED,
	    "the tool ended without a status: bwrap exited 0", false);
	expect(shape(BX_TOOL_HTTP_FETCH, EXEC_EXITED, "x", 1,
	    STARTED "bxtool: truncated\n", false, 100), RUN_FAILED,
	    "the tool ended without a status: bwrap exited 0", false);
}

static void
test_shell_status_lines(void **state)
{
	(void)state;
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "out\n", 4,
	    STARTED "bxtool: exit 0\n", false, 100), RUN_OK, "out\n", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "out", 3,
	    STARTED "bxtool: exit 3\n", false, 100), RUN_OK,
	    "out\nexit status 3", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0,
	    STARTED "bxtool: signal 9\n", false, 100), RUN_OK,
	    "killed by signal 9", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "a\xff" "b\0c", 5,
	    STARTED "bxtool: exit 0\n", false, 100), RUN_OK,
	    "a\xef\xbf\xbd" "b\xef\xbf\xbd" "c", false);
	/* The helper died without a word. */
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0, STARTED, false, 100),
	    RUN_FAILED, "the tool ended without a status: bwrap exited 0",
	    false);
}

static void
test_early_ends(void **state)
{
	(void)state;
	expect(shape(BX_TOOL_SHELL, EXEC_TIMED_OUT, "so far", 6, STARTED,
	    false, 100), RUN_FAILED, "timed out after 2.5 s\nso far", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0,
	    STARTED "bxtool: signal 9\n", true, 100), RUN_FAILED,
	    "out of memory (64 MiB)", false);
	expect(shape(BX_TOOL_SHELL, EXEC_HUNG_UP, "x", 1, STARTED, false, 100),
	    RUN_FAILED, "the caller went away", false);
	/* Not started: the runtime's words, nothing of a tool. */
	expect(shape(BX_TOOL_SHELL, EXEC_HUNG_UP, "", 0, "", false, 100),
	    RUN_UNAVAILABLE, "the caller went away", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0,
	    "bwrap: Can't mkdir /x\nbwrap: \xff\n", false, 100),
	    RUN_UNAVAILABLE, "bwrap could not start the sandbox: bwrap: Can't "
	    "mkdir /x; bwrap: \xef\xbf\xbd", false);
	expect(shape(BX_TOOL_SHELL, EXEC_TIMED_OUT, "", 0, "", false, 100),
	    RUN_UNAVAILABLE, "bwrap: the sandbox did not start within 30000 ms "
	    "([runner] start_timeout_ms); see docs/runbook.md#runner-unavailable",
	    false);
}

/* Past the limit: the first bytes, a split sequence dropped, truncated. */
static void
test_output_limit(void **state)
{
	(void)state;
	expect(shape(BX_TOOL_SHELL, EXEC_CAPPED, "ab\xe2\x82\xac", 6, STARTED,
	    false, 4), RUN_OK, "ab", true);
	expect(shape(BX_TOOL_SHELL, EXEC_CAPPED, "ab\xe2\x82\xac", 6, STARTED,
	    false, 5), RUN_OK, "ab\xe2\x82\xac", true);
}

/* Content whose escaping passes the frame is cut until it fits. */
static void
test_frame_limit(void **state)
{
	size_t len = 1048576;
	char *out = malloc(len);
	struct run_result r;

	(void)state;
	assert_non_null(out);
	memset(out, '\n', len);	/* two bytes each once escaped */
	r = shape(BX_TOOL_READ_FILE, EXEC_EXITED, out, len,
	    STARTED "bxtool: ok\n", false, len);
	assert_int_equal(r.rr_status, RUN_OK);
	assert_true(r.rr_truncated);
	assert_true(runner_json_len(r.rr_text, strlen(r.rr_text)) <=
	    BX_FRAME_MAX - RESULT_FRAME_RESERVE);
	assert_true(strlen(r.rr_text) > BX_FRAME_MAX / 2 - RESULT_FRAME_RESERVE);
	run_result_clear(&r);
	free(out);
}

/* The process limit, said beside the status line or as one. */
static void
test_process_limit(void **state)
{
	(void)state;
	pids_hit = true;
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "fork: retry\n", 12,
	    STARTED "bxtool: exit 2\n", false, 100), RUN_OK, "fork: retry\n"
	    "exit status 2; the process limit (32) was reached", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0,
	    STARTED "bxtool: signal 9\n", false, 100), RUN_OK,
	    "killed by signal 9; the process limit (32) was reached", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "done", 4,
	    STARTED "bxtool: exit 0\n", false, 100), RUN_OK,
	    "done\nthe process limit (32) was reached", false);
	/* Output cut at the limit still says why. */
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "abcdef", 6,
	    STARTED "bxtool: exit 2\n", false, 4), RUN_OK,
	    "abcd\nexit status 2; the process limit (32) was reached", true);
	expect(shape(BX_TOOL_SHELL, EXEC_CAPPED, "abcdef", 6, STARTED,
	    false, 4), RUN_OK, "abcd\nthe process limit (32) was reached",
	    true);
	expect(shape(BX_TOOL_SHELL, EXEC_TIMED_OUT, "so far", 6, STARTED,
	    false, 100), RUN_FAILED, "timed out after 2.5 s; the process "
	    "limit (32) was reached\nso far", false);
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0, STARTED, false, 100),
	    RUN_FAILED, "the tool ended without a status: bwrap exited 0; "
	    "the process limit (32) was reached", false);
	/* Out of memory says only that. */
	expect(shape(BX_TOOL_SHELL, EXEC_EXITED, "", 0,
	    STARTED "bxtool: signal 9\n", true, 100), RUN_FAILED,
	    "out of memory (64 MiB)", false);
	pids_hit = false;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_file_tools),
		cmocka_unit_test(test_status_channel_overflowed),
		cmocka_unit_test(test_http_fetch),
		cmocka_unit_test(test_shell_status_lines),
		cmocka_unit_test(test_early_ends),
		cmocka_unit_test(test_output_limit),
		cmocka_unit_test(test_frame_limit),
		cmocka_unit_test(test_process_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
