/*
 * test-turn.c: the turn loop against the fake llama-server, with a
 * BrokerPort on a fake brokerd or no broker at all: events, denials and
 * approvals as the model sees them, history replay, max_steps, a damaged
 * session log, an unreadable core.md, and tool calls that go wrong.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>
#include <jansson.h>

#include "turnrig.h"

static void
test_plain_reply(void **state)
{
	struct tu_events ev;
	struct rig r;
	json_t *msgs;

	(void)state;
	rig_up(&r, "[{\"text\":\"Hello, Kyle.\"}]", NULL, 0);
	tu_write(r.home, "memory/core.md", "The owner is Kyle.\n", 19);
	assert_int_equal(run(&r, "chat-1", "hi", &ev), 0);
	assert_int_equal(ev.n, 2);
	assert_int_equal(ev.ev[0]->turn_event.type, BX_EVENT_STARTED);
	assert_string_equal(ev.ev[0]->turn_event.session, "chat-1");
	assert_int_equal(ev.ev[1]->turn_event.type, BX_EVENT_DONE);
	assert_string_equal(ev.ev[1]->turn_event.text, "Hello, Kyle.");
	assert_true(bx_msg_is_final(ev.ev[1]));
	assert_false(bx_msg_is_final(ev.ev[0]));
	tu_events_free(&ev);

	/* The system prompt carries core.md; the user's text comes last. */
	msgs = request_messages(&r, 0);
	assert_int_equal(json_array_size(msgs), 2);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(msgs, 0), "role")), "system");
	assert_non_null(strstr(json_string_value(json_object_get(
	    json_array_get(msgs, 0), "content")), "The owner is Kyle."));
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(msgs, 1), "content")), "hi");
	json_decref(msgs);
	rig_down(&r);
}

static void
test_history_replayed(void **state)
{
	struct tu_events ev;
	struct rig r;
	json_t *msgs;
	char *log;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"clock\"}]},"
	    "{\"text\":\"It is late.\"},{\"text\":\"You asked the time.\"}]",
	    NULL, 0);
	assert_int_equal(run(&r, "chat-7", "what time is it?", &ev), 0);
	assert_non_null(tu_find(&ev, BX_EVENT_TOOL_RESULT, 0));
	assert_int_equal(tu_find(&ev, BX_EVENT_TOOL_RESULT, 0)->status,
	    BX_STATUS_RESULT);
	assert_int_equal(strlen(tu_find(&ev, BX_EVENT_TOOL_RESULT,
	    0)->content), 24);
	tu_events_free(&ev);
	log = tu_read(r.home, "sessions/chat-7.jsonl");
	assert_non_null(log);
	free(log);

	assert_int_equal(run(&r, "chat-7", "what did I ask?", &ev), 0);
	tu_events_free(&ev);
	/* system, then turn 1 (user, assistant+call, tool, assistant), new */
	msgs = request_messages(&r, 2);
	assert_int_equal(json_array_size(msgs), 6);
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(msgs, 1), "content")), "what time is it?");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_array_get(json_object_get(json_array_get(msgs, 2),
	    "tool_calls"), 0), "function"), "name")), "clock");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(msgs, 3), "role")), "tool");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(msgs, 4), "content")), "It is late.");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(msgs, 5), "content")), "what did I ask?");
	json_decref(msgs);
	rig_down(&r);
}

static void
test_approval_refused(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_DENY, .fa_approval = 41,
		    .fa_expires = 4102444800000LL,
		    .fa_reason = BX_DENY_APPROVAL_REFUSED },
	};
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *keep;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"call_tool\",\"arguments\":"
	    "{\"name\":\"shell\",\"arguments\":{\"command\":\"ls\"}}}]},"
	    "{\"text\":\"The owner said no.\"}]", steps, 1);
	assert_int_equal(run(&r, "chat-2", "list files", &ev), 0);
	e = tu_find(&ev, BX_EVENT_TOOL_CALL, 0);
	assert_string_equal(e->tool, "shell");
	assert_string_equal(e->arguments, "{\"command\":\"ls\"}");
	e = tu_find(&ev, BX_EVENT_APPROVAL_PENDING, 0);
	assert_non_null(e);
	assert_int_equal(e->approval, 41);
	assert_string_equal(e->tool, "shell");
	assert_true(e->expires == 4102444800000LL);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 0);
	assert_int_equal(e->status, BX_STATUS_DENIED);
	assert_string_equal(e->content, "Denied: the owner refused this call.");
	assert_int_equal(e->class, BX_CLASS_PUBLIC);
	assert_false(e->untrusted);
	assert_non_null(tu_find(&ev, BX_EVENT_DONE, 0));
	tu_events_free(&ev);
	assert_string_equal(last_content(&r, 1, &keep),
	    "Denied: the owner refused this call.");
	json_decref(keep);
	/* The broker got the session and the call id the model used. */
	assert_string_equal(fbd_request(r.fbd, 0)->session, "chat-2");
	keep = request_messages(&r, 1);
	assert_string_equal(fbd_request(r.fbd, 0)->call,
	    json_string_value(json_object_get(json_array_get(keep,
	    json_array_size(keep) - 1), "tool_call_id")));
	assert_int_equal(strlen(fbd_request(r.fbd, 0)->call), 32);
	json_decref(keep);
	rig_down(&r);
}

