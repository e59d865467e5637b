/*
 * audit.h: brokerd's audit writer (design section 5): the lock, the hash
 * chain, a sync covering every record before its append returns, daily
 * files, the startup check, torn line recovery and accepted breaks.
 * brokerd is the only writer.
 *
 * The writer holds an exclusive flock on <home>/audit/.lock from
 * audit_open to audit_close. Records go to <home>/audit/YYYY-MM-DD.jsonl by
 * the UTC date of their time; if the clock goes back, they stay in the
 * newest file. Nothing is truncated, rewritten or deleted, ever.
 *
 * audit_append is safe to call from several threads at once; it returns
 * only when the record is on disk: its write succeeded, and then an
 * fdatasync returned 0. Appenders that arrive while a sync is out share
 * the next one (group commit, audit_group.c), so one fdatasync may cover
 * several records, never fewer than the caller's own. When it fails, the
 * record is not written as far as the caller is concerned: deny with
 * audit_unavailable. Before the next record the writer reads back what
 * reached the file and repairs a torn line with a Recovery record; a
 * failed sync that covered several records stops the writer instead
 * (every later append fails until brokerd is restarted).
 *
 * Allocation: audit_open allocates the writer and audit_close frees it
 * (NULL is fine). The config's clock and io must outlive the writer.
 * Error messages are complete lines for brokerd to print, ending with
 * their runbook pointer.
 */
#ifndef BRKD_AUDIT_H
#define BRKD_AUDIT_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/audit_record.h"
#include "proto/error.h"

struct audit;

/* The time source, so tests can set "now" (milliseconds since the epoch). */
struct audit_clock {
	int64_t	(*now_ms)(void *ctx);
	void	*ctx;
};

/*
 * The system calls the writer makes on the log, so tests can make them fail
 * on demand. Each behaves like the call it is named after (-1 and errno on
 * failure; write may return a short count).
 */
struct audit_io {
	ssize_t	(*write)(void *ctx, int fd, const void *buf, size_t len);
	int	(*fdatasync)(void *ctx, int fd);
	int	(*fsync)(void *ctx, int fd);
	int	(*fallocate)(void *ctx, int fd, off_t off, off_t len);
	void	*ctx;
};

/* The real system calls; the default when the config has no io. */
extern const struct audit_io audit_io_system;
/* The real clock (CLOCK_REALTIME); the default when the config has none. */
extern const struct audit_clock audit_clock_system;

struct audit_config {
	const char			*home;		/* audit/ is under it */
	bool				 accept_break;	/* --accept-break */
	const struct audit_clock	*clock;		/* NULL: the real clock */
	const struct audit_io		*io;		/* NULL: the real calls */
};

/* audit_open's status when --accept-break finds nothing: brokerd exits 2. */
#define AUDIT_NOTHING_TO_ACCEPT	(-2)

/*
 * Startup, steps 1 to 5: takes the lock, verifies the newest file resumed
 * from the last line of the file before it, recovers a torn tail, and
 * stops on a failure unless accept_break, which appends an AcceptedBreak.
 * Creates <home>/audit (0700) if it is missing. Returns 0, -1 (exit 1) or
 * AUDIT_NOTHING_TO_ACCEPT (exit 2), with err filled on failure.
 */
int		 audit_open(const struct audit_config *, struct audit **ret,
		    struct bx_error *err);

/*
 * What startup did that the owner should see ("audit: recovered a torn
 * final line; see docs/runbook.md#audit-recovered", the accepted break):
 * lines for brokerd to print. i runs from 0 to audit_notice_count() - 1.
 */
size_t		 audit_notice_count(const struct audit *);
const char	*audit_notice(const struct audit *, size_t i);

/*
 * Appends a Decision, Approval or Result event as the next record (the
 * writer sets seq, time and prev) and syncs it. *ret_seq is the record's
 * seq: for a Decision, the approval id. Recovery and AcceptedBreak records
 * are the writer's own and are refused here.
 */
int		 audit_append(struct audit *, const struct bx_audit_event *ev,
		    uint64_t *ret_seq, struct bx_error *err);

/* Closes the log and releases the lock. */
void		 audit_close(struct audit *);

#endif
