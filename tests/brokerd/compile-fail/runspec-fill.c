/*
 * runspec-fill.c: must not compile: outside runner.c no one can size a
 * run_spec or set its mounts or egress, so a runtime can never be handed a
 * spec wider than the matched grant.
 */
#include <stdlib.h>

#include "brokerd/runner/runner.h"

struct run_spec	*forge(void);

struct run_spec *
forge(void)
{
	struct run_spec *spec = calloc(1, sizeof(struct run_spec));

	spec->rs_has_egress = true;
	return spec;
}