static void
test_approval_approved(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_RESULT, .fa_approval = 5,
		    .fa_text = "drafts/a.md\n" },
	};
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *keep;
	size_t i;

	(void)state;
	rig_up(&r, "[{\"content\":\"Let me look.\",\"tool_calls\":[{\"name\":"
	    "\"call_tool\",\"arguments\":{\"name\":\"shell\",\"arguments\":"
	    "{\"command\":\"ls\",\"cwd\":\"/home/kyle\"}}}]},"
	    "{\"text\":\"One draft.\"}]", steps, 1);
	assert_int_equal(run(&r, "chat-9", "list my drafts", &ev), 0);
	/* started, text, tool_call, approval_pending, tool_result, done */
	assert_int_equal(ev.n, 6);
	assert_int_equal(ev.ev[1]->turn_event.type, BX_EVENT_TEXT);
	assert_string_equal(ev.ev[1]->turn_event.text, "Let me look.");
	assert_int_equal(ev.ev[2]->turn_event.type, BX_EVENT_TOOL_CALL);
	assert_int_equal(ev.ev[3]->turn_event.type, BX_EVENT_APPROVAL_PENDING);
	assert_int_equal(ev.ev[3]->turn_event.approval, 5);
	e = &ev.ev[4]->turn_event;
	assert_int_equal(e->type, BX_EVENT_TOOL_RESULT);
	assert_int_equal(e->status, BX_STATUS_RESULT);
	assert_string_equal(e->content, "drafts/a.md\n");
	assert_int_equal(e->class, BX_CLASS_PRIVATE);
	assert_true(e->untrusted);
	for (i = 0; i < 5; i++)
		assert_false(bx_msg_is_final(ev.ev[i]));
	assert_true(bx_msg_is_final(ev.ev[5]));
	tu_events_free(&ev);
	assert_string_equal(last_content(&r, 1, &keep), "drafts/a.md\n");
	json_decref(keep);
	rig_down(&r);
}

static void
test_arguments_object_or_string(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_DENY, .fa_reason = BX_DENY_NO_GRANT },
		{ .fa_act = FBD_RESULT, .fa_text = "hosts file" },
	};
	struct tu_events ev;
	struct rig r;
	json_t *keep;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"call_tool\",\"arguments\":"
	    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"/etc/hosts\"}}},"
	    "{\"name\":\"call_tool\",\"arguments\":{\"name\":\"read_file\","
	    "\"arguments\":\"{\\\"path\\\": \\\"/etc/hosts\\\"}\"}}]},"
	    "{\"text\":\"done\"}]", steps, 2);
	assert_int_equal(run(&r, "chat-3", "read", &ev), 0);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 2);
	tu_events_free(&ev);
	assert_int_equal(fbd_count(r.fbd), 2);
	assert_string_equal(fbd_request(r.fbd, 0)->arguments,
	    "{\"path\":\"/etc/hosts\"}");
	assert_string_equal(fbd_request(r.fbd, 1)->arguments,
	    "{\"path\":\"/etc/hosts\"}");
	assert_string_equal(fbd_request(r.fbd, 0)->tool, "read_file");
	assert_string_equal(last_content(&r, 1, &keep), "hosts file");
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(keep, json_array_size(keep) - 2), "content")),
	    "Denied: no grant allows this call.");
	json_decref(keep);
	rig_down(&r);
}

