/*
 * approvals_ends.c: the ring of how the last approvals ended
 * (approvals_ends.h). Lookups go from the newest end back, since the
 * bridge asks of what it showed a moment ago.
 */
#include <stdio.h>
#include <stdlib.h>

#include "brokerd/approvals_ends.h"

struct approvals_ends {
	struct approvals_ended	 e_ring[APPROVALS_ENDS];
	size_t			 e_count;	/* ever added */
};

struct approvals_ends *
approvals_ends_new(void)
{
	return calloc(1, sizeof(struct approvals_ends));
}

void
approvals_ends_free(struct approvals_ends *r)
{
	free(r);
}

void
approvals_ends_add(struct approvals_ends *r, uint64_t approval,
    enum approvals_answer answer, const struct approvals_from *from)
{
	struct approvals_ended *e = &r->e_ring[r->e_count % APPROVALS_ENDS];

	*e = (struct approvals_ended){ .approval = approval, .answer = answer };
	if (from != NULL && from->by != NULL && from->post != NULL) {
		snprintf(e->by, sizeof(e->by), "%s", from->by);
		snprintf(e->post, sizeof(e->post), "%s", from->post);
	}
	r->e_count++;
}

/* The slot of approval, newest first; NULL if not kept. */
static struct approvals_ended *
slot(const struct approvals_ends *r, uint64_t approval)
{
	size_t i, n = r->e_count < APPROVALS_ENDS ? r->e_count :
	    APPROVALS_ENDS;
	const struct approvals_ended *e;

	for (i = 1; i <= n; i++) {
		e = &r->e_ring[(r->e_count - i) % APPROVALS_ENDS];
		if (e->approval == approval)
			return (struct approvals_ended *)e;
	}
	return NULL;
}

void
approvals_ends_recorded(struct approvals_ends *r, uint64_t approval,
    const struct bx_outcome *outcome)
{
	struct approvals_ended *e = slot(r, approval);

	if (e == NULL)
		return;
	e->recorded = true;
	e->outcome = *outcome;
}

const struct approvals_ended *
approvals_ends_find(const struct approvals_ends *r, uint64_t approval)
{
	return slot(r, approval);
}
