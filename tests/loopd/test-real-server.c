/*
 * test-real-server.c: turns against the fake llama-server speaking what a
 * real llama-server sent (docs of the shapes: fake_gate.h, fake_llama.h):
 * answers cut at the length limit, arguments that are no JSON object, a
 * prompt past the context, an API key, a router's model names, and every
 * error body quoted with its runbook entry. Each case also runs the next
 * turn of the same session, since the failure that matters is a session
 * left broken.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "loopd/session_log.h"
#include "turnrig.h"

/* The error that ended the turn; fails unless it holds each of says. */
static void
expect_error(const struct tu_events *ev, const char *const *says)
{
	const struct bx_turn_event *e = &ev->ev[ev->n - 1]->turn_event;

	assert_int_equal(e->type, BX_EVENT_ERROR);
	for (; *says != NULL; says++)
		if (strstr(e->text, *says) == NULL)
			fail_msg("\"%s\" lacks \"%s\"", e->text, *says);
}

/* The session log's lines (0 when there is none). */
static size_t
log_lines(struct rig *r, const char *session)
{
	struct bx_error err;
	json_t *history;
	size_t n;

	assert_int_equal(session_log_load(r->home, session, &history, &err),
	    0);
	n = json_array_size(history);
	json_decref(history);
	return n;
}

static void
test_cut_inside_a_call(void **state)
{
	static const char *const says[] = { "cut off", "finish_reason "
	    "\"length\"", "after 8 tokens", "call of clock", "not run",
	    "docs/runbook.md#model-cut-off", NULL };
	struct tu_events ev;
	struct rig r;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"clock\",\"arguments\":\"{\","
	    "\"id\":\"pWTVRyQ6IDMsaPKB2icysdinXW50l9cC\"}],"
	    "\"finish_reason\":\"length\"},{\"text\":\"It is late.\"}]", NULL, 0);
	assert_int_equal(run(&r, "cut-1", "What time is it?", &ev), -1);
	expect_error(&ev, says);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_CALL), 0);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 0);
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "cut-1"), 0);
	/* The next turn is accepted: nothing of the cut call was kept. */
	assert_int_equal(run(&r, "cut-1", "And now?", &ev), 0);
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text,
	    "It is late.");
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "cut-1"), 2);
	rig_down(&r);
}

static void
test_cut_text_is_no_reply(void **state)
{
	static const char *const says[] = { "cut off", "not taken as a reply",
	    NULL };
	struct tu_events ev;
	struct rig r;

	(void)state;
	rig_up(&r, "[{\"text\":\"<tool_call>\\n\\n {\\\"name\\\":\\\"clock\","
	    "\"finish_reason\":\"length\"},"
	    "{\"text\":\"The answer was long\",\"finish_reason\":\"length\"}]",
	    NULL, 0);
	assert_int_equal(run(&r, "cut-2", "hi", &ev), -1);
	expect_error(&ev, says);
	assert_null(tu_find(&ev, BX_EVENT_DONE, 0));
	tu_events_free(&ev);
	assert_int_equal(run(&r, "cut-2", "hi", &ev), -1);
	expect_error(&ev, says);
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "cut-2"), 0);
	rig_down(&r);
}

