/*
 * test-chat-stream.c: bxctl chat and the model's text_delta events, run as
 * the real binary against a fake loopd: the pieces printed in order on one
 * "model: " line, the text or reply that repeats them not printed again,
 * a line that an error or a broken frame cuts short ended first, --json
 * printing every delta as its own line, and hostile pieces (an escape
 * sequence cut across deltas, bidi and zero-width characters, invalid
 * UTF-8) printed inert. A UTF-8 character cut across pieces cannot come
 * through JSON frames; escape_stream's tests (test-escape.c) cut it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "fake.h"
#include "run.h"

#define SESSION		"chat-1758200000000"
#define EVENT(final, rest) \
	"{\"kind\":\"turn_event\",\"final\":" #final "," rest "}"
#define STARTED \
	EVENT(false, "\"type\":\"started\",\"session\":\"" SESSION "\"")
/* A text_delta frame; piece is JSON string content. */
#define DELTA(piece) EVENT(false, "\"type\":\"text_delta\",\"text\":\"" \
	piece "\"")
#define TEXT(text) EVENT(false, "\"type\":\"text\",\"text\":\"" text "\"")
#define DONE(reply) EVENT(true, "\"type\":\"done\",\"reply\":\"" reply "\"")

struct env {
	char		*dir;
	char		 loop_sock[512];
	struct fake	*loop;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	assert_non_null(e);
	e->dir = run_tempdir();
	snprintf(e->loop_sock, sizeof(e->loop_sock), "%s/loop.sock", e->dir);
	e->loop = fake_loop_start(e->loop_sock, NULL);
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	fake_stop(e->loop);
	run_rmdir(e->dir);
	free(e);
	return 0;
}

static void
script(struct env *e, const char *const *lines)
{
	for (; *lines != NULL; lines++)
		fake_loop_script(e->loop, *lines);
}

static void
say(struct env *e, struct run_result *res, bool json)
{
	const char *args[] = { "chat", "--loop-socket", e->loop_sock, "--say",
	    "hi", json ? "--json" : NULL, NULL };

	run_bxctl(args, e->dir, NULL, res);
}

static void
assert_clean(const struct run_result *res)
{
	long at;

	if ((at = run_find_control(res->out, res->outlen)) != -1)
		fail_msg("stdout has byte 0x%02x at offset %ld: %s",
		    (unsigned char)res->out[at], at, res->out);
	if ((at = run_find_control(res->err, res->errlen)) != -1)
		fail_msg("stderr has byte 0x%02x at offset %ld",
		    (unsigned char)res->err[at], at);
}

