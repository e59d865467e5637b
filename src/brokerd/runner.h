/*
 * runner.h: the runner seam (design section 7). A Runtime runs one call
 * described by a run_spec: which tool, its parsed arguments, what is mounted
 * and where the network may go. runner.c is the only place a run_spec is
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
#include "brokerd/policy.h"
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
 * whose caller went away is ended.
 */
struct run_call {
	uint64_t	rc_seq;
	int		rc_hangup_fd;
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
int			 run_spec_hangup_fd(const struct run_spec *);
/* False: no network at all. True: only the host patterns returned. */
bool			 run_spec_has_egress(const struct run_spec *);
const char *const	*run_spec_egress(const struct run_spec *,
			    size_t *ret_len);

#endif
