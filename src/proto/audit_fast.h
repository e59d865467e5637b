/*
 * audit_fast.h: what the audit scanner's fast path (audit_scan.c) reads of
 * a line in the encoder's canonical form: the chain verifier keeps it for
 * each line (chain.h), and audit_read.c turns it into a whole record
 * without jansson and without scanning the line again. Readers do not look
 * inside: they hand it to bx_audit_record_from_scan.
 *
 * Nothing here allocates: spans point into the caller's line.
 */
#ifndef BX_AUDIT_FAST_H
#define BX_AUDIT_FAST_H

#include "proto/audit_record.h"

/* A string as it lies in the line: JSON-escaped unless plain. */
struct bx_audit_span {
	const char	*s;		/* NULL: the field was null */
	size_t		 len;
	bool		 plain;		/* no escape in it */
};

/*
 * The summary the chain needs and the rest of the event: rec.event holds
 * the numbers, enums, hashes and flags of sum.type's event, its strings
 * left to the spans (those of other types are not set). seq, time and prev
 * are in sum only.
 */
struct bx_audit_fast {
	struct bx_audit_summary	 sum;
	struct bx_audit_record	 rec;
	struct bx_audit_span	 session, call, tool, arguments, grant;
	struct bx_audit_span	 by, post, reason;
};

/*
 * 0 if line is a valid record in canonical form, and *ret is filled. It
 * is filled in place as the line is read, so on failure *ret holds
 * whatever was read: it is the caller's scratch (the chain verifier's
 * slot for the line), not a result, and copying it out on success would
 * cost every line of every verify a copy.
 */
int	bx_audit_scan_full(const char *line, size_t len,
	    struct bx_audit_fast *ret);

/*
 * The record of line (len bytes): from f, what the fast path read of it,
 * or, with f NULL (a line not in canonical form), from the decoder. As
 * bx_audit_record_read otherwise.
 */
int	bx_audit_record_from_scan(const char *line, size_t len,
	    const struct bx_audit_fast *f, struct bx_audit_record *ret,
	    struct bx_error *err);

#endif
