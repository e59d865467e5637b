/*
 * turn.h: one chat turn (baseline.md section 7). The messages are the
 * system prompt with memory/core.md, the session's history from its log
 * and the new text; loopd calls the model, runs each tool call, feeds the
 * results back, and repeats until a reply has no tool calls or max_steps
 * model steps were taken. Each step's messages are appended to the
 * session log (and fsynced) when the step ends; a step that fails (the
 * server refused it, the answer was cut off at its length limit) appends
 * nothing, and a prompt past the model's context cuts the log back to
 * what it was before the turn, so a session is never left holding what
 * the server cannot take. An answer cut at the length limit is never run
 * nor taken as a reply: the turn ends with an error (docs/decisions.md).
 *
 * Events go to emit as turn_event messages: started, then text, tool_call,
 * approval_pending and tool_result as they happen, and last done {reply}
 * or error {message}. Lines for the operator (a refused turn, an
 * unavailable broker) go to log.
 *
 * cancel (NULL: none) is the turn's stop, its value saying why
 * (toolport.h): the owner's (serve.c sets it when the client hangs up) or
 * the turn's time limit (serve.c sets it when the turn has run for
 * te_max_s). Once it is set, the model request in flight ends, a
 * call waiting for approval is given up (toolport.h), a call that runs is
 * left to end and its result kept, the calls after it get TURN_NOT_RUN,
 * and the turn ends: what was done is logged with TURN_STOPPED_NOTE after
 * it (the text of a model step cut short is not kept), the operator's log
 * gets TURN_STOPPED, and so does the client, if it still listens. The time
 * limit ends the turn the same way, with TURN_MAX_S_NOTE, TURN_NOT_RUN_MAX_S
 * and an error naming [turn] max_s and its runbook entry instead.
 *
 * The caller makes sure only one turn of a session runs at a time
 * (busy.h). Ownership: emit takes each event message and frees it with
 * bx_msg_free(); the environment stays the caller's.
 */
#ifndef LOOPD_TURN_H
#define LOOPD_TURN_H

#include <stdatomic.h>

#include "proto/message.h"
#include "loopd/model.h"
#include "loopd/toolport.h"

typedef void	turn_emit_fn(void *arg, struct bx_msg *event);
typedef void	turn_log_fn(void *arg, const char *line);

struct turn_env {
	const char			*te_home;
	struct model_client		*te_model;
	const struct tool_port		*te_port;	/* NULL: no broker */
	int				 te_max_steps;
	int				 te_max_s;	/* 0: no bound */
	turn_log_fn			*te_log;
	void				*te_log_arg;
	const atomic_int		*te_stop;	/* may be NULL */
};

/* The system prompt before the owner's notes. */
#define TURN_SYSTEM_PROMPT \
	"You are the owner's assistant, running on their own machine. You " \
	"act only through tools: clock tells the time; find_tool finds the " \
	"other tools (files, shell, web) with their argument schemas; " \
	"call_tool calls one of them. The owner's rules decide whether a " \
	"call may run: a denial comes back as the call's result. Explain it " \
	"and go on without that tool."

/* What the session log keeps where the owner stopped a turn. */
#define TURN_STOPPED_NOTE \
	"[The owner stopped this turn here, before it was finished. Nothing " \
	"after this point was done.]"
/* The error event, and the operator's line, for that turn. */
#define TURN_STOPPED	"the owner stopped the turn"
/* What the model reads for a call the stop left unrun. */
#define TURN_NOT_RUN	"not run: the owner stopped the turn first"

/* The same three for a turn stopped at its time limit. */
#define TURN_MAX_S_NOTE \
	"[This turn reached its time limit here, before it was finished, " \
	"and was stopped. Nothing after this point was done.]"
#define TURN_MAX_S	"the turn reached its time limit"
#define TURN_NOT_RUN_MAX_S \
	"not run: the turn reached its time limit first"

/* Returns 0 when the turn ended with done, -1 when it ended with error. */
int	turn_run(const struct turn_env *, const char *session, const char *text,
	    const atomic_int *cancel, turn_emit_fn *emit, void *arg);

#endif
