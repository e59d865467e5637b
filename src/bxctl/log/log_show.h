/*
 * log_show.h: which entries `bxctl log` shows and where they go: the
 * filter, the last -n entries kept until the end, and what became of
 * each ask. It hands each entry it shows down to log_row.h or
 * log_json.h with what became of the ask, which only it can tell: it
 * holds the approvals brokerd still waits on.
 *
 * Ownership: struct log_show owns the entries it keeps and the pending
 * list; log_show_free() frees them (a zeroed struct is fine to free).
 */
#ifndef BXCTL_LOG_SHOW_H
#define BXCTL_LOG_SHOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "bxctl/log/log_entry.h"
#include "bxctl/log/log_row.h"

/* The largest -n: the entries it keeps are in memory until the end. */
#define LOG_LINES_MAX	100000

/* What the reader asked for. */
struct log_filter {
	const char	*session;	/* NULL: any */
	const char	*tool;
	int		 outcome;	/* LOG_OUTCOME_*, or -1: any */
	bool		 has_since, has_until;
	int64_t		 since, until;	/* the Decision's time, ms */
};

enum log_outcome {
	LOG_OUTCOME_ALLOWED,	/* ran without asking */
	LOG_OUTCOME_ASK,	/* waited for the owner, whatever the answer */
	LOG_OUTCOME_DENIED,	/* did not run: denied, refused or expired */
	LOG_OUTCOME_FAILED,	/* ran, and failed */
};

/* Whether e passes the filter. */
bool	log_filter_match(const struct log_filter *, const struct log_entry *);

/*
 * What is shown, and how: the filter, rows or JSON lines, the last tail
 * entries only (0: all). The approvals brokerd holds tell a pending ask
 * from an abandoned one when the log ends (pending_known false: brokerd
 * could not be asked, and neither is said).
 */
struct log_show {
	struct log_filter	 filter;
	bool			 json;
	size_t			 tail;
	FILE			*out;
	struct log_rows		 rows;
	struct log_entry	**ring;		/* the last tail entries */
	size_t			 nring, next;
	size_t			 shown;		/* entries that passed */
	bool			 pending_known;
	uint64_t		*pending;	/* ascending */
	size_t			 npending;
};

/* Lays out the rows for out. */
void	log_show_init(struct log_show *, FILE *out);
/* The title row (rows only, and only before any entry). */
void	log_show_header(struct log_show *);
/* The join's emit callback (log_emit_fn): shows e if it passes; frees it. */
void	log_show_entry(void *ctx, struct log_entry *e);
/* Prints the rows kept for -n, oldest first; from then on, every entry. */
void	log_show_tail(struct log_show *);
void	log_show_free(struct log_show *);

#endif
