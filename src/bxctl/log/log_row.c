/*
 * log_row.c: one entry of `bxctl log` as a row for a person (log_row.h):
 * the call's local time, session, tool, outcome, grant, result, class,
 * taint after and arguments; or, for a record that is no call, its time
 * and what it says. Every string from the log goes through table.h, which
 * prints it as data.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "bxctl/common/show.h"
#include "bxctl/common/table.h"
#include "bxctl/common/when.h"
#include "bxctl/log/log_entry.h"
#include "bxctl/log/log_row.h"

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
outcome_text(const struct log_entry *e, const char *answer, char *buf,
    size_t size)
{
	const struct bx_ev_approval *a = &e->approval.event.approval;
	enum bx_deny reason;
	bool denied = log_denied(e, &reason);
	char where[128];

	if (answer == NULL && denied)
		snprintf(buf, size, "denied: %s", bx_deny_name(reason));
	else if (answer == NULL)
		snprintf(buf, size, "allowed");
	else if (!e->has_approval)
		snprintf(buf, size, "ask: %s", answer);
	else if (a->answer == BX_ANSWER_EXPIRED)
		snprintf(buf, size, "ask: expired");
	else {
		show_answered_where(a, where, sizeof(where));
		if (a->answer == BX_ANSWER_APPROVED && denied)
			snprintf(buf, size, "ask: approved %s, denied: %s",
			    where, bx_deny_name(reason));
		else
			snprintf(buf, size, "ask: %s %s", answer, where);
	}
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
call_row(struct log_rows *rows, const struct log_entry *e, const char *answer)
{
	struct table *t = &rows->table;
	const struct table_col *cols = rows->cols;
	const struct bx_ev_decision *d = &e->rec.event.decision;
	const struct bx_ev_result *r = &e->result.event.result;
	char when[WHEN_LOCAL_LEN], outcome[256], result[64];
	const char *colour;

	when_local(e->rec.time, when);
	table_cell(t, when, cols[LOG_COL_TIME].width, NULL);
	table_cell(t, d->session, cols[LOG_COL_SESSION].width, NULL);
	table_cell(t, d->tool, cols[LOG_COL_TOOL].width, NULL);
	colour = outcome_text(e, answer, outcome, sizeof(outcome));
	table_cell(t, outcome, cols[LOG_COL_OUTCOME].width, colour);
	table_cell(t, d->grant != NULL ? d->grant : "-",
	    cols[LOG_COL_GRANT].width, NULL);
	colour = result_text(e, result, sizeof(result));
	table_cell(t, result, cols[LOG_COL_RESULT].width, colour);
	table_cell(t, e->has_result ? bx_class_name(r->class) : "-",
	    cols[LOG_COL_CLASS].width, NULL);
	table_cell(t, e->has_result ? bx_class_name(r->taint_after) : "-",
	    cols[LOG_COL_TAINT].width, NULL);
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
log_rows_open(struct log_rows *rows, FILE *out)
{
	static const struct table_col cols[LOG_NCOLS] = {
		{ "TIME", 19, 19, 9, 0 }, { "SESSION", 18, 6, 1, 0 },
		{ "TOOL", 10, 6, 3, 0 }, { "OUTCOME", 24, 8, 5, 0 },
		{ "GRANT", 16, 4, 0, 0 }, { "RESULT", 14, 7, 2, 0 },
		{ "CLASS", 7, 3, 4, 0 }, { "TAINT", 7, 3, 4, 0 },
		{ "ARGUMENTS", 6, 6, 9, 0 },
	};

	table_open(&rows->table, out);
	memcpy(rows->cols, cols, sizeof(cols));
	table_layout(&rows->table, rows->cols, LOG_NCOLS);
}

void
log_rows_header(struct log_rows *rows)
{
	table_header(&rows->table, rows->cols, LOG_NCOLS);
}

void
log_row(struct log_rows *rows, const struct log_entry *e, const char *answer)
{
	struct table *t = &rows->table;
	const struct table_col *cols = rows->cols;
	char when[WHEN_LOCAL_LEN], text[1024];

	if (e->kind == LOG_CALL)
		call_row(rows, e, answer);
	else {
		when_local(e->rec.time, when);
		table_cell(t, when, cols[LOG_COL_TIME].width, NULL);
		note_text(e, text, sizeof(text));
		table_cell(t, text, 0, TABLE_YELLOW);
	}
	table_end(t);
}
