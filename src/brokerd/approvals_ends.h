/*
 * approvals_ends.h: how the last APPROVALS_ENDS approvals ended, for
 * approvals.c alone (approvals.h says why it keeps them). A ring: the
 * oldest end is overwritten by the newest, and an id not found is
 * forgotten.
 *
 * Not thread-safe by itself: approvals.c calls it under its table lock.
 * approvals_ends_new allocates the ring and approvals_ends_free frees it
 * (NULL is allowed).
 */
#ifndef BROKERD_APPROVALS_ENDS_H
#define BROKERD_APPROVALS_ENDS_H

#include "brokerd/approvals.h"

/* As many as can be pending, so that a whole table's ends fit. */
#define APPROVALS_ENDS		APPROVALS_MAX

struct approvals_ends;

struct approvals_ends	*approvals_ends_new(void);
void			 approvals_ends_free(struct approvals_ends *);

/*
 * Keeps that approval ended with answer, from who answered (from may be
 * NULL, as may its by and post); not recorded yet.
 */
void	approvals_ends_add(struct approvals_ends *, uint64_t approval,
	    enum approvals_answer, const struct approvals_from *from);

/* The approval's record is written, with outcome; unknown ids are ignored. */
void	approvals_ends_recorded(struct approvals_ends *, uint64_t approval,
	    const struct bx_outcome *outcome);

/* How approval ended, or NULL when it is not kept (forgotten). */
const struct approvals_ended *approvals_ends_find(
	    const struct approvals_ends *, uint64_t approval);

#endif
