/*
 * approvals.h: the table of pending approvals (design section 6). In memory
 * only: after a restart there are none.
 *
 * The broker thread that owns an ask call adds an entry and waits on it. The
 * answer comes from another thread: approve or refuse from admin.sock (the
 * terminal) or bridge.sock (Mattermost, with who and in which post), expiry
 * from serve's once-a-second thread, or the broker thread itself finding its
 * loopd connection gone. The first answer takes the entry off the pending
 * list; a later one finds nothing pending. The broker thread then writes
 * the Approval record and posts the recorded outcome, which is what an
 * approve answers with.
 *
 * How each entry ended is kept for the last APPROVALS_ENDS that ended
 * (approvals_ends.h), so that approvals_changes can tell the bridge what
 * became of the approvals it showed.
 *
 * approvals_new allocates the table and approvals_free frees it (NULL is
 * allowed); entries are allocated by approvals_add and freed by the table
 * once both the broker thread (approvals_finish) and any admin thread waiting
 * on them are done. Every function is safe to call from several threads.
 */
#ifndef BROKERD_APPROVALS_H
#define BROKERD_APPROVALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/types.h"

/* At most this many calls wait for approval at once (one per connection). */
#define APPROVALS_MAX		1024
/* How often a waiting call checks that its loopd connection is still open. */
#define APPROVALS_WATCH_MS	100

enum approvals_answer {
	APPROVALS_PENDING,
	APPROVALS_APPROVED,
	APPROVALS_REFUSED,
	APPROVALS_EXPIRED,
	APPROVALS_ABANDONED,	/* the loopd connection closed, or brokerd stops */
	APPROVALS_FORGOTTEN,	/* approvals_changes: ended, no longer known */
	APPROVALS_MAX_ANSWER
};

/*
 * Who answered and what they said, borrowed from the answering thread
 * (which waits until the record is written). by and post are both NULL for
 * the terminal, both Mattermost ids for an answer from the bridge.
 */
struct approvals_from {
	const char	*reason;	/* a refusal's text, or NULL */
	const char	*by;		/* the Mattermost user, or NULL */
	const char	*post;		/* the Mattermost post, or NULL */
};

/* How one approval ended, as approvals_changes reports it. */
struct approvals_ended {
	uint64_t		 approval;
	enum approvals_answer	 answer;
	char			 by[BX_MATTERMOST_ID_LEN + 1];	/* "": none */
	char			 post[BX_MATTERMOST_ID_LEN + 1];
	bool			 recorded;	/* outcome is the record's */
	struct bx_outcome	 outcome;
};

/* What approvals_changes found: the pending entries, and those ended. */
struct approvals_changes {
	struct approvals_item	*items;		/* as approvals_list */
	size_t			 nitems;
	struct approvals_ended	*ended;
	size_t			 nended;
};

/* One pending approval as approvals {} lists it (PendingApproval). */
struct approvals_item {
	uint64_t	 approval;	/* seq of the call's Decision record */
	char		 session[BX_ID_MAX + 1];
	char		 call[BX_ID_MAX + 1];
	enum bx_tool	 tool;
	char		*arguments;	/* owned by the item */
	char		 grant[BX_ID_MAX + 1];
	enum bx_class	 taint;
	int64_t		 created;	/* ms since the epoch */
	int64_t		 expires;
};

struct approvals;
struct approval;

struct approvals	*approvals_new(void);
void			 approvals_free(struct approvals *);

/*
 * The expiry of a new approval: now + ttl_ms, or the grant's expires if that
 * is earlier.
 */
int64_t	approvals_expiry(int64_t now_ms, int64_t ttl_ms, int64_t grant_expires);

/*
 * Adds a pending entry, copying item. Fails if the approval id is already
 * pending, APPROVALS_MAX are, or brokerd is stopping.
 */
struct approval	*approvals_add(struct approvals *, const struct approvals_item *,
		    struct bx_error *);

/*
 * Waits until the entry is answered. While it is pending, gone(ctx) is asked
 * every APPROVALS_WATCH_MS (gone may be NULL); when it says true the entry is
 * removed and the answer is APPROVALS_ABANDONED. *ret_from is who answered
 * and their refusal text (all NULL but for an approve or refuse), valid
 * until approvals_finish.
 */
enum approvals_answer	approvals_wait(struct approvals *, struct approval *,
			    bool (*gone)(void *), void *ctx,
			    struct approvals_from *ret_from);

/*
 * The broker thread is done with the entry: outcome is what it recorded for
 * the answer (an approve's re-decision), handed to the admin thread that
 * answered. The entry must not be used afterwards.
 */
void	approvals_finish(struct approvals *, struct approval *,
	    const struct bx_outcome *outcome);

/*
 * Answers a pending approval with APPROVALS_APPROVED or APPROVALS_REFUSED
 * (from: who, and the refusal text; NULL: the terminal, no text; the caller
 * keeps what it points to until this returns) and waits until the broker
 * thread has recorded it; *ret is the outcome it recorded. Fails if no
 * entry with that id is pending: unknown, or answered already, from
 * wherever: the first answer wins.
 */
int	approvals_answer(struct approvals *, uint64_t approval,
	    enum approvals_answer, const struct approvals_from *from,
	    struct bx_outcome *ret, struct bx_error *);

/* Marks every entry whose expires <= now_ms as expired; returns how many. */
size_t	approvals_expire(struct approvals *, int64_t now_ms);

/*
 * Marks every pending entry abandoned, so that brokerd can stop; from then
 * on approvals_add fails.
 */
void	approvals_abandon_all(struct approvals *);

/*
 * Copies the pending entries, oldest first, into a new array *ret of *ret_n
 * items (NULL when none); approvals_items_free frees it.
 */
int	approvals_list(struct approvals *, struct approvals_item **ret,
	    size_t *ret_n, struct bx_error *);
void	approvals_items_free(struct approvals_item *, size_t);

/* How many entries are pending. */
size_t	approvals_pending(struct approvals *);

/*
 * Waits at most timeout_ms until the pending approvals are no longer
 * exactly the nknown ids of known (duplicates count once): one was added,
 * or one of known ended and its record is written (or it was abandoned,
 * or is forgotten). Returns at once if they already differ, and when
 * brokerd stops. Fills *ret with the pending entries and, for each id of
 * known no longer pending, how it ended: APPROVALS_FORGOTTEN when the
 * table no longer knows it (brokerd restarted, or APPROVALS_ENDS ended
 * since), not recorded while its record is still being written. The
 * caller frees *ret with approvals_changes_clear.
 */
int	approvals_changes(struct approvals *, const uint64_t *known,
	    size_t nknown, int timeout_ms, struct approvals_changes *ret,
	    struct bx_error *);
void	approvals_changes_clear(struct approvals_changes *);

#endif
