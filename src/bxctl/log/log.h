/*
 * log.h: what the files of `bxctl log` share. log.c reads the audit log
 * through the chain (following it with --follow); log_join.c joins each
 * call's Decision, Approval and Result records into one entry; log_show.c
 * filters the entries and prints them, as rows or JSON lines, keeping the
 * last -n of them; log_call.c prints every record of one call in full
 * (--call).
 *
 * Ownership: an entry owns its records (each with its own storage, as
 * bx_audit_record_read gives them); log_entry_free() frees them. Locations
 * point into the chain's file names, which live as long as the chain or
 * its report. The join owns the open entries; an entry handed to the
 * emit callback is the callback's.
 */
#ifndef BXCTL_LOG_H
#define BXCTL_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

#include "bxctl/common/table.h"
#include "proto/audit_record.h"
#include "proto/chain.h"

/*
 * Calls whose last record is not in yet are kept in memory; past this many
 * (a log full of approvals never answered), the oldest is shown as it is.
 */
#define LOG_OPEN_MAX	65536
/* The largest -n: the entries it keeps are in memory until the end. */
#define LOG_LINES_MAX	100000

enum log_kind {
	LOG_CALL,		/* a Decision and what followed it */
	LOG_RECOVERY,		/* a Recovery record */
	LOG_BREAK,		/* an AcceptedBreak record */
	LOG_ORPHAN,		/* an Approval or Result with no Decision */
};

struct log_entry {
	enum log_kind		 kind;
	struct bx_audit_record	 rec;		/* the Decision, or the record */
	struct bx_location	 at;
	bool			 has_approval, has_result;
	struct bx_audit_record	 approval;
	struct bx_audit_record	 result;
	/*
	 * Nothing more will be added: its last record is in, or the log
	 * ended (or too many were open) first. An entry shown before that
	 * is --follow's row for an ask that starts to wait.
	 */
	bool			 complete;
};

void	log_entry_free(struct log_entry *);

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

/* The join: entries are handed to emit once they are complete. */
typedef void	(*log_emit_fn)(void *ctx, struct log_entry *);

struct log_join;

struct log_join	*log_join_new(log_emit_fn emit, void *ctx);
/*
 * Takes one record the chain accepted (its line is read here). Fails only
 * if memory runs out or the line cannot be read (which the chain would
 * have refused).
 */
int	log_join_record(struct log_join *, const struct bx_chain_record *,
	    struct bx_error *);
/* Hands over every entry still open, in Decision order (the end). */
void	log_join_flush(struct log_join *);
void	log_join_free(struct log_join *);

/* Whether e passes the filter. */
bool	log_filter_match(const struct log_filter *, const struct log_entry *);

/* The columns of a call's row. */
enum {
	LOG_COL_TIME, LOG_COL_SESSION, LOG_COL_TOOL, LOG_COL_OUTCOME,
	LOG_COL_GRANT, LOG_COL_RESULT, LOG_COL_CLASS, LOG_COL_TAINT,
	LOG_COL_ARGUMENTS, LOG_NCOLS
};

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
	struct table		 table;
	struct table_col	 cols[LOG_NCOLS];
	struct log_entry	**ring;		/* the last tail entries */
	size_t			 nring, next;
	size_t			 shown;		/* entries that passed */
	bool			 pending_known;
	uint64_t		*pending;	/* ascending */
	size_t			 npending;
};

/*
 * What became of an ask: "approved", "refused", "expired", and without an
 * answer "waiting" (shown while it waits, --follow), "pending",
 * "abandoned" or "unanswered" (brokerd could not be asked); NULL for a
 * call that did not ask.
 */
const char	*log_answer(const struct log_show *, const struct log_entry *);
/* The call's first denial (the Decision's or the Approval's), if any. */
bool	log_denied(const struct log_entry *, enum bx_deny *ret);
/* Whether the call was let run. */
bool	log_ran(const struct log_entry *);

/* log_row.c: e as a row of the table; log_json.c: e as a JSON object. */
void	log_row(struct log_show *, struct table *, const struct log_entry *);
json_t	*log_json(const struct log_show *, const struct log_entry *);

/*
 * log_call.c: --call ID, every record of the calls with that id (in
 * session if not NULL), each in full, as text or JSON lines.
 */
struct log_call {
	const char	*call;
	const char	*session;
	bool		 json;
	FILE		*out;
	size_t		 found;		/* records printed */
};

/* A chain record hook (chain.h); ctx is a struct log_call. */
void	log_call_record(void *ctx, const struct bx_chain_record *);

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
