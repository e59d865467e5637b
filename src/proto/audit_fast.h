/*
 * audit_fast.h: what the audit scanner's fast path (audit_scan.c) reads of
 * a line in the encoder's canonical form, for audit_read.c, which turns it
 * into a whole record without jansson. Not for other files: callers use
 * bx_audit_record_scan and bx_audit_record_read (audit_record.h).
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

/* 0 if line is a valid record in canonical form (then *ret is filled). */
int	bx_audit_scan_full(const char *line, size_t len,
	    struct bx_audit_fast *ret);

#endif
