/*
 * log_entry.c: what one entry of `bxctl log` says by itself
 * (log_entry.h): whether its call was denied, whether it ran; and freeing
 * it.
 */
#include <stdlib.h>

#include "bxctl/log/log_entry.h"

void
log_entry_free(struct log_entry *e)
{
	if (e == NULL)
		return;
	bx_audit_record_clear(&e->rec);
	bx_audit_record_clear(&e->approval);
	bx_audit_record_clear(&e->result);
	free(e);
}

bool
log_ran(const struct log_entry *e)
{
	const struct bx_ev_decision *d = &e->rec.event.decision;
	const struct bx_ev_approval *a = &e->approval.event.approval;

	if (e->kind != LOG_CALL || d->outcome.kind == BX_OUTCOME_DENIED)
		return false;
	if (d->outcome.kind == BX_OUTCOME_ALLOWED)
		return true;
	return e->has_approval && a->answer == BX_ANSWER_APPROVED &&
	    a->outcome.kind != BX_OUTCOME_DENIED;
}

bool
log_denied(const struct log_entry *e, enum bx_deny *ret)
{
	const struct bx_outcome *d = &e->rec.event.decision.outcome;
	const struct bx_outcome *a = &e->approval.event.approval.outcome;

	if (e->kind != LOG_CALL)
		return false;
	if (d->kind == BX_OUTCOME_DENIED) {
		*ret = d->reason;
		return true;
	}
	if (e->has_approval && a->kind == BX_OUTCOME_DENIED) {
		*ret = a->reason;
		return true;
	}
	return false;
}
