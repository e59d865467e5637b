/*
 * log_entry.h: one entry of `bxctl log`, a call's Decision with the
 * Approval and Result that followed it, or a record that is no call; and
 * what the entry alone says of the call: whether it was denied, whether it
 * ran. Everything of the log room that handles entries (log_join.c makes
 * them, log_show.c picks them, log_row.c and log_json.c print them)
 * reads this header; this file knows none of them.
 *
 * Ownership: an entry owns its records (each with its own storage, as
 * bx_audit_record_read gives them); log_entry_free() frees them and
 * accepts NULL. Locations point into the chain's file names, which live
 * as long as the chain or its report.
 */
#ifndef BXCTL_LOG_ENTRY_H
#define BXCTL_LOG_ENTRY_H

#include <stdbool.h>

#include "proto/audit_record.h"
#include "proto/chain.h"

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

/* The call's first denial (the Decision's or the Approval's), if any. */
bool	log_denied(const struct log_entry *, enum bx_deny *ret);
/* Whether the call was let run. */
bool	log_ran(const struct log_entry *);

#endif
