/*
 * audit_record.h: the AuditRecord of design section 5 and its codec.
 *
 * A record is one line of compact JSON:
 *   {"seq":N,"time":T,"prev":H,"event":{"type":...,fields...}}
 * with the event tagged "type" (decision, approval, result, recovery,
 * accepted_break) and a DecisionRecord tagged "outcome". Encoding is
 * deterministic (fields in the design's order, every field present, null
 * where absent, no whitespace); decoding is strict (an unknown, duplicate,
 * missing or mistyped key is an error naming the key), except that an
 * optional field (grant, grant_sha256, by, post, reason) may be absent,
 * which decodes as null (baseline.md section 1).
 *
 * Ownership: the strings of a record are borrowed (const char *). A record
 * the caller builds for encoding points at the caller's strings and needs
 * no cleanup. A record filled by bx_audit_record_decode owns its strings in
 * one block (storage); release it with bx_audit_record_clear. The line
 * returned by bx_audit_record_encode is malloc'd; the caller frees it.
 */
#ifndef BX_AUDIT_RECORD_H
#define BX_AUDIT_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/types.h"

/*
 * Integers in a record (seq, decision, bytes, torn_bytes, line) are u64 in
 * the design; JSON through jansson carries them up to INT64_MAX.
 */
#define BX_AUDIT_U64_MAX	((uint64_t)INT64_MAX)
/* AcceptedBreak.file names a file in audit/: 1 to NAME_MAX bytes, no '/'. */
#define BX_AUDIT_FILE_MAX	255
/* A line longer than this is not a record: a frame (1 MiB) escaped twice. */
#define BX_AUDIT_LINE_MAX	(8u * 1024 * 1024)

enum bx_event_type {
	BX_AUDIT_DECISION,
	BX_AUDIT_APPROVAL,
	BX_AUDIT_RESULT,
	BX_AUDIT_RECOVERY,
	BX_AUDIT_ACCEPTED_BREAK,
	BX_AUDIT_EVENT_MAX
};

enum bx_answer {
	BX_ANSWER_APPROVED,
	BX_ANSWER_REFUSED,
	BX_ANSWER_EXPIRED,
	BX_ANSWER_MAX
};

enum bx_result_status {
	BX_RESULT_STATUS_RESULT,
	BX_RESULT_STATUS_FAILED,
	BX_RESULT_STATUS_MAX
};

struct bx_ev_decision {
	const char		*session;
	const char		*call;
	const char		*tool;		/* as requested: any string */
	const char		*arguments;	/* in full, as received */
	struct bx_outcome	 outcome;
	const char		*grant;		/* NULL: null */
	bool			 has_grant_sha256;
	struct bx_hash		 grant_sha256;
	enum bx_class		 taint;
	bool			 untrusted;
};

struct bx_ev_approval {
	const char		*session;
	const char		*call;
	uint64_t		 decision;	/* seq of the Decision record */
	enum bx_answer		 answer;
	const char		*by;		/* NULL: null */
	const char		*post;		/* NULL: null */
	const char		*reason;	/* NULL: null */
	struct bx_outcome	 outcome;
};

struct bx_ev_result {
	const char		*session;
	const char		*call;
	uint64_t		 decision;
	enum bx_result_status	 status;
	enum bx_class		 class;
	bool			 untrusted;
	bool			 truncated;
	uint64_t		 bytes;
	struct bx_hash		 sha256;
	enum bx_class		 taint_after;
};

struct bx_ev_recovery {
	uint64_t		 torn_bytes;
	struct bx_hash		 torn_sha256;
};

struct bx_ev_accepted_break {
	const char		*file;
	uint64_t		 line;
	struct bx_hash		 last_good;
};

struct bx_audit_event {
	enum bx_event_type	 type;
	union {
		struct bx_ev_decision		decision;
		struct bx_ev_approval		approval;
		struct bx_ev_result		result;
		struct bx_ev_recovery		recovery;
		struct bx_ev_accepted_break	accepted_break;
	};
};

struct bx_audit_record {
	uint64_t		 seq;
	int64_t			 time;		/* Timestamp, ms */
	struct bx_hash		 prev;
	struct bx_audit_event	 event;
	char			*storage;	/* owned strings after decode */
};

const char	*bx_event_type_name(enum bx_event_type);
const char	*bx_answer_name(enum bx_answer);
const char	*bx_result_status_name(enum bx_result_status);

/*
 * Encodes rec as one line without the "\n" into a malloc'd, NUL-terminated
 * buffer (*ret_line, *ret_len). Fails if a field is out of its range (an id
 * of the wrong form, a number above BX_AUDIT_U64_MAX, text that is not
 * UTF-8), if the line would be longer than BX_AUDIT_LINE_MAX (the decoder
 * would refuse it), or on allocation failure.
 */
int	bx_audit_record_encode(const struct bx_audit_record *rec,
	    char **ret_line, size_t *ret_len, struct bx_error *err);

/*
 * The same line with its "\n" (counted in *ret_len) and then a NUL, as the
 * audit writer writes it: the hash is of the first *ret_len - 1 bytes.
 */
int	bx_audit_record_encode_line(const struct bx_audit_record *rec,
	    char **ret_line, size_t *ret_len, struct bx_error *err);

/*
 * Decodes exactly one record from len bytes at line (no "\n"). On success
 * *ret owns its strings; call bx_audit_record_clear when done.
 */
int	bx_audit_record_decode(const char *line, size_t len,
	    struct bx_audit_record *ret, struct bx_error *err);

/*
 * bx_audit_record_decode, only faster: a line in the encoder's canonical
 * form is read without jansson (audit_read.c). Same lines accepted, same
 * record, same ownership.
 */
int	bx_audit_record_read(const char *line, size_t len,
	    struct bx_audit_record *ret, struct bx_error *err);

/* Frees what decode allocated; NULL and cleared records are fine. */
void	bx_audit_record_clear(struct bx_audit_record *rec);

/*
 * What the chain verifier needs of a line, without allocating. file points
 * into the summary itself (AcceptedBreak only).
 */
struct bx_audit_summary {
	uint64_t		 seq;
	int64_t			 time;
	struct bx_hash		 prev;
	enum bx_event_type	 type;
	bool			 ask;		/* a Decision with outcome ask */
	uint64_t		 decision;	/* Approval: the Decision's seq */
	uint64_t		 torn_bytes;	/* Recovery */
	struct bx_hash		 torn_sha256;
	char			 file[BX_AUDIT_FILE_MAX + 1];	/* AcceptedBreak */
	uint64_t		 line;
	struct bx_hash		 last_good;
};

/*
 * Parses a line as bx_audit_record_decode would and fills *ret with its
 * summary. Lines in the encoder's canonical form take a fast path that does
 * not allocate; any other line goes through the full decoder, so the two
 * accept exactly the same lines. err may be NULL.
 */
int	bx_audit_record_scan(const char *line, size_t len,
	    struct bx_audit_summary *ret, struct bx_error *err);

/* The summary of a decoded record: what the scan gives for its line. */
void	bx_audit_record_summarize(const struct bx_audit_record *rec,
	    struct bx_audit_summary *ret);

/*
 * The fast path alone, for the tests and the fuzzer that prove it accepts
 * no line the full decoder refuses: 0 if the line is in canonical form and
 * valid (then *ret is its summary), -1 for any other line, valid or not.
 */
int	bx_audit_record_scan_fast(const char *line, size_t len,
	    struct bx_audit_summary *ret);

#endif
