/*
 * turn.c: the turn loop. Every model step either ends the turn (a reply
 * without tool calls, or an error) or runs its tool calls in order; a
 * tool call never ends the turn, whatever happens to it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/types.h"
#include "loopd/core.h"
#include "loopd/denial.h"
#include "loopd/memory.h"
#include "loopd/session_log.h"
#include "loopd/tools.h"
#include "loopd/turn.h"

/* Where an answer cut at its length limit points the owner. */
#define TURN_CUT_RUNBOOK	"see docs/runbook.md#model-cut-off"
/* ... and a turn stopped at its time limit. */
#define TURN_MAX_S_RUNBOOK	"see docs/runbook.md#turn-time-limit"

/* One turn in progress. */
struct turn {
	const struct turn_env	*t_env;
	const char		*t_session;
	turn_emit_fn		*t_emit;
	void			*t_arg;
	json_t			*t_messages;	/* system, history, this turn */
	size_t			 t_unsaved;	/* first message not yet logged */
	off_t			 t_log_size;	/* the log before this turn */
	const char		*t_tool;	/* the call waiting, for events */
	const char		*t_call;	/* and its id */
	const atomic_int	*t_cancel;	/* the owner's stop, or NULL */
};

static void
say(struct turn *t, struct bx_msg *ev)
{
	if (ev != NULL)
		t->t_emit(t->t_arg, ev);
}

static void
log_line(const struct turn_env *env, const char *line)
{
	if (env->te_log != NULL)
		env->te_log(env->te_log_arg, line);
}

/* Ends the turn with an error event; returns -1. */
static int
fail(struct turn *t, const char *message, bool to_log)
{
	char line[BX_ERROR_MAX + 128];

	if (to_log) {
		snprintf(line, sizeof(line), "session %s: %s", t->t_session,
		    message);
		log_line(t->t_env, line);
	}
	say(t, bx_msg_ev_error(message));
	return -1;
}

static int
save(struct turn *t, struct bx_error *err)
{
	if (session_log_append(t->t_env->te_home, t->t_session, t->t_messages,
	    t->t_unsaved, err) == -1)
		return bx_error_prefix(err, "the session log could not be "
		    "written");
	t->t_unsaved = json_array_size(t->t_messages);
	return 0;
}

static json_t *
system_message(const char *notes)
{
	char *text;
	json_t *msg;

	if (notes == NULL)
		return json_pack("{s:s, s:s}", "role", "system", "content",
		    TURN_SYSTEM_PROMPT);
	if (asprintf(&text, "%s\n\nThe owner's notes for you:\n\n%s",
	    TURN_SYSTEM_PROMPT, notes) == -1)
		return NULL;
	msg = json_pack("{s:s, s:s}", "role", "system", "content", text);
	free(text);
	return msg;
}

/* Builds t_messages; fails with a message for the owner. */
static int
start(struct turn *t, const char *text, struct bx_error *err)
{
	char *notes = NULL;
	json_t *history = NULL, *sys;

	if (memory_load(t->t_env->te_home, &notes, err) == -1)
		return -1;
	sys = system_message(notes);
	free(notes);
	if (session_log_load(t->t_env->te_home, t->t_session, &history,
	    err) == -1 || session_log_size(t->t_env->te_home, t->t_session,
	    &t->t_log_size, err) == -1) {
		json_decref(history);
		json_decref(sys);
		return -1;
	}
	t->t_messages = json_array();
	if (sys == NULL || t->t_messages == NULL ||
	    json_array_append_new(t->t_messages, sys) == -1 ||
	    json_array_extend(t->t_messages, history) == -1 ||
	    json_array_append_new(t->t_messages, json_pack("{s:s, s:s}",
	    "role", "user", "content", text)) == -1) {
		json_decref(history);
		return bx_fail(err, "out of memory");
	}
	t->t_unsaved = 1 + json_array_size(history);
	json_decref(history);
	return 0;
}

