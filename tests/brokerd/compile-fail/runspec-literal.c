/* runspec-literal.c: must not compile: no compound literal of a run_spec either. */
#include "brokerd/runner/runner.h"

const struct run_spec	*forge(void);

const struct run_spec *
forge(void)
{
	static const struct run_spec spec = { 0 };

	return &spec;
}
