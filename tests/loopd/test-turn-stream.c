/*
 * test-turn-stream.c: whole turns against llama-server's recorded streams
 * (tests/fixtures/llama-stream/), sent by the fake llama-server one event
 * per flushed chunk: the text_delta events, the calls joined from their
 * fragments, and each way a stream ends badly (cut off, an error in it, no
 * finish_reason, a line past the bound, a stall, a model that never ends
 * its answer and is stopped at [model] max_tokens) ending the turn with a
 * message and leaving the session log as it was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "loopd/model_stream.h"
#include "loopd/session_log.h"
#include "turnrig.h"

static char *
fixture(const char *name)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char dir[512];
	char *text;

	assert_non_null(root);
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/llama-stream", root);
	if ((text = tu_read(dir, name)) == NULL)
		fail_msg("cannot read %s/%s", dir, name);
	return text;
}

/*
 * A script from its replies: "@file" is a recorded stream ("@file!" the
 * same, stalled after it), anything else a reply's JSON. The caller frees
 * it.
 */
static char *
script(const char *const *replies)
{
	json_t *a = json_array(), *reply;
	size_t len;
	char *text, *out;

	for (; *replies != NULL; replies++) {
		if ((*replies)[0] != '@') {
			reply = json_loads(*replies, 0, NULL);
			assert_non_null(reply);
			json_array_append_new(a, reply);
			continue;
		}
		text = strdup(*replies + 1);
		len = strlen(text);
		if (text[len - 1] == '!')
			text[len - 1] = '\0';
		out = fixture(text);
		json_array_append_new(a, json_pack("{s:s, s:b}", "stream", out,
		    "stall", (*replies)[strlen(*replies) - 1] == '!'));
		free(out);
		free(text);
	}
	out = json_dumps(a, JSON_COMPACT);
	json_decref(a);
	return out;
}

static void
up(struct rig *r, const char *const *replies, int timeout_s)
{
	struct rig_model model = { .rm_timeout_s = timeout_s };
	char *s = script(replies);

	rig_up_model(r, s, &model, NULL, 0);
	free(s);
}

/* The deltas of the last run, joined with '|'. */
static void
joined(const struct rig *r, char *buf, size_t len)
{
	size_t i, at = 0;

	buf[0] = '\0';
	for (i = 0; i < r->deltas.n; i++) {
		assert_int_equal(r->deltas.ev[i]->turn_event.type,
		    BX_EVENT_TEXT_DELTA);
		at += (size_t)snprintf(buf + at, len - at, "%s%s", i > 0 ? "|" :
		    "", r->deltas.ev[i]->turn_event.text);
		assert_true(at < len);
	}
}

/* The session's log loads and holds n messages. */
static void
log_holds(struct rig *r, const char *session, size_t n)
{
	struct bx_error err;
	json_t *history;

	if (session_log_load(r->home, session, &history, &err) == -1)
		fail_msg("%s", err.msg);
	assert_int_equal(json_array_size(history), n);
	json_decref(history);
}

static void
test_text_streams_in_deltas(void **state)
{
	static const char *const replies[] = { "@text.sse", NULL };
	const struct bx_turn_event *e;
	struct tu_events ev;
	char buf[512];
	struct rig r;
	json_t *history;
	struct bx_error err;

	(void)state;
	up(&r, replies, 0);
	assert_int_equal(run(&r, "chat-s", "hi", &ev), 0);
	joined(&r, buf, sizeof(buf));
	assert_string_equal(buf, "Hello| from| the| tiny| test| model|.");
	/* A client that ignores deltas loses nothing. */
	assert_int_equal(ev.n, 2);
	e = tu_find(&ev, BX_EVENT_DONE, 0);
	assert_string_equal(e->text, "Hello from the tiny test model.");
	tu_events_free(&ev);
	assert_int_equal(session_log_load(r.home, "chat-s", &history, &err), 0);
	assert_int_equal(json_array_size(history), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    history, 1), "content")), "Hello from the tiny test model.");
	json_decref(history);
	rig_down(&r);
}

