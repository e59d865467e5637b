/*
 * audit_group.c: audit_append (audit.h) and its group commit. Appenders
 * write their lines one at a time under the writer's lock, then wait for a
 * sync that covers their own record. The first of them to find no sync in
 * flight leads one: it notes how many records are written, releases the
 * lock, fdatasyncs, and settles every record the sync covered. Records
 * written while a sync is out wait for the next one, so one fdatasync
 * covers all the calls that arrived during the one before, and independent
 * sessions do not queue behind each other's syncs.
 *
 * No append returns before a sync that began after its line was written
 * has returned 0. A failed sync fails every record written since the last
 * good one, whichever sync they were waiting for: after a failure the
 * kernel may report nothing to a later fdatasync (shared/notes/
 * audit-durability.md, rule 3), so none of them can ever be acknowledged.
 * A single such record is rolled back and recovered by the next append,
 * as before; several cannot each be described by a Recovery record, so the
 * writer stops until restarted, like after any error it cannot repair.
 *
 * Repairs and new daily files run alone, once every written record is
 * settled: nobody writes while the tail of the file is being read back or
 * the file is being changed.
 *
 * Each waiter sleeps on a condition variable of its own, woken when its
 * record is settled, or to lead the next sync: one wake-up per call, not
 * one for every waiter at every sync. a_settled_cv is only for appenders
 * waiting for the writer to drain.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "brokerd/audit_impl.h"

#define UNAVAILABLE	"see docs/runbook.md#audit-unavailable"

enum waiter_state { WAITER_PENDING, WAITER_SYNCED, WAITER_FAILED };

struct audit_waiter {
	uint64_t		 w_ticket;
	enum waiter_state	 w_state;
	struct bx_error		*w_err;		/* filled when it fails */
	pthread_cond_t		 w_cv;		/* settled, or lead a sync */
	struct audit_waiter	*w_next;
};

/* Every written record is settled and no sync is out. */
static bool
drained(const struct audit *a)
{
	return !a->a_syncing && a->a_settled == a->a_tickets;
}

/*
 * Settles the waiters below ticket end: synced, or failed with msg. The
 * caller holds the lock.
 */
static void
settle(struct audit *a, uint64_t end, const char *msg)
{
	struct audit_waiter **p = &a->a_waiters, *w;

	while ((w = *p) != NULL) {
		if (w->w_ticket >= end) {
			p = &w->w_next;
			continue;
		}
		*p = w->w_next;
		if (msg == NULL)
			w->w_state = WAITER_SYNCED;
		else {
			w->w_state = WAITER_FAILED;
			bx_fail(w->w_err, "%s", msg);
		}
		pthread_cond_signal(&w->w_cv);
	}
	a->a_settled = end;
	/* Records written during the sync need a leader for the next one. */
	if (a->a_waiters != NULL)
		pthread_cond_signal(&a->a_waiters->w_cv);
	pthread_cond_broadcast(&a->a_settled_cv);
}

/*
 * A sync failed: every record written since the last good sync fails. One
 * record goes back to being unwritten, to be recovered by the next append;
 * more than one, or one after a torn write, stops the writer, and the
 * message names the records that are in the file unacknowledged.
 */
static void
sync_failed(struct audit *a, int e)
{
	char msg[BX_ERROR_MAX];

	if (a->a_next_seq - a->a_synced_seq == 1 && !a->a_uncertain) {
		a->a_good = a->a_synced_good;
		a->a_next_seq = a->a_synced_seq;
		a->a_head = a->a_synced_head;
		a->a_uncertain = true;
		snprintf(msg, sizeof(msg), "audit: cannot sync %s/%s: %s; "
		    UNAVAILABLE, a->a_dir, a->a_name, strerror(e));
	} else {
		a->a_broken = true;
		snprintf(msg, sizeof(msg), "audit: cannot sync %s/%s: %s; "
		    "records %llu to %llu are in the file but none was "
		    "acknowledged, and the writer stops; restart brokerd to "
		    "check the log; " UNAVAILABLE, a->a_dir, a->a_name,
		    strerror(e), (unsigned long long)a->a_synced_seq,
		    (unsigned long long)(a->a_next_seq - 1));
	}
	settle(a, a->a_tickets, msg);
}

/* One sync of every record written so far, with the lock released. */
static void
lead(struct audit *a)
{
	uint64_t end = a->a_tickets, seq = a->a_next_seq;
	struct bx_hash head = a->a_head;
	off_t good = a->a_good;
	int fd = a->a_fd, rc, e;

	a->a_syncing = true;
	pthread_mutex_unlock(&a->a_mu);
	rc = a->a_io->fdatasync(a->a_io->ctx, fd);
	e = errno;
	pthread_mutex_lock(&a->a_mu);
	a->a_syncing = false;
	if (rc == -1) {
		sync_failed(a, e != 0 ? e : EIO);
		return;
	}
	a->a_synced_good = good;
	a->a_synced_seq = seq;
	a->a_synced_head = head;
	settle(a, end, NULL);
}

/*
 * Waits, with the lock, until a repair or a new file is no longer needed
 * for a record at *now, doing them itself once the writer is drained.
 */
static int
ready(struct audit *a, int64_t *now, struct bx_error *err)
{
	for (;;) {
		if (a->a_broken)
			return bx_fail(err, "audit: the writer stopped after an "
			    "error it cannot repair; restart brokerd to check "
			    "the log; " UNAVAILABLE);
		*now = audit_now(a);
		if (!a->a_uncertain && audit_file_current(a, *now))
			return 0;
		if (!drained(a))
			pthread_cond_wait(&a->a_settled_cv, &a->a_mu);
		else if (a->a_uncertain) {
			if (audit_repair(a, err) == -1)
				return -1;
		} else if (audit_file_for(a, *now, err) == -1)
			return -1;
	}
}

int
audit_append(struct audit *a, const struct bx_audit_event *ev,
    uint64_t *ret_seq, struct bx_error *err)
{
	struct audit_waiter w;
	uint64_t seq;
	int64_t now = 0;
	int rv = -1;

	if (ev->type >= BX_AUDIT_RECOVERY)
		return bx_fail(err, "audit: only the audit writer writes "
		    "Recovery and AcceptedBreak records");
	pthread_mutex_lock(&a->a_mu);
	if (ready(a, &now, err) == -1)
		goto out;
	if (drained(a)) {
		a->a_synced_good = a->a_good;
		a->a_synced_seq = a->a_next_seq;
		a->a_synced_head = a->a_head;
	}
	seq = a->a_next_seq;
	if (audit_write_unsynced(a, seq, now, &a->a_head, ev, err) == -1)
		goto out;
	w.w_ticket = a->a_tickets++;
	w.w_state = WAITER_PENDING;
	w.w_err = err;
	pthread_cond_init(&w.w_cv, NULL);
	w.w_next = a->a_waiters;
	/*
	 * w lives on this stack while it is listed: settle() unlinks it
	 * before it changes w_state, and the loop below waits for that.
	 */
	/* cppcheck-suppress autoVariables */
	a->a_waiters = &w;
	while (w.w_state == WAITER_PENDING) {
		if (!a->a_syncing)
			lead(a);
		else
			pthread_cond_wait(&w.w_cv, &a->a_mu);
	}
	pthread_cond_destroy(&w.w_cv);
	if (w.w_state == WAITER_SYNCED) {
		*ret_seq = seq;
		rv = 0;
	}
out:
	pthread_mutex_unlock(&a->a_mu);
	return rv;
}
