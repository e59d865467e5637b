/*
 * log_show.c: which entries `bxctl log` shows and where they go
 * (log_show.h): the filter, the rows kept for -n, and what became of each
 * ask. The rows themselves are log_row.c's, the JSON objects log_json.c's;
 * each is handed the entry and the ask's answer, and knows nothing of
 * this file.
 */
#include <stdlib.h>
#include <string.h>

#include "bxctl/common/jsonout.h"
#include "bxctl/log/log_entry.h"
#include "bxctl/log/log_json.h"
#include "bxctl/log/log_row.h"
#include "bxctl/log/log_show.h"

static bool
pending(const struct log_show *s, uint64_t seq)
{
	size_t i;

	for (i = 0; i < s->npending; i++)
		if (s->pending[i] == seq)
			return true;
	return false;
}

/*
 * What became of an ask: "approved", "refused", "expired", and without an
 * answer "waiting" (shown while it waits, --follow), "pending",
 * "abandoned" or "unanswered" (brokerd could not be asked); NULL for a
 * call that did not ask.
 */
static const char *
answer(const struct log_show *s, const struct log_entry *e)
{
	if (e->kind != LOG_CALL ||
	    e->rec.event.decision.outcome.kind != BX_OUTCOME_ASK)
		return NULL;
	if (e->has_approval)
		return bx_answer_name(e->approval.event.approval.answer);
	/* --follow shows an ask as it starts to wait, and again when done. */
	if (!e->complete)
		return "waiting";
	if (!s->pending_known)
		return "unanswered";
	return pending(s, e->rec.seq) ? "pending" : "abandoned";
}

/* Whether the call's outcome is the one asked for (LOG_OUTCOME_*). */
static bool
outcome_is(const struct log_entry *e, int want)
{
	enum bx_deny reason;

	switch (want) {
	case LOG_OUTCOME_ALLOWED:
		return e->rec.event.decision.outcome.kind == BX_OUTCOME_ALLOWED;
	case LOG_OUTCOME_ASK:
		return e->rec.event.decision.outcome.kind == BX_OUTCOME_ASK;
	case LOG_OUTCOME_DENIED:
		return log_denied(e, &reason);
	default:
		return e->has_result &&
		    e->result.event.result.status == BX_RESULT_STATUS_FAILED;
	}
}

bool
log_filter_match(const struct log_filter *f, const struct log_entry *e)
{
	const struct bx_ev_decision *d = &e->rec.event.decision;

	if (f->has_since && e->rec.time < f->since)
		return false;
	if (f->has_until && e->rec.time > f->until)
		return false;
	/* Records that are no call belong to no session: shown unfiltered. */
	if (e->kind != LOG_CALL)
		return f->session == NULL && f->tool == NULL &&
		    f->outcome == -1;
	if (f->session != NULL && strcmp(d->session, f->session) != 0)
		return false;
	if (f->tool != NULL && strcmp(d->tool, f->tool) != 0)
		return false;
	return f->outcome == -1 || outcome_is(e, f->outcome);
}

void
log_show_init(struct log_show *s, FILE *out)
{
	s->out = out;
	log_rows_open(&s->rows, out);
}

void
log_show_header(struct log_show *s)
{
	if (!s->json)
		log_rows_header(&s->rows);
}

/* Prints e (a row or a JSON line). */
static void
print(struct log_show *s, const struct log_entry *e)
{
	json_t *obj;

	if (s->json) {
		if ((obj = log_json(e, answer(s, e))) != NULL)
			jsonout_print(s->out, obj);
		json_decref(obj);
		return;
	}
	log_row(&s->rows, e, answer(s, e));
}

/*
 * Keeps e among the last s->tail entries, to be printed at the end: only
 * the rows that are shown are formatted. Returns false if e was not kept
 * (the caller frees it).
 */
static bool
keep(struct log_show *s, struct log_entry *e)
{
	if (s->ring == NULL &&
	    (s->ring = calloc(s->tail, sizeof(*s->ring))) == NULL)
		return false;
	log_entry_free(s->ring[s->next]);
	s->ring[s->next] = e;
	s->next = (s->next + 1) % s->tail;
	if (s->nring < s->tail)
		s->nring++;
	return true;
}

void
log_show_entry(void *ctx, struct log_entry *e)
{
	struct log_show *s = ctx;

	if (log_filter_match(&s->filter, e)) {
		s->shown++;
		if (s->tail > 0 && keep(s, e))
			return;
		print(s, e);
	}
	log_entry_free(e);
}

void
log_show_tail(struct log_show *s)
{
	size_t i, at;

	for (i = 0; i < s->nring; i++) {
		at = (s->next + s->tail - s->nring + i) % s->tail;
		print(s, s->ring[at]);
		log_entry_free(s->ring[at]);
		s->ring[at] = NULL;
	}
	free(s->ring);
	s->ring = NULL;
	s->nring = s->next = s->tail = 0;
}

void
log_show_free(struct log_show *s)
{
	size_t i;

	for (i = 0; s->ring != NULL && i < s->tail; i++)
		log_entry_free(s->ring[i]);
	free(s->ring);
	free(s->pending);
	s->ring = NULL;
	s->pending = NULL;
}
