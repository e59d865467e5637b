/* declare.c: must not compile: a decision cannot be declared by value. */
#include "brokerd/policy.h"

int	build(void);

int
build(void)
{
	struct decision d;

	(void)d;
	return 0;
}
