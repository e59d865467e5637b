/*
 * runspec-ok.c: the positive control of the run_spec compile-fail test. A
 * runtime reads a spec the only way code outside runner.c can, through
 * runner.h's getters and a pointer, and must compile, so that the failures
 * of the other runspec-*.c files are known to come from struct run_spec
 * being opaque, not from a broken setup.
 */
#include <stddef.h>

#include "brokerd/runner/runner.h"

int	look(void *, const struct run_spec *, struct run_result *,
	    struct bx_error *);

int
look(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	size_t n;

	(void)ctx;
	(void)ret;
	(void)run_spec_egress(spec, &n);
	if (run_spec_nmounts(spec) > 0 && run_spec_mount_writable(spec, 0))
		return bx_fail(err, "%s", run_spec_mount_path(spec, 0));
	return run_spec_has_egress(spec) ? (int)run_spec_tool(spec) : 0;
}