static void
test_arguments_not_an_object(void **state)
{
	static const char *const bad[] = { "not json", "[1]", "\"{}\"", "{" };
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *msgs, *calls;
	size_t i;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"clock\",\"arguments\":"
	    "\"not json\"},{\"name\":\"clock\",\"arguments\":\"[1]\"},"
	    "{\"name\":\"find_tool\",\"arguments\":\"\\\"{}\\\"\"},"
	    "{\"name\":\"clock\",\"arguments\":\"{\"}]},"
	    "{\"text\":\"Sorry.\"},{\"text\":\"Again.\"}]", NULL, 0);
	assert_int_equal(run(&r, "args-1", "time?", &ev), 0);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 4);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 0);
	assert_int_equal(e->status, BX_STATUS_FAILED);
	tu_events_free(&ev);
	/* What went back to the server: each call's arguments {}, each
	 * answered as invalid, quoting what the model sent. */
	msgs = request_messages(&r, 1);
	calls = json_object_get(json_array_get(msgs, 2), "tool_calls");
	for (i = 0; i < 4; i++) {
		assert_string_equal(json_string_value(json_object_get(
		    json_object_get(json_array_get(calls, i), "function"),
		    "arguments")), "{}");
		if (strstr(json_string_value(json_object_get(json_array_get(
		    msgs, 3 + i), "content")), bad[i]) == NULL ||
		    strstr(json_string_value(json_object_get(json_array_get(
		    msgs, 3 + i), "content")), "invalid call, not run") == NULL)
			fail_msg("tool message %zu does not say the call was "
			    "invalid", i);
	}
	json_decref(msgs);
	/* The history it holds is one the server accepts, turn after turn. */
	assert_int_equal(run(&r, "args-1", "again", &ev), 0);
	tu_events_free(&ev);
	rig_down(&r);
}

static const struct bx_turn_event *
second_call(const struct tu_events *ev)
{
	size_t i, seen = 0;

	for (i = 0; i < ev->n; i++)
		if (ev->ev[i]->turn_event.type == BX_EVENT_TOOL_CALL &&
		    ++seen == 2)
			return &ev->ev[i]->turn_event;
	fail_msg("no second tool_call event");
	return NULL;
}

static void
test_compact_arguments(void **state)
{
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *msgs, *calls;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"clock\",\"arguments\":"
	    "\"{\\n}\",\"id\":\"0wP89PygB3OQv0M3nEdOdAg1tDkrWr8O\"},"
	    "{\"name\":\"find_tool\",\"arguments\":\"{\\\"query\\\":\\\"\\\" }\","
	    "\"id\":\"qwrO686A2rlE5YxB00VCrrqzs0E8G8Jj\"}],\"content\":\"\"},"
	    "{\"text\":\"I called clock and find_tool.\"}]", NULL, 0);
	assert_int_equal(run(&r, "compact", "go", &ev), 0);
	e = tu_find(&ev, BX_EVENT_TOOL_CALL, 0);
	assert_string_equal(e->call, "0wP89PygB3OQv0M3nEdOdAg1tDkrWr8O");
	assert_string_equal(e->arguments, "{}");
	e = second_call(&ev);
	assert_string_equal(e->arguments, "{\"query\":\"\"}");
	/* content "" beside the calls is no text for the owner. */
	assert_int_equal(tu_count(&ev, BX_EVENT_TEXT), 0);
	tu_events_free(&ev);
	msgs = request_messages(&r, 1);
	calls = json_object_get(json_array_get(msgs, 2), "tool_calls");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_array_get(calls, 0), "function"), "arguments")), "{}");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    msgs, 3), "tool_call_id")), "0wP89PygB3OQv0M3nEdOdAg1tDkrWr8O");
	json_decref(msgs);
	rig_down(&r);
}

static void
test_context_full_then_next_turn(void **state)
{
	static const char *const says[] = { "no longer fits",
	    "the context 2000", "exceeds the available context size",
	    "docs/runbook.md#context-full", NULL };
	struct rig_model model = { .rm_gate = { .fg_n_ctx = 2000 } };
	struct tu_events ev;
	struct rig r;
	char *big;

	(void)state;
	big = malloc(20001);
	assert_non_null(big);
	memset(big, 'h', 20000);
	big[20000] = '\0';
	rig_up_model(&r, "[{\"text\":\"ok\",\"repeat\":true}]", &model, NULL, 0);
	assert_int_equal(run(&r, "full-1", "hello", &ev), 0);
	tu_events_free(&ev);
	assert_int_equal(run(&r, "full-1", big, &ev), -1);
	expect_error(&ev, says);
	assert_non_null(strstr(ev.ev[ev.n - 1]->turn_event.text,
	    "the prompt is "));
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "full-1"), 2);
	assert_int_equal(run(&r, "full-1", "hello again", &ev), 0);
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "full-1"), 4);
	free(big);
	rig_down(&r);
}

