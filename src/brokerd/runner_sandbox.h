/*
 * runner_sandbox.h: M3b's runtime. Every allowed read_file, write_file and
 * shell call runs in a fresh sandbox of the configured kind (podman or
 * bwrap), made for that call and removed after it:
 *
 *	1. wait for one of [runner] max_running slots (the wall time has not
 *	   started; a caller that hangs up meanwhile ends the wait);
 *	2. build the view (sandbox.h), make <home>/broker/runner/<seq>/ and
 *	   the call's cgroup with its memory and pids limits (cgroup.h);
 *	3. run the helper in the sandbox and watch it (runner_exec.h);
 *	4. shape what it said into the answer (runner_result.h);
 *	5. remove the container, the cgroup and the directory.
 *
 * Until the helper has started, a failure is RUN_UNAVAILABLE with
 * brokerd's and the runtime's words; from then on it is the tool's.
 * http_fetch's sandbox also gets its own egress proxy (runner_egress.h).
 *
 * runner_sandbox_new checks what can be checked without running anything
 * (the programs, the helper, cgroups, a limit this host cannot hold);
 * runner_sandbox_sweep removes what a crashed brokerd left (to be called
 * only once brokerd holds the audit lock); runner_sandbox_check runs one
 * no-op sandbox. Each failure's message ends in RUNNER_RUNBOOK.
 *
 * Ownership: runner_sandbox_new allocates; runner_sandbox_free frees (NULL
 * is allowed) once no call runs. The configuration's strings are copied.
 */
#ifndef BROKERD_RUNNER_SANDBOX_H
#define BROKERD_RUNNER_SANDBOX_H

#include <stddef.h>

#include "brokerd/broker.h"
#include "brokerd/config_runner.h"
#include "brokerd/runner.h"
#include "proto/error.h"

#define RUNNER_RUNBOOK	"see docs/runbook.md#runner-unavailable"
/* The helpers as `make install` puts them. */
#ifndef RUNNER_BXTOOL_INSTALLED
#define RUNNER_BXTOOL_INSTALLED	"/usr/local/libexec/boxmaker/bxtool"
#endif
#ifndef RUNNER_BXEGRESS_INSTALLED
#define RUNNER_BXEGRESS_INSTALLED "/usr/local/libexec/boxmaker/bxegress"
#endif

struct runner_sandbox_config {
	const struct config_runner	*rsc_runner;
	const char			*rsc_home;
	const char			*rsc_grants;
	const char			*rsc_config_path;	/* or NULL */
	const char			*rsc_broker_socket;
	const char			*rsc_admin_socket;
	const struct broker_log		*rsc_log;	/* NULL: silent */
};

struct runner_sandbox;

int	runner_sandbox_new(const struct runner_sandbox_config *,
	    struct runner_sandbox **ret, struct bx_error *err);
void	runner_sandbox_free(struct runner_sandbox *);

/* Removes leftover containers, cgroups and call directories of this home. */
int	runner_sandbox_sweep(struct runner_sandbox *, size_t *ret_removed,
	    struct bx_error *err);
/* Runs the no-op sandbox; its failure carries the runtime's own words. */
int	runner_sandbox_check(struct runner_sandbox *, struct bx_error *err);

/* The runtime for broker_config; lives as long as the runner_sandbox. */
const struct runtime	*runner_sandbox_runtime(struct runner_sandbox *);

/* The label of a home: the first 16 hex digits of its real path's SHA-256. */
int	runner_home_id(const char *home, char out[17], struct bx_error *err);

#endif
