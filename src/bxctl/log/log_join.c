/*
 * log_join.c: joining each call's records (log_join.h). A Decision opens an
 * entry unless it was denied; its Approval closes it unless the call then
 * runs, and its Result closes it. Open entries are kept in Decision order
 * in an array searched by seq; closed ones are flagged and compacted away
 * once they are half of it.
 */
#include <stdlib.h>
#include <string.h>

#include "bxctl/log/log_entry.h"
#include "bxctl/log/log_join.h"

/* An open entry, or a closed one's place (e NULL) until compaction. */
struct slot {
	uint64_t		 seq;		/* its Decision's */
	struct log_entry	*e;
};

struct log_join {
	log_emit_fn		 emit;
	void			*ctx;
	struct slot		*slots;		/* by seq, ascending */
	size_t			 n, cap, nclosed;
};

struct log_join *
log_join_new(log_emit_fn emit, void *ctx)
{
	struct log_join *j = calloc(1, sizeof(*j));

	if (j != NULL) {
		j->emit = emit;
		j->ctx = ctx;
	}
	return j;
}

/* Drops the closed slots once they are half of them. */
static void
compact(struct log_join *j)
{
	size_t i, k = 0;

	if (j->nclosed < 1024 || j->nclosed * 2 < j->n)
		return;
	for (i = 0; i < j->n; i++)
		if (j->slots[i].e != NULL)
			j->slots[k++] = j->slots[i];
	j->n = k;
	j->nclosed = 0;
}

/* Hands the entry of slot i over; its slot stays, closed. */
static void
close_at(struct log_join *j, size_t i)
{
	struct log_entry *e = j->slots[i].e;

	j->slots[i].e = NULL;
	j->nclosed++;
	j->emit(j->ctx, e);
}

/* The index of the open entry of Decision seq, or j->n. */
static size_t
find(const struct log_join *j, uint64_t seq)
{
	size_t lo = 0, hi = j->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (j->slots[mid].seq < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < j->n && j->slots[lo].seq == seq && j->slots[lo].e != NULL)
		return lo;
	return j->n;
}

static int
add_open(struct log_join *j, struct log_entry *e, struct bx_error *err)
{
	struct slot *grown;
	size_t i;

	if (j->n - j->nclosed >= LOG_OPEN_MAX) {
		for (i = 0; j->slots[i].e == NULL; i++)
			continue;
		j->slots[i].e->complete = true;		/* as it will be shown */
		close_at(j, i);
	}
	compact(j);
	if (j->n == j->cap) {
		j->cap = j->cap == 0 ? 1024 : j->cap * 2;
		if ((grown = reallocarray(j->slots, j->cap,
		    sizeof(*grown))) == NULL)
			return bx_fail(err, "out of memory");
		j->slots = grown;
	}
	j->slots[j->n].seq = e->rec.seq;
	j->slots[j->n++].e = e;
	return 0;
}

/* Whether the Approval lets the call run (a Result is still to come). */
static bool
runs(const struct bx_ev_approval *a)
{
	return a->answer == BX_ANSWER_APPROVED &&
	    a->outcome.kind != BX_OUTCOME_DENIED;
}

/* An Approval or Result: onto its Decision's entry, or an orphan. */
static void
attach(struct log_join *j, struct log_entry *e, uint64_t decision)
{
	size_t i = find(j, decision);
	struct log_entry *d;

	if (i == j->n) {
		e->kind = LOG_ORPHAN;
		e->complete = true;
		j->emit(j->ctx, e);
		return;
	}
	d = j->slots[i].e;
	if (e->rec.event.type == BX_AUDIT_APPROVAL) {
		d->approval = e->rec;
		d->has_approval = true;
		d->complete = !runs(&e->rec.event.approval);
	} else {
		d->result = e->rec;
		d->has_result = true;
		d->complete = true;
	}
	memset(&e->rec, 0, sizeof(e->rec));
	log_entry_free(e);
	if (d->complete)
		close_at(j, i);
}

int
log_join_record(struct log_join *j, const struct bx_chain_record *cr,
    struct bx_error *err)
{
	struct log_entry *e = calloc(1, sizeof(*e));

	if (e == NULL)
		return bx_fail(err, "out of memory");
	if (bx_audit_record_from_scan(cr->bytes, cr->len, cr->fast,
	    &e->rec, err) == -1) {
		free(e);
		return -1;
	}
	e->at = cr->at;
	switch (e->rec.event.type) {
	case BX_AUDIT_DECISION:
		e->kind = LOG_CALL;
		if (e->rec.event.decision.outcome.kind == BX_OUTCOME_DENIED)
			break;
		if (add_open(j, e, err) == -1) {
			log_entry_free(e);
			return -1;
		}
		return 0;
	case BX_AUDIT_APPROVAL:
		attach(j, e, e->rec.event.approval.decision);
		return 0;
	case BX_AUDIT_RESULT:
		attach(j, e, e->rec.event.result.decision);
		return 0;
	case BX_AUDIT_RECOVERY:
		e->kind = LOG_RECOVERY;
		break;
	default:
		e->kind = LOG_BREAK;
		break;
	}
	e->complete = true;
	j->emit(j->ctx, e);
	return 0;
}

void
log_join_flush(struct log_join *j)
{
	size_t i;

	for (i = 0; i < j->n; i++)
		if (j->slots[i].e != NULL) {
			j->slots[i].e->complete = true;
			close_at(j, i);
		}
	j->n = j->nclosed = 0;
}

void
log_join_free(struct log_join *j)
{
	size_t i;

	if (j == NULL)
		return;
	for (i = 0; i < j->n; i++)
		log_entry_free(j->slots[i].e);
	free(j->slots);
	free(j);
}
