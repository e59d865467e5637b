/*
 * chain.h: the ChainVerifier of design section 5, a pure state machine
 * shared by brokerd's startup and bxctl audit verify. It does no I/O: the
 * caller feeds it file names and lines, and finish() says what it found.
 *
 * Rules. A line fails if it does not parse as an AuditRecord, its seq is
 * not the next one, or its prev is not the hash of the line before (the
 * first record ever has seq 0 and prev all zeros). Not failures: a torn
 * tail (the last line of the last file has no newline); a recovered line
 * (a line followed at once by a Recovery record whose torn_bytes and
 * torn_sha256 describe exactly that line and which chains from the line
 * before it). An AcceptedBreak clears the first failure since the last
 * break if its file, line, last_good, prev and seq are exactly what
 * brokerd's startup writes for that failure (see the report's break_*
 * fields); lines between the failure and the break are not checked.
 *
 * Allocation: bx_chain_new/bx_chain_resume allocate the verifier;
 * bx_chain_finish consumes it (freeing it) and allocates the report, which
 * the caller frees with bx_chain_report_free. bx_chain_free frees a
 * verifier that is never finished. All accept NULL.
 */
#ifndef BX_CHAIN_H
#define BX_CHAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/audit_fast.h"
#include "proto/audit_record.h"
#include "proto/error.h"
#include "proto/types.h"

/* A line of a file: file is owned by the report (or the verifier). */
struct bx_location {
	const char	*file;
	uint64_t	 line;		/* 1-based */
};

struct bx_chain_failure {
	struct bx_location	at;
	char			what[BX_ERROR_MAX];
};

/* An accepted break: the record at `at` accepted the failure at `accepted`. */
struct bx_chain_break {
	struct bx_location	at;
	struct bx_location	accepted;
};

struct bx_chain_report {
	uint64_t		 records;	/* lines accepted as records */
	bool			 has_head;
	struct bx_hash		 head;		/* hash of the last accepted record */
	uint64_t		 next_seq;

	bool			 failed;
	struct bx_chain_failure	 failure;	/* the first unaccepted one */
	/*
	 * What an AcceptedBreak for that failure must hold, appended after
	 * the last line fed: last_good (hash of the last line that verified,
	 * zeros if none), prev (hash of the last complete line) and seq (one
	 * more than the highest seq among lines that parse from the failure
	 * on, or the failure line's expected seq if none parse).
	 */
	struct bx_hash		 break_last_good;
	struct bx_hash		 break_prev;
	uint64_t		 break_seq;

	struct bx_location	*recoveries;	/* the recovered lines */
	size_t			 nrecoveries;
	struct bx_chain_break	*breaks;
	size_t			 nbreaks;
	uint64_t		*abandoned;	/* ask decisions, ascending */
	size_t			 nabandoned;
	struct bx_location	*clock_warnings;	/* time went backwards */
	size_t			 nclock_warnings;

	bool			 torn;
	struct bx_location	 torn_tail;
	uint64_t		 torn_bytes;	/* the torn line, for a Recovery */
	struct bx_hash		 torn_sha256;
	/* Where a Recovery for the torn line chains from. */
	struct bx_hash		 torn_prev;
	uint64_t		 torn_seq;

	char			**files;	/* storage for every file name */
	size_t			 nfiles;
};

/*
 * A record the chain accepted (a line that verified, or the AcceptedBreak
 * that cleared a failure), handed to a reader that wants more of the log
 * than the report: seq and hash for anchors, the line for bxctl log. The
 * line is the caller's bytes; sum, fast and bytes are valid during the call
 * only. bx_audit_record_from_scan(bytes, len, fast) makes it a record.
 */
struct bx_chain_record {
	struct bx_location		 at;
	const struct bx_audit_summary	*sum;
	/* All the fast path read of a canonical line, or NULL (audit_fast.h). */
	const struct bx_audit_fast	*fast;
	struct bx_hash			 hash;
	const char			*bytes;		/* without the "\n" */
	size_t				 len;
};

typedef void	(*bx_chain_record_fn)(void *ctx, const struct bx_chain_record *);

struct bx_chain;

/* Expects seq 0 and prev all zeros. NULL when out of memory. */
struct bx_chain	*bx_chain_new(void);
/* Continues from a known point: the next seq and the last line's hash. */
struct bx_chain	*bx_chain_resume(uint64_t next_seq, const struct bx_hash *prev);
/*
 * Calls fn for every record accepted from now on, in order. A line is
 * accepted only once the next one is fed (or the chain is settled or
 * finished), so with fn set the bytes given to bx_chain_line must stay valid
 * until the next bx_chain_line, bx_chain_settle or bx_chain_finish returns.
 */
void		 bx_chain_on_record(struct bx_chain *, bx_chain_record_fn fn,
		    void *ctx);
/* Starts the next file; the name is copied. */
void		 bx_chain_file(struct bx_chain *, const char *name);
/* Feeds one line without its "\n". */
void		 bx_chain_line(struct bx_chain *, const char *bytes, size_t len,
		    bool last_in_file, bool has_newline);
/*
 * Settles the line held back (one with its newline) now instead of at the
 * next line: for a reader following a live log, which must show the last
 * record before another is written. A line that verifies is accepted. One
 * that would fail is left held unless final (the writer is gone, nothing
 * more will come), since a Recovery record may still follow it: the "\n"
 * that ends a torn line and the Recovery after it are one write, which a
 * reader can see half done. A line in a file before a later one is never
 * recovered, and is settled either way. Returns whether a line is still
 * held. The price: a Recovery record written later for a line that
 * verified and was settled (its sync failed) can no longer recover it,
 * and fails the chain there instead.
 */
bool		 bx_chain_settle(struct bx_chain *, bool final);
/* The first failure not accepted so far, or NULL. */
const struct bx_chain_failure *bx_chain_failed(const struct bx_chain *);
/*
 * Ends the run. Fails only if memory ran out or hashing failed during the
 * run; a broken chain is a successful finish with report->failed set.
 */
int		 bx_chain_finish(struct bx_chain *,
		    struct bx_chain_report **ret, struct bx_error *err);
void		 bx_chain_free(struct bx_chain *);
void		 bx_chain_report_free(struct bx_chain_report *);

#endif
