/* literal.c: must not compile: no compound literal of a decision either. */
#include "brokerd/policy.h"

const struct decision	*forge(void);

const struct decision *
forge(void)
{
	static const struct decision d = { 0 };

	return &d;
}
