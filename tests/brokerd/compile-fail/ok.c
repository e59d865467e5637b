/*
 * ok.c: the positive control of the compile-fail test. It uses a decision
 * the only way code outside policy.c can, through policy.h's functions and
 * a pointer, and must compile, so that the failures of the other files are
 * known to come from struct decision being opaque, not from a broken setup.
 */
#include <stddef.h>

#include "brokerd/policy.h"

int	use(const struct grants *, const struct policy_request *);

int
use(const struct grants *set, const struct policy_request *r)
{
	struct decision *d = NULL;
	struct bx_error err;
	int kind;

	if (policy_decide_grants(set, r, &d, &err) == -1)
		return -1;
	kind = (int)decision_outcome(d).kind;
	decision_free(d);
	return kind;
}
