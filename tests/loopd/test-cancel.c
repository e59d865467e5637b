/*
 * test-cancel.c: the owner's stop (turn.h), at the turn loop. The turn's
 * cancel flag is set by the events themselves, at the moment each case
 * needs: a model request in flight (its first delta, the stream then
 * stalled), an approval pending (brokerd holds the call), a call that is
 * already running (its tool_call event, before brokerd has answered), and
 * an approved call that runs (its tool_running event).
 * Each time the turn ends at once with "the owner stopped the turn", no
 * call is left running or waiting, and the session log loads with a note
 * that the model's next turn is sent. The turn's time limit sets the same
 * flag to its own value (serve.c's watcher does): the same stop, told as
 * the time limit in the error, the note and the results of unrun calls.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "loopd/session_log.h"
#include "proto/clock.h"
#include "turnrig.h"

/* Far below every wait a stop must cut short (30 s and more). */
#define STOP_WITHIN_MS	10000
/* How long a test waits for the fake brokerd to see the hang-up. */
#define HANGUP_WAIT_MS	20000

#define CALL_READ(id) \
	"{\"name\":\"call_tool\",\"id\":\"" id "\",\"arguments\":" \
	"{\"name\":\"read_file\",\"arguments\":{\"path\":\"/etc/hosts\"}}}"

/*
 * Records the events and sets the cancel flag at the first of one type, to
 * s_why (0: TURN_STOP_OWNER).
 */
struct stopper {
	struct tu_events	 s_ev;
	enum bx_event		 s_at;
	int			 s_why;
	atomic_int		 s_cancel;
};

static void
stop_at(void *arg, struct bx_msg *ev)
{
	struct stopper *s = arg;

	if (ev->turn_event.type == s->s_at)
		atomic_store(&s->s_cancel, s->s_why != 0 ? s->s_why :
		    TURN_STOP_OWNER);
	tu_record(&s->s_ev, ev);
}

/*
 * One turn stopped at event type at, for why (0: the owner); asserts how
 * it ended.
 */
static void
stopped_turn(struct rig *r, const char *session, enum bx_event at, int why,
    struct stopper *s)
{
	const struct bx_turn_event *e;
	int64_t start;

	memset(s, 0, sizeof(*s));
	s->s_at = at;
	s->s_why = why;
	start = bx_clock_mono_ms();
	assert_int_equal(turn_run(&r->env, session, "hi", &s->s_cancel,
	    stop_at, s), -1);
	if (bx_clock_mono_ms() - start > STOP_WITHIN_MS)
		fail_msg("the stopped turn took %lld ms",
		    (long long)(bx_clock_mono_ms() - start));
	e = &s->s_ev.ev[s->s_ev.n - 1]->turn_event;
	assert_int_equal(e->type, BX_EVENT_ERROR);
	if (why != TURN_STOP_MAX_S)
		assert_string_equal(e->text, TURN_STOPPED);
	else if (strstr(e->text, TURN_MAX_S " ([turn] max_s = 1800 s) and "
	    "was stopped") != e->text ||
	    strstr(e->text, "; see docs/runbook.md#turn-time-limit") == NULL)
		fail_msg("\"%s\" does not name max_s and its runbook entry",
		    e->text);
	assert_non_null(strstr(r->logged[r->nlogged - 1], e->text));
}

/* The log loads, with the roles want and note as its last message. */
static void
log_is(struct rig *r, const char *session, const char *const *want,
    const char *note)
{
	struct bx_error err;
	json_t *history, *m;
	size_t i;

	if (session_log_load(r->home, session, &history, &err) == -1)
		fail_msg("%s", err.msg);
	for (i = 0; want[i] != NULL; i++) {
		m = json_array_get(history, i);
		if (m == NULL)
			fail_msg("the log ends before message %zu", i);
		assert_string_equal(json_string_value(json_object_get(m,
		    "role")), want[i]);
	}
	assert_int_equal(json_array_size(history), i);
	m = json_array_get(history, i - 1);
	assert_string_equal(json_string_value(json_object_get(m, "content")),
	    note);
	json_decref(history);
}

/* The i-th message of the log's content. */
static void
log_content(struct rig *r, const char *session, size_t i, const char *want)
{
	struct bx_error err;
	json_t *history;

	if (session_log_load(r->home, session, &history, &err) == -1)
		fail_msg("%s", err.msg);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    history, i), "content")), want);
	json_decref(history);
}

static void
wait_hangups(struct rig *r, size_t n)
{
	int64_t until = bx_clock_mono_ms() + HANGUP_WAIT_MS;
	struct timespec nap = { 0, 10 * 1000000L };

	while (fbd_hangups(r->fbd) < n) {
		if (bx_clock_mono_ms() > until)
			fail_msg("waited %d ms for loopd to hang up on brokerd",
			    HANGUP_WAIT_MS);
		nanosleep(&nap, NULL);
	}
}