/* The model's call id when it is a valid CallId unique in this reply. */
static void
call_id(const struct model_reply *r, size_t i, int step, char *buf,
    size_t len)
{
	const char *id = r->mr_calls[i].mc_id;
	size_t j;

	if (id != NULL && bx_call_id_check(id, NULL) == 0) {
		for (j = 0; j < i; j++)
			if (r->mr_calls[j].mc_id != NULL &&
			    strcmp(r->mr_calls[j].mc_id, id) == 0)
				break;
		if (j == i) {
			snprintf(buf, len, "%s", id);
			return;
		}
	}
	snprintf(buf, len, "call-%d-%zu", step, i);
}

/* The assistant message for reply, with the call ids loopd uses. */
static json_t *
assistant_message(const struct model_reply *r, char (*ids)[BX_ID_MAX + 1])
{
	json_t *msg, *calls;
	size_t i;

	msg = json_pack("{s:s, s:s?}", "role", "assistant", "content",
	    r->mr_content);
	if (msg == NULL || r->mr_ncalls == 0)
		return msg;
	if ((calls = json_array()) == NULL ||
	    json_object_set_new(msg, "tool_calls", calls) == -1) {
		json_decref(msg);
		return NULL;
	}
	for (i = 0; i < r->mr_ncalls; i++)
		if (json_array_append_new(calls, json_pack("{s:s, s:s, "
		    "s:{s:s, s:s}}", "id", ids[i], "type", "function",
		    "function", "name", r->mr_calls[i].mc_name, "arguments",
		    r->mr_calls[i].mc_arguments)) == -1) {
			json_decref(msg);
			return NULL;
		}
	return msg;
}

/* The owner's part in a call, told to the client as it happens. */
static void
on_progress(void *arg, const struct bx_tool_response *r)
{
	struct turn *t = arg;

	if (r->status == BX_STATUS_PENDING_APPROVAL)
		say(t, bx_msg_ev_approval_pending(r->approval, t->t_tool,
		    r->expires));
	else
		say(t, bx_msg_ev_tool_running(t->t_call, t->t_tool));
}

/* What the model reads for a final tool_response. */
static const char *
model_text(const struct bx_tool_response *r)
{
	const char *text;

	switch (r->status) {
	case BX_STATUS_RESULT:
		return r->content;
	case BX_STATUS_DENIED:
		text = denial_text(r->reason);
		return text != NULL ? text : "Denied.";
	default:
		return r->message;
	}
}

/* Runs one tool call and adds its result to the conversation. */
static int
run_call(struct turn *t, const struct model_call *mc, const char *id)
{
	struct bx_msg *resp;
	struct bx_tool_response *r;
	struct core_call cc;
	struct bx_error notice;
	const char *text;
	bool result;

	if ((mc->mc_invalid != NULL ? core_prepare_invalid(mc->mc_name,
	    mc->mc_invalid, &cc) : core_prepare(mc->mc_name, mc->mc_arguments,
	    &cc)) == -1)
		return -1;
	say(t, bx_msg_ev_tool_call(id, cc.cc_tool, cc.cc_arguments));
	t->t_tool = cc.cc_tool;
	t->t_call = id;
	resp = core_run(&cc, t->t_session, id, t->t_env->te_port, on_progress,
	    t, t->t_cancel, &notice);
	if (notice.msg[0] != '\0')
		log_line(t->t_env, notice.msg);
	if (resp == NULL)
		resp = bx_msg_failed("out of memory");
	core_call_clear(&cc);
	t->t_tool = NULL;
	if (resp == NULL)
		return -1;
	r = &resp->tool_response;
	text = model_text(r);
	result = r->status == BX_STATUS_RESULT;
	say(t, bx_msg_ev_tool_result(id, r->status, text,
	    result ? r->class : BX_CLASS_PUBLIC, result && r->untrusted));
	if (json_array_append_new(t->t_messages, json_pack("{s:s, s:s, s:s}",
	    "role", "tool", "tool_call_id", id, "content", text)) == -1) {
		bx_msg_free(resp);
		return -1;
	}
	bx_msg_free(resp);
	return 0;
}

