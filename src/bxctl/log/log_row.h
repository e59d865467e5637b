/*
 * log_row.h: entries of `bxctl log` as rows for a person: the columns,
 * their title row, and one row per entry. What became of an ask is the
 * caller's to say (answer): the entry alone cannot tell a pending ask
 * from an abandoned one. The rest the entry says itself (log_entry.h).
 *
 * Ownership: struct log_rows holds no memory; out stays the caller's.
 */
#ifndef BXCTL_LOG_ROW_H
#define BXCTL_LOG_ROW_H

#include <stdio.h>

#include "bxctl/common/table.h"
#include "bxctl/log/log_entry.h"

/* The columns of a call's row. */
enum {
	LOG_COL_TIME, LOG_COL_SESSION, LOG_COL_TOOL, LOG_COL_OUTCOME,
	LOG_COL_GRANT, LOG_COL_RESULT, LOG_COL_CLASS, LOG_COL_TAINT,
	LOG_COL_ARGUMENTS, LOG_NCOLS
};

struct log_rows {
	struct table		 table;
	struct table_col	 cols[LOG_NCOLS];
};

/* Lays out the columns for out. */
void	log_rows_open(struct log_rows *, FILE *out);
/* The title row. */
void	log_rows_header(struct log_rows *);
/*
 * e as a row. answer: what became of the ask ("approved", "refused",
 * "expired", "waiting", "pending", "abandoned", "unanswered"), NULL for a
 * call that did not ask.
 */
void	log_row(struct log_rows *, const struct log_entry *e,
	    const char *answer);

#endif