static void
test_model_request_in_flight(void **state)
{
	static const char script[] = "[{\"text\":\"Let me think about "
	    "that\",\"stall\":true},{\"text\":\"Noted.\"}]";
	static const char *const roles[] = { "user", "assistant", NULL };
	struct stopper s;
	struct tu_events ev;
	struct rig r;
	json_t *keep, *msgs, *note;

	(void)state;
	rig_up(&r, script, NULL, 0);
	stopped_turn(&r, "chat-m", BX_EVENT_TEXT_DELTA, 0, &s);
	tu_events_free(&s.s_ev);
	/* The cut-off text is not kept; the note is. */
	log_is(&r, "chat-m", roles, TURN_STOPPED_NOTE);
	/* The next turn goes on, and the model is told. */
	assert_int_equal(run(&r, "chat-m", "go on", &ev), 0);
	tu_events_free(&ev);
	msgs = request_messages(&r, 1);
	note = json_array_get(msgs, json_array_size(msgs) - 2);
	assert_string_equal(json_string_value(json_object_get(note, "role")),
	    "assistant");
	assert_string_equal(json_string_value(json_object_get(note,
	    "content")), TURN_STOPPED_NOTE);
	json_decref(msgs);
	assert_string_equal(last_content(&r, 1, &keep), "go on");
	json_decref(keep);
	rig_down(&r);
}

static void
test_pending_approval_given_up(void **state)
{
	static const char script[] = "[{\"tool_calls\":[" CALL_READ("c1")
	    "]},{\"text\":\"never asked\"}]";
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_SILENT, .fa_approval = 41 },
	};
	static const char *const roles[] = { "user", "assistant", "tool",
	    "assistant", NULL };
	struct stopper s;
	struct rig r;

	(void)state;
	rig_up(&r, script, steps, 1);
	stopped_turn(&r, "chat-a", BX_EVENT_APPROVAL_PENDING, 0, &s);
	assert_non_null(tu_find(&s.s_ev, BX_EVENT_TOOL_RESULT, 0));
	assert_string_equal(tu_find(&s.s_ev, BX_EVENT_TOOL_RESULT,
	    0)->content, TOOL_GIVEN_UP);
	tu_events_free(&s.s_ev);
	/* brokerd saw its caller go: it drops the approval. */
	wait_hangups(&r, 1);
	assert_int_equal(fake_llama_request_count(r.fl), 1);
	log_is(&r, "chat-a", roles, TURN_STOPPED_NOTE);
	log_content(&r, "chat-a", 2, TOOL_GIVEN_UP);
	rig_down(&r);
}

static void
test_running_call_ends_and_is_kept(void **state)
{
	static const char script[] = "[{\"tool_calls\":[" CALL_READ("c1") ","
	    CALL_READ("c2") "]},{\"text\":\"never asked\"}]";
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_RESULT, .fa_text = "127.0.0.1 localhost\n" },
		{ .fa_act = FBD_RESULT, .fa_text = "not asked for" },
	};
	static const char *const roles[] = { "user", "assistant", "tool",
	    "tool", "assistant", NULL };
	const struct bx_turn_event *e;
	struct stopper s;
	struct rig r;

	(void)state;
	rig_up(&r, script, steps, 2);
	/* Stopped before brokerd answers the first call. */
	stopped_turn(&r, "chat-r", BX_EVENT_TOOL_CALL, 0, &s);
	e = tu_find(&s.s_ev, BX_EVENT_TOOL_RESULT, 0);
	assert_non_null(e);
	assert_int_equal(e->status, BX_STATUS_RESULT);
	assert_string_equal(e->content, "127.0.0.1 localhost\n");
	/* The second call never reached brokerd. */
	assert_int_equal(tu_count(&s.s_ev, BX_EVENT_TOOL_CALL), 1);
	tu_events_free(&s.s_ev);
	assert_int_equal(fbd_count(r.fbd), 1);
	assert_int_equal(fbd_hangups(r.fbd), 0);
	assert_int_equal(fake_llama_request_count(r.fl), 1);
	log_is(&r, "chat-r", roles, TURN_STOPPED_NOTE);
	log_content(&r, "chat-r", 2, "127.0.0.1 localhost\n");
	log_content(&r, "chat-r", 3, TURN_NOT_RUN);
	rig_down(&r);
}

/*
 * The owner approved, brokerd said so (approved) and the call runs: a stop
 * now waits for it. The fake holds the call until the stop is set, at the
 * tool_running event loopd sends for that frame.
 */
