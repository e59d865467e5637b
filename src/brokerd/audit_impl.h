/*
 * audit_impl.h: the writer's state and the record writer, shared by
 * audit.c (records, repair, daily files), audit_group.c (audit_append and
 * its group commit) and audit_start.c (the startup check). Not for other
 * modules: they use audit.h.
 */
#ifndef BRKD_AUDIT_IMPL_H
#define BRKD_AUDIT_IMPL_H

#include <sys/types.h>

#include <limits.h>
#include <pthread.h>

#include "brokerd/audit.h"
#include "proto/audit_record.h"

/* Startup notices kept for brokerd to print: a recovery and a break. */
#define AUDIT_NOTICES_MAX	4
/* Space always kept allocated past the end: "\n" and a Recovery record. */
#define AUDIT_RESERVE		4096
/* How much more to allocate at a time, so fallocate is rare. */
#define AUDIT_RESERVE_AHEAD	(256 * 1024)
/* The most bytes after the last synced record that repair will read. */
#define AUDIT_TAIL_MAX		(2 * (off_t)BX_AUDIT_LINE_MAX + AUDIT_RESERVE)

/* An appender waiting for a sync that covers its record (audit_group.c). */
struct audit_waiter;

struct audit {
	pthread_mutex_t			 a_mu;
	pthread_cond_t			 a_settled_cv;	/* a sync ended */
	const struct audit_clock	*a_clock;
	const struct audit_io		*a_io;
	char				 a_dir[PATH_MAX];
	int				 a_dirfd;
	int				 a_lockfd;
	int				 a_fd;		/* the newest file, or -1 */
	char				 a_name[BX_AUDIT_FILE_MAX + 1];
	/*
	 * a_good, a_next_seq and a_head describe the records written whole;
	 * whenever every written record is settled (synced, or failed and
	 * rolled back) they are the synced ones too.
	 */
	off_t				 a_good;	/* end of the last record */
	off_t				 a_reserved;	/* allocated up to here */
	bool				 a_no_reserve;	/* fallocate unsupported */
	uint64_t			 a_next_seq;
	struct bx_hash			 a_head;	/* prev of the next record */
	bool				 a_uncertain;	/* check the tail first */
	bool				 a_broken;	/* refuse until restarted */
	/* Group commit (audit_group.c): the last good sync, and who waits. */
	off_t				 a_synced_good;
	uint64_t			 a_synced_seq;
	struct bx_hash			 a_synced_head;
	bool				 a_syncing;	/* a leader's sync is out */
	uint64_t			 a_tickets;	/* records appended */
	uint64_t			 a_settled;	/* tickets below are settled */
	struct audit_waiter		*a_waiters;
	char				 a_notices[AUDIT_NOTICES_MAX][BX_ERROR_MAX];
	size_t				 a_nnotices;
};

/*
 * Writes ev as record seq at time with prev at the end of the current file ("\n"
 * first if lead_newline), then fdatasyncs it. On success a_good, a_head
 * and a_next_seq move past it. On a failed or short write or sync,
 * a_uncertain is set and nothing else changes.
 */
int	audit_write_record(struct audit *, uint64_t seq, int64_t time,
	    const struct bx_hash *prev, const struct bx_audit_event *ev,
	    bool lead_newline, struct bx_error *err);

/*
 * The same without the fdatasync, for audit_append's group commit: the
 * record counts as written (a_good, a_head, a_next_seq move past it), and
 * its caller must not act on it before a sync covers it.
 */
int	audit_write_unsynced(struct audit *, uint64_t seq, int64_t time,
	    const struct bx_hash *prev, const struct bx_audit_event *ev,
	    struct bx_error *err);

/* Whether the current file is the one for a record at now. */
bool	audit_file_current(const struct audit *, int64_t now);
/* Starts the file for now unless the current one is right. */
int	audit_file_for(struct audit *, int64_t now, struct bx_error *err);
/* Finds out what a failed write or sync left in the file, and repairs it. */
int	audit_repair(struct audit *, struct bx_error *err);

/* The injected clock's now. */
int64_t	audit_now(const struct audit *);

/* Makes name (an existing file) the current file, at its end. */
int	audit_use_file(struct audit *, const char *name, struct bx_error *err);

void	audit_notice_add(struct audit *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
