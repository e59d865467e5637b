/*
 * fill.c: must not compile: outside policy.c no one can size a decision or
 * set its outcome, so a forged "allowed" cannot be built.
 */
#include <stdlib.h>

#include "brokerd/policy.h"

struct decision	*forge(void);

struct decision *
forge(void)
{
	struct decision *d = calloc(1, sizeof(struct decision));

	d->d_outcome.kind = BX_OUTCOME_ALLOWED;
	return d;
}