static void
test_approved_call_ends_and_is_kept(void **state)
{
	static const char script[] = "[{\"tool_calls\":[" CALL_READ("c1") ","
	    CALL_READ("c2") "]},{\"text\":\"never asked\"}]";
	static const char *const roles[] = { "user", "assistant", "tool",
	    "tool", "assistant", NULL };
	static struct stopper s;
	const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_APPROVED, .fa_approval = 41,
		  .fa_text = "127.0.0.1 localhost\n", .fa_hold = &s.s_cancel },
		{ .fa_act = FBD_RESULT, .fa_text = "not asked for" },
	};
	const struct bx_turn_event *e;
	struct rig r;

	(void)state;
	rig_up(&r, script, steps, 2);
	stopped_turn(&r, "chat-p", BX_EVENT_TOOL_RUNNING, 0, &s);
	assert_non_null(tu_find(&s.s_ev, BX_EVENT_APPROVAL_PENDING, 0));
	e = tu_find(&s.s_ev, BX_EVENT_TOOL_RESULT, 0);
	assert_non_null(e);
	assert_int_equal(e->status, BX_STATUS_RESULT);
	assert_string_equal(e->content, "127.0.0.1 localhost\n");
	assert_int_equal(tu_count(&s.s_ev, BX_EVENT_TOOL_CALL), 1);
	tu_events_free(&s.s_ev);
	assert_int_equal(fbd_count(r.fbd), 1);
	assert_int_equal(fbd_hangups(r.fbd), 0);
	log_is(&r, "chat-p", roles, TURN_STOPPED_NOTE);
	log_content(&r, "chat-p", 2, "127.0.0.1 localhost\n");
	log_content(&r, "chat-p", 3, TURN_NOT_RUN);
	rig_down(&r);
}

/*
 * The time limit while an approval waits: given up as by the owner, with
 * the model told why, and the limit's note in the log.
 */
static void
test_time_limit_gives_up_approval(void **state)
{
	static const char script[] = "[{\"tool_calls\":[" CALL_READ("c1")
	    "]},{\"text\":\"never asked\"}]";
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_SILENT, .fa_approval = 42 },
	};
	static const char *const roles[] = { "user", "assistant", "tool",
	    "assistant", NULL };
	struct stopper s;
	struct rig r;

	(void)state;
	rig_up(&r, script, steps, 1);
	r.env.te_max_s = 1800;
	stopped_turn(&r, "chat-ta", BX_EVENT_APPROVAL_PENDING, TURN_STOP_MAX_S,
	    &s);
	assert_string_equal(tu_find(&s.s_ev, BX_EVENT_TOOL_RESULT,
	    0)->content, TOOL_GIVEN_UP_MAX_S);
	tu_events_free(&s.s_ev);
	wait_hangups(&r, 1);
	assert_int_equal(fake_llama_request_count(r.fl), 1);
	log_is(&r, "chat-ta", roles, TURN_MAX_S_NOTE);
	log_content(&r, "chat-ta", 2, TOOL_GIVEN_UP_MAX_S);
	rig_down(&r);
}

/*
 * The time limit while a call runs: the call ends and is kept, the next
 * one is not run and says why.
 */
static void
test_time_limit_lets_running_call_end(void **state)
{
	static const char script[] = "[{\"tool_calls\":[" CALL_READ("c1") ","
	    CALL_READ("c2") "]},{\"text\":\"never asked\"}]";
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_RESULT, .fa_text = "127.0.0.1 localhost\n" },
		{ .fa_act = FBD_RESULT, .fa_text = "not asked for" },
	};
	static const char *const roles[] = { "user", "assistant", "tool",
	    "tool", "assistant", NULL };
	struct stopper s;
	struct rig r;

	(void)state;
	rig_up(&r, script, steps, 2);
	r.env.te_max_s = 1800;
	stopped_turn(&r, "chat-tr", BX_EVENT_TOOL_CALL, TURN_STOP_MAX_S, &s);
	assert_string_equal(tu_find(&s.s_ev, BX_EVENT_TOOL_RESULT,
	    0)->content, "127.0.0.1 localhost\n");
	assert_int_equal(tu_count(&s.s_ev, BX_EVENT_TOOL_CALL), 1);
	tu_events_free(&s.s_ev);
	assert_int_equal(fbd_count(r.fbd), 1);
	assert_int_equal(fbd_hangups(r.fbd), 0);
	log_is(&r, "chat-tr", roles, TURN_MAX_S_NOTE);
	log_content(&r, "chat-tr", 2, "127.0.0.1 localhost\n");
	log_content(&r, "chat-tr", 3, TURN_NOT_RUN_MAX_S);
	rig_down(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_model_request_in_flight),
		cmocka_unit_test(test_pending_approval_given_up),
		cmocka_unit_test(test_running_call_ends_and_is_kept),
		cmocka_unit_test(test_approved_call_ends_and_is_kept),
		cmocka_unit_test(test_time_limit_gives_up_approval),
		cmocka_unit_test(test_time_limit_lets_running_call_end),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