static void
test_broker_gone_the_turn_goes_on(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_CLOSE },
	};
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *keep;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"call_tool\",\"arguments\":"
	    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"/x\"}}}]},"
	    "{\"text\":\"The broker is down.\"}]", steps, 1);
	assert_int_equal(run(&r, "chat-g", "read /x", &ev), 0);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 0);
	assert_int_equal(e->status, BX_STATUS_FAILED);
	assert_string_equal(e->content, "the tool broker is unavailable");
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text,
	    "The broker is down.");
	tu_events_free(&ev);
	/* The model reads the failure; the operator gets the runbook line. */
	assert_string_equal(last_content(&r, 1, &keep),
	    "the tool broker is unavailable");
	json_decref(keep);
	assert_int_equal(r.nlogged, 1);
	assert_non_null(strstr(r.logged[0], "closed the connection before "
	    "answering"));
	assert_non_null(strstr(r.logged[0],
	    "see docs/runbook.md#broker-unavailable"));
	rig_down(&r);
}

static void
test_bad_tool_calls_go_on(void **state)
{
	static const char *const says[] = {
		"there is no tool \"rm_rf\"",
		"read_file is not called directly: use call_tool",
		"there is no tool \"echo\" to call",
		"invalid call, not run: the arguments of call_tool must be "
		    "one JSON object (such as {}), and these are not: not json",
		"call_tool: missing field \"name\"",
		"does not hold a JSON object",
		"no tool broker is configured",
	};
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	size_t i, from = 0;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"rm_rf\"},"
	    "{\"name\":\"read_file\",\"arguments\":{\"path\":\"/x\"}},"
	    "{\"name\":\"call_tool\",\"arguments\":{\"name\":\"echo\","
	    "\"arguments\":{}}},"
	    "{\"name\":\"call_tool\",\"arguments\":\"not json\"},"
	    "{\"name\":\"call_tool\",\"arguments\":{\"arguments\":{}}},"
	    "{\"name\":\"call_tool\",\"arguments\":{\"name\":\"read_file\","
	    "\"arguments\":\"[1]\"}},"
	    "{\"name\":\"call_tool\",\"arguments\":{\"name\":\"read_file\","
	    "\"arguments\":{\"path\":\"/x\"}}}]},"
	    "{\"text\":\"I could not do any of that.\"}]", NULL, 0);
	assert_int_equal(run(&r, "chat-4", "go", &ev), 0);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 7);
	for (i = 0; i < 7; i++) {
		e = tu_find(&ev, BX_EVENT_TOOL_RESULT, from);
		assert_int_equal(e->status, BX_STATUS_FAILED);
		if (strstr(e->content, says[i]) == NULL)
			fail_msg("result %zu \"%s\" lacks \"%s\"", i,
			    e->content, says[i]);
		while (&ev.ev[from]->turn_event != e)
			from++;
		from++;
	}
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text,
	    "I could not do any of that.");
	tu_events_free(&ev);
	rig_down(&r);
}

static void
test_find_tool(void **state)
{
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *found;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"find_tool\",\"arguments\":"
	    "{\"query\":\"file\"}},{\"name\":\"find_tool\",\"arguments\":"
	    "{\"query\":\"zebra\"}}]},{\"text\":\"ok\"}]", NULL, 0);
	assert_int_equal(run(&r, "chat-5", "what can you do?", &ev), 0);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 0);
	found = json_loads(e->content, 0, NULL);
	assert_true(json_is_array(found));
	assert_string_equal(json_string_value(json_object_get(
	    json_array_get(found, 0), "name")), "read_file");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    json_object_get(json_object_get(json_array_get(found, 0),
	    "parameters"), "properties"), "path"), "type")), "string");
	json_decref(found);
	e = tu_find(&ev, BX_EVENT_TOOL_RESULT, 4);
	assert_non_null(strstr(e->content, "No tool matches"));
	tu_events_free(&ev);
	rig_down(&r);
}

static void
test_max_steps(void **state)
{
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;

	(void)state;
	rig_up(&r, "[{\"tool_calls\":[{\"name\":\"clock\"}],\"repeat\":true}]",
	    NULL, 0);
	r.env.te_max_steps = 3;
	assert_int_equal(run(&r, "chat-6", "loop forever", &ev), -1);
	assert_int_equal(fake_llama_request_count(r.fl), 3);
	assert_int_equal(tu_count(&ev, BX_EVENT_TOOL_RESULT), 3);
	e = &ev.ev[ev.n - 1]->turn_event;
	assert_int_equal(e->type, BX_EVENT_ERROR);
	assert_non_null(strstr(e->text, "max_steps (3)"));
	assert_true(bx_msg_is_final(ev.ev[ev.n - 1]));
	tu_events_free(&ev);
	rig_down(&r);
}