static void
test_calls_joined_from_fragments(void **state)
{
	static const char *const replies[] = { "@tool-call.sse",
	    "@two-calls.sse", "@call-fragments.sse", "@text-usage.sse", NULL };
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *msgs, *calls;

	(void)state;
	up(&r, replies, 0);
	assert_int_equal(run(&r, "chat-f", "what time is it?", &ev), 0);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_CALL), 4);
	e = tu_find(&ev, BX_EVENT_TOOL_CALL, 0);
	assert_string_equal(e->call, "l9DoqBs7ioKO5iA70A6KGR9GTuxPCM7b");
	assert_string_equal(e->tool, "clock");
	assert_string_equal(e->arguments, "{}");
	e = tu_find(&ev, BX_EVENT_TOOL_CALL, 2);
	assert_string_equal(e->tool, "clock");
	e = tu_find(&ev, BX_EVENT_TOOL_CALL, 4);
	assert_string_equal(e->call, "Q7r8S9t0U1v2W3x4Y5z6A7b8C9d0E1f2");
	assert_string_equal(e->tool, "find_tool");
	assert_string_equal(e->arguments, "{\"query\":\"notes\"}");
	/* call_tool's arguments, joined from 24 fragments, name the tool. */
	e = tu_find(&ev, BX_EVENT_TOOL_CALL, 6);
	assert_string_equal(e->tool, "read_file");
	assert_string_equal(e->arguments, "{\"path\":\"/etc/hostname\"}");
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 4);
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text,
	    "Hello from the tiny test model.");
	tu_events_free(&ev);
	/* The second request carries the first call back as the server
	 * sent it, joined: its id and its arguments as JSON. */
	msgs = request_messages(&r, 1);
	calls = json_object_get(json_array_get(msgs, 2), "tool_calls");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    calls, 0), "id")), "l9DoqBs7ioKO5iA70A6KGR9GTuxPCM7b");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_array_get(calls, 0), "function"), "arguments")), "{}");
	json_decref(msgs);
	/* user, 3 x (assistant with calls, its results), assistant */
	log_holds(&r, "chat-f", 1 + 2 + 3 + 2 + 1);
	rig_down(&r);
}

