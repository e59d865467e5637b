/*
 * toolport.h: the seam between the turn loop and whatever decides and runs
 * a discoverable tool call: a struct of function pointers plus a context
 * (baseline.md section 1's translation of the ToolPort trait). loopd's
 * port is BrokerPort (broker_port.h); tests plug in fakes.
 *
 * tp_call sends one request and returns its final answer, a tool_response
 * message with status result, failed or denied; it never fails otherwise
 * (a broker that cannot be reached is a failed answer), except that it
 * returns NULL when memory runs out. When the call waits for the owner's
 * approval, on_pending is called once, before the wait, with the approval
 * id and when it expires. If something happened that the operator should
 * see (the broker was unavailable), tp_call fills notice with one line that
 * ends with its runbook pointer; otherwise notice->msg is left empty.
 *
 * Ownership: the request stays the caller's; the returned message is the
 * caller's to free with bx_msg_free().
 */
#ifndef LOOPD_TOOLPORT_H
#define LOOPD_TOOLPORT_H

#include <stdint.h>

#include "proto/error.h"
#include "proto/message.h"

typedef void	tool_pending_fn(void *arg, uint64_t approval, int64_t expires);

struct tool_port {
	struct bx_msg	*(*tp_call)(void *ctx, const struct bx_tool_request *,
			    tool_pending_fn *on_pending, void *arg,
			    struct bx_error *notice);
	void		*tp_ctx;
};

#endif
