/*
 * runner.h: the runner's one public header; the decision path includes no
 * other file of src/brokerd/runner/. It holds the seam (design section 7)
 * and, below it, the sandbox runtime that brokerd serve builds.
 *
 * The seam. A Runtime runs one call described by a run_spec: which tool,
 * its parsed arguments, what is mounted and where the network may go. runner.c is the only place a run_spec is
 * built: the struct is opaque, its definition lives in runner.c, and
 * everything else reads it through the getters below (a compile-fail test
 * proves no one else can declare or fill one).
 *
 * What runner_run puts in the spec, from an allowed decision:
 *
 *	read_file	the matched grant path, read-only	no egress
 *	write_file	the matched grant path, writable	no egress
 *	shell		every path of the grant, writable	no egress
 *	http_fetch	no mounts				the grant's hosts
 *
 * runner_refusing ([runner] kind = "refuse") refuses every call as
 * unavailable (RUNNER_REFUSE_MESSAGE); tests use a recording fake.
 *
 * Ownership: the spec belongs to runner_run and lives only while the
 * runtime's run is called; strings and arrays its getters return belong to
 * it (and, through it, to the decision). A runtime fills a struct run_result
 * with malloc'd text that the caller frees with run_result_clear.
 */
#ifndef BROKERD_RUNNER_H
#define BROKERD_RUNNER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/args.h"
#include "brokerd/log.h"
#include "brokerd/policy.h"
#include "brokerd/runner/config_runner.h"
#include "proto/error.h"
#include "proto/types.h"

/* A spec never holds more mounts than a grant holds paths. */
#define RUNNER_MAX_MOUNTS	GRANTS_MAX_CONSTRAINTS

/* What the refusing runtime says to every call. */
#define RUNNER_REFUSE_MESSAGE	"no tool runs: the runner kind is refuse"

struct run_spec;

/*
 * Which call a spec is for: the seq of its Decision record (names the
 * call's directory, container and cgroups) and a descriptor that reports
 * POLLHUP once loopd has closed its connection (-1: none), so a sandbox
 * whose caller went away is ended. An http_fetch whose grant names a
 * secret also has the secret's name, its header line ("Name: value\n",
 * which reaches bxtool only through a pipe) and its redactor, which
 * every byte of the result goes through; all NULL otherwise.
 */
struct bx_redactor;
struct run_call {
	uint64_t			 rc_seq;
	int				 rc_hangup_fd;
	const char			*rc_secret;
	const char			*rc_secret_header;
	const struct bx_redactor	*rc_redactor;
};

enum run_status {
	RUN_OK,			/* content, from the tool */
	RUN_FAILED,		/* the tool failed; the message may carry output */
	RUN_UNAVAILABLE,	/* the runner could not run it; brokerd's words */
	RUN_STATUS_MAX
};

struct run_result {
	enum run_status	 rr_status;
	char		*rr_text;	/* the content or the message; malloc'd */
	bool		 rr_truncated;	/* RUN_OK only */
	size_t		 rr_removed;	/* occurrences of the secret removed */
};

/*
 * A Runtime: run fills *ret (rr_text malloc'd, never NULL) and returns 0,
 * or returns -1 with err when it cannot even say why (out of memory), which
 * the caller treats as unavailable. It may be called from several threads
 * at once.
 */
struct runtime {
	int	(*run)(void *ctx, const struct run_spec *,
		    struct run_result *ret, struct bx_error *err);
	void	*ctx;
};

/* kind = "refuse": every call is RUN_UNAVAILABLE, RUNNER_REFUSE_MESSAGE. */
extern const struct runtime runner_refusing;

/*
 * Builds the spec of a decision and hands it to the runtime. Only an
 * allowed decision runs, or an ask decision the owner approved (approved
 * true: the re-decision of design section 6, which may still say ask).
 * call may be NULL (seq 0, no hang-up descriptor).
 * Fails (-1, nothing run) for any other decision, one lacking its parsed
 * arguments or grant, or when memory runs out. A runtime's own -1 becomes
 * RUN_UNAVAILABLE with its message.
 */
int	runner_run(const struct decision *, bool approved,
	    const struct run_call *, const struct runtime *,
	    struct run_result *ret, struct bx_error *err);

/* Frees rr_text and zeroes the result; NULL is allowed. */
void	run_result_clear(struct run_result *);

/* The spec, read only through these. */
enum bx_tool		 run_spec_tool(const struct run_spec *);
const struct tool_args	*run_spec_args(const struct run_spec *);
size_t			 run_spec_nmounts(const struct run_spec *);
/* Mount i, 0 <= i < run_spec_nmounts: mounted at the same path inside. */
const char		*run_spec_mount_path(const struct run_spec *, size_t i);
bool			 run_spec_mount_writable(const struct run_spec *,
			    size_t i);
uint64_t		 run_spec_seq(const struct run_spec *);
/* http_fetch with a secret: as in struct run_call; NULL otherwise. */
const char		*run_spec_secret(const struct run_spec *);
const char		*run_spec_secret_header(const struct run_spec *);
const struct bx_redactor *run_spec_redactor(const struct run_spec *);
int			 run_spec_hangup_fd(const struct run_spec *);
/* False: no network at all. True: only the host patterns returned. */
bool			 run_spec_has_egress(const struct run_spec *);
const char *const	*run_spec_egress(const struct run_spec *,
			    size_t *ret_len);

/*
 * The sandbox runtime (runner_sandbox.c), M3b's. Every allowed read_file,
 * write_file and shell call runs in a fresh sandbox of the configured kind
 * (podman or bwrap), made for that call and removed after it:
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
	/* The secrets directory beside brokerd.toml, or NULL. */
	const char			*rsc_secrets;
	const char			*rsc_broker_socket;
	const char			*rsc_admin_socket;
	const char			*rsc_bridge_socket;	/* or NULL */
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
