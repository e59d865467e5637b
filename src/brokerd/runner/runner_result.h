/*
 * runner_result.h: what a sandbox's run becomes for the model (spec of the
 * tools: M3b section 4), the same for both runtimes. The inputs are what
 * runner_exec.c saw: the helper's stdout, its status lines on stderr (the
 * first "bxtool: started", the last one of "ok", "truncated", "failed
 * MESSAGE", "exit N", "signal S"), the runtime's own words, how the run
 * ended, and whether the call's cgroup saw an OOM kill.
 *
 *	no "started"	RUN_UNAVAILABLE with the runtime's words: the sandbox
 *			never ran the helper (taint unchanged)
 *	caller gone	failed "the caller went away"
 *	timed out	failed "timed out after N s" and the output so far
 *	OOM		failed "out of memory (N MiB)"
 *	output cap	the first output_bytes, cut at a UTF-8 boundary,
 *			truncated
 *	shell		output (U+FFFD for bytes that are not UTF-8), then
 *			"exit status N" or "killed by signal S" unless 0
 *	process limit	"the process limit (N) was reached" beside the
 *			status line (after "; "), or as one: a timeout's
 *			first line, a shell's (its output cut or not), the
 *			line after a capped output, a tool without status
 *	http_fetch	a final 2xx: the body, which must be UTF-8 (failed
 *			"not UTF-8 text" otherwise); any other status:
 *			failed "HTTP <code>: " and the body's first
 *			RESULT_HTTP_BODY_MAX bytes; curl's failure: failed
 *			with the egress proxy's reason when it refused a hop
 *			or reached the byte limit, else with curl's words
 *
 * Content is cut further, truncated then too, so that its answer frame
 * fits BX_FRAME_MAX whatever its JSON escaping costs.
 *
 * Ownership: rr_text of the result is malloc'd; run_result_clear frees it.
 */
#ifndef BROKERD_RUNNER_RESULT_H
#define BROKERD_RUNNER_RESULT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/runner/runner.h"
#include "brokerd/runner/runner_exec.h"

/* What an answer frame holds besides its content, with room to spare. */
#define RESULT_FRAME_RESERVE	1024
/* The runtime's words kept in an unavailable message. */
#define RESULT_WORDS_MAX	600
/* What a failed http_fetch quotes of a body that is not a 2xx's. */
#define RESULT_HTTP_BODY_MAX	1024

struct result_input {
	enum bx_tool			 ri_tool;
	const struct exec_outcome	*ri_run;
	const char			*ri_runtime;	/* "podman", "bwrap" */
	bool				 ri_oomed;
	bool				 ri_pids_hit;	/* cgroup.h */
	int64_t				 ri_pids;	/* the limit */
	int64_t				 ri_timeout_ms;
	int64_t				 ri_start_timeout_ms;
	int64_t				 ri_memory_mb;
	size_t				 ri_output_bytes;
	/* http_fetch: "egress refused HOST:PORT: REASON" or NULL. */
	const char			*ri_egress_refusal;
	int64_t				 ri_egress_limit; /* bytes, 0: not hit */
	/* The output was cut to ri_output_bytes already (runner_redact.h). */
	bool				 ri_output_cut;
};

int	runner_result(const struct result_input *, struct run_result *ret,
	    struct bx_error *err);

/* Bytes of text as jansson escapes it in a JSON string. */
size_t	runner_json_len(const char *text, size_t len);

#endif
