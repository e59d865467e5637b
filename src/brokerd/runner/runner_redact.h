/*
 * runner_redact.h: the result of an http_fetch that sent a secret, with
 * every echo of the secret taken out (docs/design.md, "Secrets";
 * proto/redact.h says what is found). It runs in brokerd, outside the
 * sandbox that handled the server's bytes, on all the sandbox said:
 *
 *	1. the body (bxtool's stdout, which bxtool cut at the output limit
 *	   plus SANDBOX_FETCH_LOOKAHEAD) is redacted, then cut to the output
 *	   limit, before runner_result.c shapes it;
 *	2. the text runner_result.c made of it (with the status, curl's
 *	   error line, a redirect's target) is redacted again, which finds
 *	   what the shaping brought together or cut, and the model is told
 *	   how many occurrences were removed, on a line of its own at the end.
 *
 * So the Result record's bytes and sha256, taken of rr_text, are of what
 * the model receives.
 *
 * Ownership: redact_output replaces o->eo_out with a malloc'd buffer (the
 * old one freed); redact_result replaces r->rr_text the same way.
 */
#ifndef BROKERD_RUNNER_REDACT_H
#define BROKERD_RUNNER_REDACT_H

#include <stdbool.h>
#include <stddef.h>

#include "brokerd/runner/runner.h"
#include "brokerd/runner/runner_exec.h"
#include "proto/redact.h"

/*
 * Step 1: o's stdout redacted and cut to limit; *ret_cut true when
 * anything was cut, *ret_removed the occurrences removed. -1 with err when
 * it cannot be redacted (then none of it may be shown).
 */
int	redact_output(const struct bx_redactor *, size_t limit,
	    struct exec_outcome *o, bool *ret_cut, size_t *ret_removed,
	    struct bx_error *err);

/*
 * Step 2: r's text redacted (never made longer), removed added to what it
 * removes, and when any were, the line "[N occurrences of the secret NAME
 * were removed]" appended; rr_removed set. -1 with err when it cannot be.
 */
int	redact_result(const struct bx_redactor *, const char *name,
	    size_t removed, struct run_result *r, struct bx_error *err);

#endif