/* Runs a turn expected to fail; its error must hold says. */
static void
fails(struct rig *r, const char *session, const char *says,
    const char *deltas)
{
	const struct bx_turn_event *e;
	struct tu_events ev;
	char buf[512];

	assert_int_equal(run(r, session, "and now?", &ev), -1);
	e = &ev.ev[ev.n - 1]->turn_event;
	assert_int_equal(e->type, BX_EVENT_ERROR);
	if (strstr(e->text, says) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", e->text, says);
	assert_null(tu_find(&ev, BX_EVENT_DONE, 0));
	joined(r, buf, sizeof(buf));
	assert_string_equal(buf, deltas);
	tu_events_free(&ev);
}

static void
test_bad_endings_keep_the_log(void **state)
{
	static const char *const replies[] = { "@text.sse",
	    "@length-in-arguments.sse", "@length-before-arguments.sse",
	    "@error.sse", "@no-finish.sse", "@text.sse", NULL };
	struct tu_events ev;
	struct rig r;
	json_t *msgs, *big;
	char *line, *s;

	(void)state;
	up(&r, replies, 0);
	assert_int_equal(run(&r, "chat-b", "hi", &ev), 0);
	tu_events_free(&ev);
	log_holds(&r, "chat-b", 2);
	fails(&r, "chat-b", "cut off at its length limit (finish_reason "
	    "\"length\", after 9 tokens) inside a call of clock", "");
	log_holds(&r, "chat-b", 2);
	fails(&r, "chat-b", "cut off at its length limit (finish_reason "
	    "\"length\", after 6 tokens): the cut text", "");
	log_holds(&r, "chat-b", 2);
	fails(&r, "chat-b", "the answer broke off with the server's error: "
	    "\"the slot was released: out of memory in the KV cache\"",
	    "Hello");
	log_holds(&r, "chat-b", 2);
	fails(&r, "chat-b", "stream ended before its answer did",
	    "Hello| from");
	log_holds(&r, "chat-b", 2);
	/* The next turn sees none of it. */
	assert_int_equal(run(&r, "chat-b", "again", &ev), 0);
	tu_events_free(&ev);
	msgs = request_messages(&r, 5);
	assert_int_equal(json_array_size(msgs), 4);
	json_decref(msgs);
	log_holds(&r, "chat-b", 4);
	rig_down(&r);

	/* A line past the bound ends the turn as it arrives. */
	line = malloc(MODEL_STREAM_LINE_MAX + 64);
	assert_non_null(line);
	memset(line, 'x', MODEL_STREAM_LINE_MAX + 62);
	memcpy(line, "data: ", 6);
	memcpy(line + MODEL_STREAM_LINE_MAX + 60, "\n\n", 3);
	big = json_pack("[{s:s}]", "stream", line);
	free(line);
	s = json_dumps(big, JSON_COMPACT);
	json_decref(big);
	rig_up(&r, s, NULL, 0);
	free(s);
	fails(&r, "chat-l", "a line longer than 1048576 bytes", "");
	rig_down(&r);
}

static double
seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A server that sends a chunk and then nothing: timeout_s ends the turn. */
static void
test_stall_ends_at_timeout(void **state)
{
	static const char *const replies[] = { "@stall.sse!",
	    "{\"text\":\"Hello there, again.\",\"stall\":true}",
	    "@text.sse", NULL };
	struct tu_events ev;
	struct rig r;
	double t0, took;

	(void)state;
	up(&r, replies, 1);
	t0 = seconds();
	fails(&r, "chat-t", "went silent for 1 s ([model] timeout_s) in the "
	    "middle of its answer", "Hello");
	took = seconds() - t0;
	/* Not before the bound, and not long after it (libcurl looks about
	 * once a second). */
	if (took < 1.0 || took > 10.0)
		fail_msg("the stall ended the turn after %.2f s", took);
	log_holds(&r, "chat-t", 0);
	/* The generated stream stalls the same way, after its pieces. */
	fails(&r, "chat-t", "went silent for 1 s", "Hello| there,| again.");
	/* And the server is answered again once loopd gave up. */
	assert_int_equal(run(&r, "chat-t", "hi", &ev), 0);
	tu_events_free(&ev);
	log_holds(&r, "chat-t", 2);
	rig_down(&r);
}

/*
 * A model that never ends its answer: every request carries [model]
 * max_tokens, the server stops there with finish_reason "length" (the fake
 * as llama-server does), and the turn ends as a cut answer does, saying
 * max_tokens. Nothing is kept, and the next turn goes on.
 */
static void
test_endless_ends_at_max_tokens(void **state)
{
	static const char *const replies[] = { "{\"endless\":true}",
	    "{\"text\":\"Short.\"}", NULL };
	struct rig_model model = { .rm_max_tokens = 50 };
	struct tu_events ev;
	struct rig r;
	char want[512], *s;
	json_t *req;
	size_t i, at = 0;
	double t0, took;

	(void)state;
	s = script(replies);
	rig_up_model(&r, s, &model, NULL, 0);
	free(s);
	for (i = 0; i < 50; i++)
		at += (size_t)snprintf(want + at, sizeof(want) - at, "%son ",
		    i > 0 ? "|" : "");
	t0 = seconds();
	fails(&r, "chat-e", "cut off at its length limit (finish_reason "
	    "\"length\", after 50 tokens): the cut text is not taken as a "
	    "reply and this step was not kept; [model] max_tokens is 50; "
	    "see docs/runbook.md#model-cut-off", want);
	took = seconds() - t0;
	print_message("the endless answer ended at max_tokens after %zu "
	    "deltas, in %.3f s\n", r.deltas.n, took);
	s = fake_llama_request(r.fl, 0);
	req = json_loads(s, 0, NULL);
	free(s);
	assert_int_equal(json_integer_value(json_object_get(req,
	    "max_tokens")), 50);
	json_decref(req);
	assert_int_equal(fake_llama_hangups(r.fl), 0);
	log_holds(&r, "chat-e", 0);
	assert_int_equal(run(&r, "chat-e", "in short?", &ev), 0);
	tu_events_free(&ev);
	log_holds(&r, "chat-e", 2);
	rig_down(&r);
}

/* A server that answers a stream request with a whole body. */
static void
test_whole_body_still_read(void **state)
{
	static const char *const replies[] = {
	    "{\"response\":{\"choices\":[{\"finish_reason\":\"stop\",\"index\":"
	    "0,\"message\":{\"role\":\"assistant\",\"content\":\"I called "
	    "clock, find_tool and call_tool; their results are above.\"}}],"
	    "\"created\":1796181452,\"model\":\"tiny-toolcall.gguf\","
	    "\"system_fingerprint\":\"b18-81ff7abe5\",\"object\":"
	    "\"chat.completion\",\"usage\":{\"completion_tokens\":17,"
	    "\"prompt_tokens\":881,\"total_tokens\":898}}}",
	    "{\"status\":400,\"body\":\"{\\\"error\\\":{\\\"code\\\":400,"
	    "\\\"message\\\":\\\"request (5273 tokens) exceeds the available "
	    "context size (4096 tokens), try increasing it\\\",\\\"type\\\":"
	    "\\\"exceed_context_size_error\\\",\\\"n_prompt_tokens\\\":5273,"
	    "\\\"n_ctx\\\":4096}}\"}", NULL };
	struct tu_events ev;
	struct rig r;
	json_t *req;
	char *body;

	(void)state;
	up(&r, replies, 0);
	assert_int_equal(run(&r, "chat-w", "hi", &ev), 0);
	assert_int_equal(r.deltas.n, 0);
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text,
	    "I called clock, find_tool and call_tool; their results are "
	    "above.");
	tu_events_free(&ev);
	body = fake_llama_request(r.fl, 0);
	req = json_loads(body, 0, NULL);
	assert_true(json_is_true(json_object_get(req, "stream")));
	json_decref(req);
	free(body);
	fails(&r, "chat-w", "the prompt is 5273 tokens, the context 4096", "");
	rig_down(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text_streams_in_deltas),
		cmocka_unit_test(test_calls_joined_from_fragments),
		cmocka_unit_test(test_bad_endings_keep_the_log),
		cmocka_unit_test(test_stall_ends_at_timeout),
		cmocka_unit_test(test_whole_body_still_read),
		cmocka_unit_test(test_endless_ends_at_max_tokens),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
