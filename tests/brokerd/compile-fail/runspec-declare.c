/* runspec-declare.c: must not compile: a run_spec cannot be declared by value. */
#include "brokerd/runner/runner.h"

int	build(const struct runtime *);

int
build(const struct runtime *rt)
{
	struct run_spec spec;
	struct run_result r;

	return rt->run(rt->ctx, &spec, &r, NULL);
}