/*
 * A context overflow leaves the session as it was before the turn: the
 * earlier steps of this turn may be what no longer fits, and keeping them
 * would refuse every later turn the same way.
 */
static int
context_full(struct turn *t, const char *message)
{
	struct bx_error err;

	if (session_log_truncate(t->t_env->te_home, t->t_session,
	    t->t_log_size, &err) == -1)
		log_line(t->t_env, err.msg);
	return fail(t, message, true);
}

static bool
cancelled(const struct turn *t)
{
	return t->t_cancel != NULL && atomic_load(t->t_cancel) != 0;
}

/* Whether the stop is the turn's time limit rather than the owner's. */
static bool
time_is_up(const struct turn *t)
{
	return t->t_cancel != NULL &&
	    atomic_load(t->t_cancel) == TURN_STOP_MAX_S;
}

/*
 * The owner, or the turn's time limit, stopped the turn: what was done is
 * kept, and a note says where it stopped, so that the model's next turn
 * knows why this one has no answer. The note is the assistant's: a user
 * or system message in the middle would break the alternation (or the
 * system-first rule) that some models' chat templates enforce. Returns -1.
 */
static int
stopped(struct turn *t)
{
	char msg[BX_ERROR_MAX];
	struct bx_error err;
	bool limit = time_is_up(t);

	if (json_array_append_new(t->t_messages, json_pack("{s:s, s:s}",
	    "role", "assistant", "content", limit ? TURN_MAX_S_NOTE :
	    TURN_STOPPED_NOTE)) == -1)
		return fail(t, "loopd ran out of memory during this step",
		    true);
	if (save(t, &err) == -1)
		return fail(t, err.msg, true);
	if (!limit)
		return fail(t, TURN_STOPPED, true);
	snprintf(msg, sizeof(msg), TURN_MAX_S " ([turn] max_s = %d s) and "
	    "was stopped: a model answer in progress was ended, a call "
	    "waiting for approval given up; what was done is kept in the "
	    "session; " TURN_MAX_S_RUNBOOK, t->t_env->te_max_s);
	return fail(t, msg, true);
}

/*
 * The calls of a step that the stop left unrun still get a tool message
 * each: the history must answer every call the model made.
 */
static int
skip_calls(struct turn *t, char (*ids)[BX_ID_MAX + 1], size_t from,
    size_t n)
{
	const char *text = time_is_up(t) ? TURN_NOT_RUN_MAX_S : TURN_NOT_RUN;

	for (; from < n; from++)
		if (json_array_append_new(t->t_messages, json_pack("{s:s, s:s, "
		    "s:s}", "role", "tool", "tool_call_id", ids[from],
		    "content", text)) == -1)
			return -1;
	return 0;
}

/*
 * An answer cut at the length limit is neither run nor kept. The limit is
 * [model] max_tokens, or the server's own (-n, or a full context): the
 * message gives max_tokens beside the count, for the owner to tell which.
 */
static int
cut_off(struct turn *t, const struct model_reply *r)
{
	char msg[BX_ERROR_MAX], tokens[64] = "";
	int max = model_client_max_tokens(t->t_env->te_model);

	if (r->mr_completion_tokens >= 0)
		snprintf(tokens, sizeof(tokens), ", after %ld tokens",
		    r->mr_completion_tokens);
	if (r->mr_ncalls > 0)
		snprintf(msg, sizeof(msg), "the model's answer was cut off at "
		    "its length limit (finish_reason \"length\"%s) inside a "
		    "call of %.64s: the call was not run and this step was not "
		    "kept; [model] max_tokens is %d; " TURN_CUT_RUNBOOK, tokens,
		    r->mr_calls[r->mr_ncalls - 1].mc_name, max);
	else
		snprintf(msg, sizeof(msg), "the model's answer was cut off at "
		    "its length limit (finish_reason \"length\"%s): the cut "
		    "text is not taken as a reply and this step was not kept; "
		    "[model] max_tokens is %d; " TURN_CUT_RUNBOOK, tokens, max);
	return fail(t, msg, true);
}