static void
test_deltas_in_order_not_repeated(void **state)
{
	static const char *const lines[] = { STARTED, DELTA("Let"),
	    DELTA(" me"), DELTA(" look."), TEXT("Let me look."),
	    EVENT(false, "\"type\":\"tool_call\",\"call\":\"call_0\",\"tool\":"
	    "\"clock\",\"arguments\":\"{}\""),
	    EVENT(false, "\"type\":\"tool_result\",\"call\":\"call_0\","
	    "\"status\":\"result\",\"content\":\"2026-12-04T10:00:00.000Z\","
	    "\"class\":\"public\",\"untrusted\":false"),
	    DELTA("It is"), DELTA(" ten."), DONE("It is ten."), NULL };
	struct env *e = *state;
	struct run_result res;

	script(e, lines);
	say(e, &res, false);
	assert_string_equal(res.out, "session " SESSION "\n"
	    "model: Let me look.\n"
	    "call call_0: clock {}\n"
	    "result call_0: result (public): 2026-12-04T10:00:00.000Z\n"
	    "model: It is ten.\n");
	assert_string_equal(res.err, "");
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

/* A reply that differs from its pieces is shown: nothing is lost. */
static void
test_reply_unlike_deltas_shown(void **state)
{
	static const char *const lines[] = { STARTED, DELTA("Hel"),
	    DONE("Hello."), NULL };
	struct env *e = *state;
	struct run_result res;

	script(e, lines);
	say(e, &res, false);
	assert_string_equal(res.out, "session " SESSION "\n"
	    "model: Hel\nmodel: Hello.\n");
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

static void
test_error_ends_line(void **state)
{
	static const char *const lines[] = { STARTED, DELTA("Hello"),
	    EVENT(true, "\"type\":\"error\",\"message\":\"the model server "
	    "went silent\""), NULL };
	struct env *e = *state;
	struct run_result res;

	script(e, lines);
	say(e, &res, false);
	assert_string_equal(res.out, "session " SESSION "\n"
	    "model: Hello\nerror: the model server went silent\n");
	assert_int_equal(res.status, 1);
	run_result_free(&res);
}

/*
 * JSON cannot carry invalid UTF-8: the frame is refused, inert, and the
 * line it would have added to is ended first.
 */
static void
test_broken_frame_ends_line(void **state)
{
	static const char *const lines[] = { STARTED, DELTA("Hello"),
	    "{\"kind\":\"turn_event\",\"final\":false,\"type\":\"text_delta\","
	    "\"text\":\"\xff\xfe\x1b[2J\xe2\x80\"}", NULL };
	struct env *e = *state;
	struct run_result res;

	script(e, lines);
	say(e, &res, false);
	assert_clean(&res);
	assert_string_equal(res.out, "session " SESSION "\nmodel: Hello\n");
	assert_non_null(strstr(res.err, "bxctl: loopd sent a frame bxctl "
	    "cannot read"));
	assert_int_equal(res.status, 1);
	run_result_free(&res);
}

static void
test_json_prints_each_delta(void **state)
{
	static const char *const lines[] = { STARTED, DELTA("caf\xc3\xa9"),
	    DELTA("\\u001b"), DELTA("[2J"), DONE("caf\xc3\xa9\\u001b[2J"),
	    NULL };
	struct env *e = *state;
	struct run_result res;

	script(e, lines);
	say(e, &res, true);
	assert_clean(&res);
	assert_string_equal(res.out, STARTED "\n"
	    DELTA("caf\\u00e9") "\n" DELTA("\\u001b") "\n" DELTA("[2J") "\n"
	    DONE("caf\\u00e9\\u001b[2J") "\n");
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

/*
 * Escape sequences cut across deltas (CSI, OSC with its BEL, a C1 CSI),
 * ESC alone in a delta, bidi overrides and isolates alone in deltas,
 * zero-width characters and a BOM between pieces, a backspace run.
 */
static void
test_hostile_deltas_inert(void **state)
{
	static const char *const lines[] = { STARTED,
	    DELTA("safe \\u001b"), DELTA("[2J"), DELTA("\\u001b["),
	    DELTA("31mred"), DELTA("\\u001b]0;"), DELTA("owned"),
	    DELTA("\\u0007 \xc2\x9b"), DELTA("32m "), DELTA("\xe2\x80\xae"),
	    DELTA("txt.exe"), DELTA("\xe2\x81\xa6"), DELTA("x\xe2\x81\xa9"),
	    DELTA(" a"), DELTA("\xe2\x80\x8b"), DELTA("b\\u200d\xef\xbb\xbf"),
	    DELTA(" safe"), DELTA("\\b\\b\\b\\b"), DELTA("evil\\r"),
	    DONE("safe \\u001b[2J\\u001b[31mred\\u001b]0;owned\\u0007 \xc2\x9b"
	    "32m \xe2\x80\xaetxt.exe\xe2\x81\xa6x\xe2\x81\xa9 a\xe2\x80\x8b"
	    "b\\u200d\xef\xbb\xbf safe\\b\\b\\b\\bevil\\r"), NULL };
	struct env *e = *state;
	struct run_result res;

	script(e, lines);
	say(e, &res, false);
	assert_clean(&res);
	assert_string_equal(res.out, "session " SESSION "\n"
	    "model: safe \\u001b[2J\\u001b[31mred\\u001b]0;owned\\u0007 "
	    "\\u009b32m \\u202etxt.exe\\u2066x\\u2069 a\\u200bb\\u200d\\ufeff "
	    "safe\\u0008\\u0008\\u0008\\u0008evil\\u000d\n");
	assert_int_equal(res.status, 0);
	run_result_free(&res);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_deltas_in_order_not_repeated, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reply_unlike_deltas_shown,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_ends_line, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_broken_frame_ends_line,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_json_prints_each_delta,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_deltas_inert,
		    setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
