/*
 * toolport.h: the seam between the turn loop and whatever decides and runs
 * a discoverable tool call: a struct of function pointers plus a context
 * (baseline.md section 1's translation of the ToolPort trait). loopd's
 * port is BrokerPort (broker_port.h); tests plug in fakes.
 *
 * tp_call sends one request and returns its final answer, a tool_response
 * message with status result, failed or denied; it never fails otherwise
 * (a broker that cannot be reached is a failed answer), except that it
 * returns NULL when memory runs out. on_progress is called with each frame
 * before the answer: a pending_approval frame (the approval id and when it
 * expires) once, before the call waits for the owner, and an approved frame
 * once, when the owner said yes and the call runs. If something happened that the operator should
 * see (the broker was unavailable), tp_call fills notice with one line that
 * ends with its runbook pointer; otherwise notice->msg is left empty.
 *
 * cancel (NULL: none) is the turn's flag, set when the owner stops it or
 * the turn reaches its time limit (its values below). A
 * call still being decided or run, approved ones included, is left to end
 * (so that what ran is recorded whole); a call waiting for the owner's
 * approval is given up at once: tp_call returns failed TOOL_GIVEN_UP, and brokerd, seeing its
 * caller gone, drops the approval.
 *
 * Ownership: the request stays the caller's; the returned message is the
 * caller's to free with bx_msg_free().
 */
#ifndef LOOPD_TOOLPORT_H
#define LOOPD_TOOLPORT_H

#include <stdatomic.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/message.h"

/*
 * A turn's cancel flag holds 0 while the turn may go on, else why it
 * stops. It is set once, to the first reason; a reader that only needs a
 * yes or no tests it against 0.
 */
#define TURN_STOP_OWNER		1	/* the client hung up (Ctrl-C) */
#define TURN_STOP_MAX_S		2	/* the turn reached [turn] max_s */

/* What the model reads for a call whose approval the owner's stop gave up. */
#define TOOL_GIVEN_UP	"not run: the owner stopped the turn while this " \
	"call waited for approval, and the approval was given up"
/* ... and for one whose approval the turn's time limit gave up. */
#define TOOL_GIVEN_UP_MAX_S	"not run: the turn reached its time limit " \
	"([turn] max_s) while this call waited for approval, and the " \
	"approval was given up"

typedef void	tool_progress_fn(void *arg, const struct bx_tool_response *);

struct tool_port {
	struct bx_msg	*(*tp_call)(void *ctx, const struct bx_tool_request *,
			    tool_progress_fn *on_progress, void *arg,
			    const atomic_int *cancel, struct bx_error *notice);
	void		*tp_ctx;
};

#endif