static void
test_context_full_after_a_tool(void **state)
{
	static const char *const says[] = { "no longer fits",
	    "this turn was not kept", NULL };
	static struct fbd_step steps[] = {
		{ .fa_act = FBD_RESULT },
	};
	struct rig_model model = { .rm_gate = { .fg_n_ctx = 4000 } };
	struct tu_events ev;
	struct rig r;
	char *big;

	(void)state;
	big = malloc(40001);
	assert_non_null(big);
	memset(big, 'x', 40000);
	big[40000] = '\0';
	steps[0].fa_text = big;
	rig_up_model(&r, "[{\"text\":\"hi\"},{\"tool_calls\":[{\"name\":"
	    "\"call_tool\",\"arguments\":{\"name\":\"read_file\",\"arguments\":"
	    "{\"path\":\"/big\"}}}]},{\"text\":\"ok\",\"repeat\":true}]", &model,
	    steps, 1);
	assert_int_equal(run(&r, "full-2", "hello", &ev), 0);
	tu_events_free(&ev);
	/* The read result is what overflows: the whole turn is undone. */
	assert_int_equal(run(&r, "full-2", "read /big", &ev), -1);
	expect_error(&ev, says);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 1);
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "full-2"), 2);
	assert_int_equal(run(&r, "full-2", "never mind", &ev), 0);
	tu_events_free(&ev);
	free(big);
	rig_down(&r);
}

static void
test_api_key(void **state)
{
	static const char *const says[] = { "HTTP 401", "\"Invalid API Key\"",
	    "api_key_file", "docs/runbook.md#model-refused", NULL };
	struct rig_model without = { .rm_gate = { .fg_api_key = "s3cret" } };
	struct rig_model with = { .rm_gate = { .fg_api_key = "s3cret" },
	    .rm_key = "s3cret" };
	struct tu_events ev;
	struct rig r;

	(void)state;
	rig_up_model(&r, "[{\"text\":\"ok\"}]", &without, NULL, 0);
	assert_int_equal(run(&r, "key", "hi", &ev), -1);
	expect_error(&ev, says);
	assert_null(strstr(ev.ev[ev.n - 1]->turn_event.text, "s3cret"));
	tu_events_free(&ev);
	assert_int_equal(log_lines(&r, "key"), 0);
	rig_down(&r);
	rig_up_model(&r, "[{\"text\":\"ok\"}]", &with, NULL, 0);
	assert_int_equal(run(&r, "key", "hi", &ev), 0);
	tu_events_free(&ev);
	assert_int_equal(r.nlogged, 0);
	rig_down(&r);
}

static void
test_router_model_name(void **state)
{
	static const char *const says[] = { "HTTP 400",
	    "\"model 'local' not found\"", "docs/runbook.md#model-refused",
	    NULL };
	struct rig_model local = { .rm_gate = { .fg_models = "tiny-toolcall" },
	    .rm_name = "local" };
	struct rig_model stem = { .rm_gate = { .fg_models = "tiny-toolcall" },
	    .rm_name = "tiny-toolcall" };
	struct tu_events ev;
	struct rig r;

	(void)state;
	rig_up_model(&r, "[{\"text\":\"ok\"}]", &local, NULL, 0);
	assert_int_equal(run(&r, "router", "hi", &ev), -1);
	expect_error(&ev, says);
	tu_events_free(&ev);
	rig_down(&r);
	rig_up_model(&r, "[{\"text\":\"ok\"}]", &stem, NULL, 0);
	assert_int_equal(run(&r, "router", "hi", &ev), 0);
	tu_events_free(&ev);
	rig_down(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cut_inside_a_call),
		cmocka_unit_test(test_cut_text_is_no_reply),
		cmocka_unit_test(test_arguments_not_an_object),
		cmocka_unit_test(test_compact_arguments),
		cmocka_unit_test(test_context_full_then_next_turn),
		cmocka_unit_test(test_context_full_after_a_tool),
		cmocka_unit_test(test_api_key),
		cmocka_unit_test(test_router_model_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
