/*
 * broker_record.c: the three records a call writes to the audit log
 * (design section 4): its Decision, the owner's Approval, and the Result of
 * what loopd is about to be told. broker.c decides when each is written and
 * prints a failure; this file only fills and appends them.
 */
#include <string.h>

#include "brokerd/broker_record.h"
#include "proto/sha256.h"

int
broker_record_decision(struct call_records *cr, const struct decision *d,
    const struct state_value *st, struct bx_error *err)
{
	struct bx_audit_event ev;
	struct bx_ev_decision *e = &ev.decision;

	memset(&ev, 0, sizeof(ev));
	ev.type = BX_AUDIT_DECISION;
	e->session = cr->cr_req->session;
	e->call = cr->cr_req->call;
	e->tool = cr->cr_req->tool;
	e->arguments = cr->cr_req->arguments;
	e->outcome = decision_outcome(d);
	if (decision_has_grant(d)) {
		e->grant = decision_grant_id(d);
		e->has_grant_sha256 = true;
		e->grant_sha256 = *decision_grant_sha256(d);
	}
	e->taint = st->taint;
	e->untrusted = st->untrusted;
	return audit_append(cr->cr_audit, &ev, &cr->cr_decision, err);
}

int
broker_record_approval(const struct call_records *cr, enum bx_answer answer,
    const char *by, const char *post, const char *reason,
    const struct bx_outcome *outcome, struct bx_error *err)
{
	struct bx_audit_event ev;
	struct bx_ev_approval *e = &ev.approval;
	uint64_t seq;

	memset(&ev, 0, sizeof(ev));
	ev.type = BX_AUDIT_APPROVAL;
	e->session = cr->cr_req->session;
	e->call = cr->cr_req->call;
	e->decision = cr->cr_decision;
	e->answer = answer;
	e->by = by;
	e->post = post;
	e->reason = reason;
	e->outcome = *outcome;
	return audit_append(cr->cr_audit, &ev, &seq, err);
}

int
broker_record_result(const struct call_records *cr, const struct decision *d,
    bool failed, const struct run_result *rr, const char *sent,
    enum bx_class taint_after, struct bx_error *err)
{
	struct bx_audit_event ev;
	struct bx_ev_result *e = &ev.result;
	uint64_t seq;

	memset(&ev, 0, sizeof(ev));
	ev.type = BX_AUDIT_RESULT;
	e->session = cr->cr_req->session;
	e->call = cr->cr_req->call;
	e->decision = cr->cr_decision;
	e->status = failed ? BX_RESULT_STATUS_FAILED : BX_RESULT_STATUS_RESULT;
	if (rr->rr_status != RUN_UNAVAILABLE) {
		e->class = decision_result_class(d);
		e->untrusted = decision_untrusted(d);
	} else
		e->class = BX_CLASS_PUBLIC;
	e->truncated = !failed && rr->rr_truncated;
	e->bytes = strlen(sent);
	e->taint_after = taint_after;
	if (bx_sha256(sent, strlen(sent), &e->sha256, err) == -1)
		return -1;
	return audit_append(cr->cr_audit, &ev, &seq, err);
}
