/*
 * log_row.c: one entry of `bxctl log` as a row for a person (log.h): the
 * call's local time, session, tool, outcome, grant, result, class, taint
 * after and arguments; or, for a record that is no call, its time and
 * what it says. Every string from the log goes through table.h, which
 * prints it as data.
 */
#include <inttypes.h>
#include <stdio.h>

#include "bxctl/common/when.h"
#include "bxctl/log/log.h"

/* "25 B", "4.0 KiB", "1.2 MiB", "3.0 GiB", rounded down. */
static void
bytes_text(uint64_t n, char *buf, size_t size)
{
	static const char *units[] = { "KiB", "MiB", "GiB", "TiB", "PiB" };
	uint64_t tenths;
	int u = 0;

	if (n < 1024) {
		snprintf(buf, size, "%" PRIu64 " B", n);
		return;
	}
	while (n >= 1024 * 1024 && u < 4) {
		n /= 1024;
		u++;
	}
	tenths = n * 10 / 1024;
	snprintf(buf, size, "%" PRIu64 ".%" PRIu64 " %s", tenths / 10,
	    tenths % 10, units[u]);
}

/* The OUTCOME cell and its colour. */
static const char *
outcome_text(const struct log_show *s, const struct log_entry *e, char *buf,
    size_t size)
{
	const struct bx_ev_approval *a = &e->approval.event.approval;
	const char *answer = log_answer(s, e);
	enum bx_deny reason;
	bool denied = log_denied(e, &reason);

	if (answer == NULL && denied)
		snprintf(buf, size, "denied: %s", bx_deny_name(reason));
	else if (answer == NULL)
		snprintf(buf, size, "allowed");
	else if (!e->has_approval)
		snprintf(buf, size, "ask: %s", answer);
	else if (a->answer == BX_ANSWER_EXPIRED)
		snprintf(buf, size, "ask: expired");
	else if (a->answer == BX_ANSWER_APPROVED && denied)
		snprintf(buf, size, "ask: approved by %s, denied: %s",
		    a->by != NULL ? a->by : "?", bx_deny_name(reason));
	else
		snprintf(buf, size, "ask: %s by %s", answer,
		    a->by != NULL ? a->by : "?");
	if (denied)
		return TABLE_RED;
	return answer == NULL || log_ran(e) ? TABLE_GREEN : TABLE_YELLOW;
}

/* The RESULT cell and its colour. */
static const char *
result_text(const struct log_entry *e, char *buf, size_t size)
{
	const struct bx_ev_result *r = &e->result.event.result;
	char bytes[32];

	if (!e->has_result) {
		snprintf(buf, size, log_ran(e) ? "no result" : "-");
		return NULL;
	}
	bytes_text(r->bytes, bytes, sizeof(bytes));
	snprintf(buf, size, "%s %s", bx_result_status_name(r->status), bytes);
	return r->status == BX_RESULT_STATUS_FAILED ? TABLE_RED : NULL;
}

static void
call_row(struct log_show *s, struct table *t, const struct log_entry *e)
{
	const struct bx_ev_decision *d = &e->rec.event.decision;
	const struct bx_ev_result *r = &e->result.event.result;
	char when[WHEN_LOCAL_LEN], outcome[256], result[64];
	const char *colour;

	when_local(e->rec.time, when);
	table_cell(t, when, s->cols[LOG_COL_TIME].width, NULL);
	table_cell(t, d->session, s->cols[LOG_COL_SESSION].width, NULL);
	table_cell(t, d->tool, s->cols[LOG_COL_TOOL].width, NULL);
	colour = outcome_text(s, e, outcome, sizeof(outcome));
	table_cell(t, outcome, s->cols[LOG_COL_OUTCOME].width, colour);
	table_cell(t, d->grant != NULL ? d->grant : "-",
	    s->cols[LOG_COL_GRANT].width, NULL);
	colour = result_text(e, result, sizeof(result));
	table_cell(t, result, s->cols[LOG_COL_RESULT].width, colour);
	table_cell(t, e->has_result ? bx_class_name(r->class) : "-",
	    s->cols[LOG_COL_CLASS].width, NULL);
	table_cell(t, e->has_result ? bx_class_name(r->taint_after) : "-",
	    s->cols[LOG_COL_TAINT].width, NULL);
	table_cell(t, d->arguments, 0, NULL);
}

/* What a record that is no call says, after its time. */
static void
note_text(const struct log_entry *e, char *buf, size_t size)
{
	const struct bx_audit_event *ev = &e->rec.event;

	switch (e->kind) {
	case LOG_RECOVERY:
		snprintf(buf, size, "recovered: %s:%" PRIu64 " was a torn line "
		    "(%" PRIu64 " bytes), never a record; the Recovery record "
		    "after it says so", e->at.file, e->at.line - 1,
		    ev->recovery.torn_bytes);
		break;
	case LOG_BREAK:
		snprintf(buf, size, "accepted break: at %s:%" PRIu64 " the "
		    "owner accepted the failure at %s:%" PRIu64, e->at.file,
		    e->at.line, ev->accepted_break.file,
		    ev->accepted_break.line);
		break;
	default:
		snprintf(buf, size, "%s of decision %" PRIu64 " (%s:%" PRIu64
		    "), which is not in the log read", bx_event_type_name(
		    ev->type), ev->type == BX_AUDIT_APPROVAL ?
		    ev->approval.decision : ev->result.decision, e->at.file,
		    e->at.line);
		break;
	}
}

void
log_row(struct log_show *s, struct table *t, const struct log_entry *e)
{
	char when[WHEN_LOCAL_LEN], text[1024];

	if (e->kind == LOG_CALL)
		call_row(s, t, e);
	else {
		when_local(e->rec.time, when);
		table_cell(t, when, s->cols[LOG_COL_TIME].width, NULL);
		note_text(e, text, sizeof(text));
		table_cell(t, text, 0, TABLE_YELLOW);
	}
	table_end(t);
}