static void
test_damaged_log_stops_only_its_session(void **state)
{
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	char *log;

	(void)state;
	rig_up(&r, "[{\"text\":\"fine\"}]", NULL, 0);
	tu_write(r.home, "sessions/chat-bad.jsonl", "{\"role\":\"user\"}\n"
	    "garbage\n", 25);
	assert_int_equal(run(&r, "chat-bad", "hello?", &ev), -1);
	e = tu_find(&ev, BX_EVENT_ERROR, 0);
	assert_non_null(strstr(e->text, "chat-bad.jsonl is damaged at line 2"));
	assert_non_null(strstr(e->text,
	    "see docs/runbook.md#session-log-damaged"));
	assert_int_equal(r.nlogged, 1);
	assert_non_null(strstr(r.logged[0], "session-log-damaged"));
	tu_events_free(&ev);
	assert_int_equal(fake_llama_request_count(r.fl), 0);

	assert_int_equal(run(&r, "chat-good", "hello?", &ev), 0);
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text, "fine");
	tu_events_free(&ev);
	/* Still stopped at its next turn, and its log left as it was. */
	assert_int_equal(run(&r, "chat-bad", "again", &ev), -1);
	tu_events_free(&ev);
	assert_int_equal(fake_llama_request_count(r.fl), 1);
	log = tu_read(r.home, "sessions/chat-bad.jsonl");
	assert_string_equal(log, "{\"role\":\"user\"}\ngarbage\n");
	free(log);
	rig_down(&r);
}

static void
test_unreadable_core_memory(void **state)
{
	const struct bx_turn_event *e;
	struct tu_events ev;
	char path[4096];
	struct rig r;

	(void)state;
	rig_up(&r, "[{\"text\":\"fine\"}]", NULL, 0);
	snprintf(path, sizeof(path), "%s/memory", r.home);
	mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/memory/core.md", r.home);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(run(&r, "chat-a", "hi", &ev), -1);
	e = tu_find(&ev, BX_EVENT_ERROR, 0);
	assert_non_null(strstr(e->text, "core.md"));
	assert_non_null(strstr(e->text,
	    "see docs/runbook.md#core-memory-unreadable"));
	tu_events_free(&ev);
	assert_int_equal(run(&r, "chat-b", "hi", &ev), -1);
	tu_events_free(&ev);
	assert_int_equal(fake_llama_request_count(r.fl), 0);
	rig_down(&r);
}

static void
test_model_errors_end_the_turn(void **state)
{
	static const char *const says[] = {
		"HTTP 500", "not JSON", "no choices", "could not be reached",
	};
	const struct bx_turn_event *e;
	struct tu_events ev;
	struct rig r;
	json_t *msgs;
	size_t i;

	(void)state;
	rig_up(&r, "[{\"status\":500,\"body\":\"boom\"},{\"body\":\"<html>\"},"
	    "{\"response\":{\"choices\":[]}},{\"hangup\":true}]", NULL, 0);
	for (i = 0; i < 4; i++) {
		assert_int_equal(run(&r, "chat-e", "hi", &ev), -1);
		e = &ev.ev[ev.n - 1]->turn_event;
		assert_int_equal(e->type, BX_EVENT_ERROR);
		if (strstr(e->text, says[i]) == NULL)
			fail_msg("\"%s\" lacks \"%s\"", e->text, says[i]);
		tu_events_free(&ev);
	}
	/* A failed step keeps nothing: each request is system and text. */
	msgs = request_messages(&r, 3);
	assert_int_equal(json_array_size(msgs), 2);
	json_decref(msgs);
	rig_down(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_reply),
		cmocka_unit_test(test_history_replayed),
		cmocka_unit_test(test_approval_refused),
		cmocka_unit_test(test_approval_approved),
		cmocka_unit_test(test_arguments_object_or_string),
		cmocka_unit_test(test_broker_gone_the_turn_goes_on),
		cmocka_unit_test(test_bad_tool_calls_go_on),
		cmocka_unit_test(test_find_tool),
		cmocka_unit_test(test_max_steps),
		cmocka_unit_test(test_damaged_log_stops_only_its_session),
		cmocka_unit_test(test_unreadable_core_memory),
		cmocka_unit_test(test_model_errors_end_the_turn),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
