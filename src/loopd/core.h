/*
 * core.h: the core tools the model always has (clock, find_tool,
 * call_tool) and what every other tool name gets. A call is prepared
 * first (its arguments read, so the turn's tool_call event can show what
 * will really be asked: for call_tool, the inner tool and its arguments),
 * then run.
 *
 * Every outcome is a final tool_response message (result, failed or
 * denied), never an error: a bad call is a result the model can read and
 * the turn goes on.
 *
 * Ownership: core_prepare() fills the caller's struct core_call with
 * malloc'd strings, freed by core_call_clear(). core_run() returns a new
 * message the caller frees with bx_msg_free(), or NULL when memory runs out.
 */
#ifndef LOOPD_CORE_H
#define LOOPD_CORE_H

#include "proto/error.h"
#include "proto/message.h"
#include "loopd/toolport.h"

/* call_tool's arguments, as JSON text, must fit well inside one frame. */
#define CORE_ARGS_MAX	(512 * 1024)

#define CORE_NO_BROKER	"no tool broker is configured"

enum core_kind {
	CORE_CLOCK,
	CORE_FIND_TOOL,
	CORE_CALL_TOOL,
	CORE_BAD		/* unknown tool or unusable arguments */
};

struct core_call {
	enum core_kind	 cc_kind;
	char		*cc_tool;	/* shown in the event; sent for call_tool */
	char		*cc_arguments;	/* JSON text, likewise */
	char		*cc_problem;	/* CORE_BAD: what the model is told */
};

/* Reads one model tool call into *ret (only on success). Fails only when
 * memory runs out. */
int	core_prepare(const char *name, const char *arguments,
	    struct core_call *ret);
/* A call whose arguments (the model's text, raw) hold no JSON object: it
 * is answered as invalid and never run. Fails only when memory runs out. */
int	core_prepare_invalid(const char *name, const char *raw,
	    struct core_call *ret);
void	core_call_clear(struct core_call *);

/*
 * Runs a prepared call. call_tool goes through port (NULL: no broker is
 * configured) with session and call id; see toolport.h for on_progress,
 * cancel and notice.
 */
struct bx_msg	*core_run(const struct core_call *, const char *session,
		    const char *call, const struct tool_port *port,
		    tool_progress_fn *on_progress, void *arg,
		    const atomic_int *cancel, struct bx_error *notice);

#endif
