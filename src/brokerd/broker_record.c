/*
 * broker_record.c: the three records a call writes to the audit log
 * (design section 4): its Decision, the owner's Approval, and the Result of
 * what loopd is about to be told. broker.c decides when each is written;
 * this file only fills and appends them, and logs a failure once.
 */
#include <string.h>

#include "brokerd/broker_impl.h"
#include "proto/sha256.h"

/* Appends ev, its seq into *ret_seq; a failure is logged here, once. */
static int
append(struct call *c, const struct bx_audit_event *ev, uint64_t *ret_seq)
{
	struct bx_error err;

	if (audit_append(c->c_b->b_cfg.audit, ev, ret_seq, &err) == 0)
		return 0;
	broker_log(c->c_b, "%s", err.msg);
	return -1;
}

int
broker_record_decision(struct call *c)
{
	struct bx_audit_event ev;
	struct bx_ev_decision *e = &ev.decision;
	const struct decision *d = c->c_d;

	memset(&ev, 0, sizeof(ev));
	ev.type = BX_AUDIT_DECISION;
	e->session = c->c_req->session;
	e->call = c->c_req->call;
	e->tool = c->c_req->tool;
	e->arguments = c->c_req->arguments;
	e->outcome = decision_outcome(d);
	if (decision_has_grant(d)) {
		e->grant = decision_grant_id(d);
		e->has_grant_sha256 = true;
		e->grant_sha256 = *decision_grant_sha256(d);
	}
	e->taint = c->c_st.taint;
	e->untrusted = c->c_st.untrusted;
	return append(c, &ev, &c->c_seq);
}

void
broker_record_approval(struct call *c, enum bx_answer answer, const char *reason,
    struct bx_outcome *outcome)
{
	struct bx_audit_event ev;
	struct bx_ev_approval *e = &ev.approval;
	uint64_t seq;

	memset(&ev, 0, sizeof(ev));
	ev.type = BX_AUDIT_APPROVAL;
	e->session = c->c_req->session;
	e->call = c->c_req->call;
	e->decision = c->c_seq;
	e->answer = answer;
	e->by = answer == BX_ANSWER_EXPIRED ? NULL : BROKER_APPROVER;
	e->reason = reason;
	e->outcome = *outcome;
	if (append(c, &ev, &seq) == 0)
		return;
	outcome->kind = BX_OUTCOME_DENIED;
	outcome->reason = BX_DENY_AUDIT_UNAVAILABLE;
}

int
broker_record_result(struct call *c, const struct decision *d, bool failed,
    const struct run_result *rr, const char *sent, enum bx_class taint_after)
{
	struct bx_audit_event ev;
	struct bx_ev_result *e = &ev.result;
	struct bx_error err;
	uint64_t seq;

	memset(&ev, 0, sizeof(ev));
	ev.type = BX_AUDIT_RESULT;
	e->session = c->c_req->session;
	e->call = c->c_req->call;
	e->decision = c->c_seq;
	e->status = failed ? BX_RESULT_STATUS_FAILED : BX_RESULT_STATUS_RESULT;
	if (rr->rr_status != RUN_UNAVAILABLE) {
		e->class = decision_result_class(d);
		e->untrusted = decision_untrusted(d);
	} else
		e->class = BX_CLASS_PUBLIC;
	e->truncated = !failed && rr->rr_truncated;
	e->bytes = strlen(sent);
	e->taint_after = taint_after;
	if (bx_sha256(sent, strlen(sent), &e->sha256, &err) == -1) {
		broker_log(c->c_b, "%s", err.msg);
		return -1;
	}
	return append(c, &ev, &seq);
}
