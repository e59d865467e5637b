/*
 * broker_record.h: the three records a call writes to the audit log (design
 * section 4): its Decision, the owner's Approval, and the Result of what
 * loopd is about to be told. The caller (broker.c) decides when each is
 * written and what a failure means, and prints it; these only fill the
 * record from what they are given and append it.
 *
 * Ownership: a struct call_records borrows the audit writer and the
 * request; it is the caller's, usually inside its own call on the stack.
 */
#ifndef BROKERD_BROKER_RECORD_H
#define BROKERD_BROKER_RECORD_H

#include <stdbool.h>
#include <stdint.h>

#include "brokerd/audit.h"
#include "brokerd/policy.h"
#include "brokerd/runner/runner.h"
#include "brokerd/state.h"
#include "proto/error.h"
#include "proto/message.h"

/*
 * The records of one call: where they go, whose call (cr_req's session,
 * call, tool and arguments), and the seq of its Decision record once that
 * is written.
 */
struct call_records {
	struct audit			*cr_audit;
	const struct bx_tool_request	*cr_req;
	uint64_t			 cr_decision;
};

/*
 * The Decision record of d, made with the session state st; its seq goes
 * into cr->cr_decision. -1 (err says why) when it cannot be written: then
 * nothing may run.
 */
int	broker_record_decision(struct call_records *cr,
	    const struct decision *d, const struct state_value *st,
	    struct bx_error *err);
/*
 * The Approval record of cr's decision: the answer, who gave it (NULL for
 * none, as when it expired), the Mattermost post it was given in (NULL at
 * the terminal), the owner's reason (may be NULL) and the outcome it led
 * to. -1 (err says why) when it cannot be written.
 */
int	broker_record_approval(const struct call_records *cr,
	    enum bx_answer answer, const char *by, const char *post,
	    const char *reason, const struct bx_outcome *outcome,
	    struct bx_error *err);
/*
 * The Result record of sent, what loopd is about to be told, with the
 * session's taint after it; d and rr give its class. -1 (err says why)
 * when it cannot be written: then sent is not sent.
 */
int	broker_record_result(const struct call_records *cr,
	    const struct decision *d, bool failed, const struct run_result *rr,
	    const char *sent, enum bx_class taint_after, struct bx_error *err);

#endif