/* Each piece of the model's text goes to the client as it arrives. */
static void
on_delta(void *arg, const char *text)
{
	say(arg, bx_msg_ev_text_delta(text));
}

/*
 * One model step. Returns 1 when the turn is done, 0 to go on, -1 when it
 * ended with an error (already sent). A step that fails writes nothing to
 * the session log, so what the server refused is never replayed.
 */
static int
step(struct turn *t, const json_t *tools, int n)
{
	char (*ids)[BX_ID_MAX + 1] = NULL;
	struct model_reply *r = NULL;
	struct bx_error err;
	size_t i;
	int rc = -1;

	if ((rc = model_complete(t->t_env->te_model, t->t_messages, tools,
	    on_delta, t, t->t_cancel, &r, &err)) != 0) {
		if (rc == MODEL_CANCELLED)
			return stopped(t);
		return rc == MODEL_CONTEXT_FULL ? context_full(t, err.msg) :
		    fail(t, err.msg, true);
	}
	if (r->mr_finish != NULL && strcmp(r->mr_finish, "length") == 0) {
		rc = cut_off(t, r);
		goto out;
	}
	if (r->mr_ncalls > 0 &&
	    (ids = calloc(r->mr_ncalls, sizeof(*ids))) == NULL)
		goto oom;
	for (i = 0; i < r->mr_ncalls; i++)
		call_id(r, i, n, ids[i], sizeof(ids[i]));
	if (json_array_append_new(t->t_messages, assistant_message(r,
	    ids)) == -1)
		goto oom;
	if (r->mr_ncalls > 0 && r->mr_content != NULL &&
	    r->mr_content[0] != '\0')
		say(t, bx_msg_ev_text(r->mr_content));
	for (i = 0; i < r->mr_ncalls && !cancelled(t); i++)
		if (run_call(t, &r->mr_calls[i], ids[i]) == -1)
			goto oom;
	if (i < r->mr_ncalls) {
		if (skip_calls(t, ids, i, r->mr_ncalls) == -1)
			goto oom;
		rc = stopped(t);
		goto out;
	}
	if (save(t, &err) == -1) {
		rc = fail(t, err.msg, true);
		goto out;
	}
	if (r->mr_ncalls == 0)
		say(t, bx_msg_ev_done(r->mr_content != NULL ? r->mr_content :
		    ""));
	rc = r->mr_ncalls == 0 ? 1 : 0;
	goto out;
oom:
	rc = fail(t, "loopd ran out of memory during this step", true);
out:
	free(ids);
	model_reply_free(r);
	return rc;
}

int
turn_run(const struct turn_env *env, const char *session, const char *text,
    const atomic_int *cancel, turn_emit_fn *emit, void *arg)
{
	struct turn t = { .t_env = env, .t_session = session,
	    .t_emit = emit, .t_arg = arg, .t_cancel = cancel };
	char msg[128];
	struct bx_error err;
	json_t *tools = NULL;
	int n, rc = -1;

	say(&t, bx_msg_ev_started(session));
	if (start(&t, text, &err) == -1) {
		fail(&t, err.msg, true);
		goto out;
	}
	if ((tools = tools_model_json()) == NULL) {
		fail(&t, "loopd could not build its tool schemas", true);
		goto out;
	}
	for (n = 1; n <= env->te_max_steps; n++) {
		if (env->te_stop != NULL && atomic_load(env->te_stop)) {
			fail(&t, "loopd is stopping; the turn ends here", false);
			goto out;
		}
		if (cancelled(&t)) {
			rc = stopped(&t);
			goto out;
		}
		if ((rc = step(&t, tools, n)) != 0)
			goto out;
	}
	snprintf(msg, sizeof(msg), "the turn reached max_steps (%d) without "
	    "a reply that has no tool calls", env->te_max_steps);
	rc = fail(&t, msg, true);
out:
	json_decref(tools);
	json_decref(t.t_messages);
	return rc == 1 ? 0 : -1;
}
