/*
 * broker_run.h: an allowed (or approved) call handed to the runner, with
 * the secret its grant names (docs/design.md, "Secrets"). broker.c calls
 * it once the Decision (and Approval) records are written; it reads the
 * secret's file now, checks the URL's host is one of its hosts, and only
 * then runs the call with the secret's header and redactor. A secret that
 * cannot be used fails the call before anything is sent.
 *
 * Ownership: everything in a struct broker_run is borrowed for the call.
 */
#ifndef BROKERD_BROKER_RUN_H
#define BROKERD_BROKER_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "brokerd/log.h"
#include "brokerd/policy.h"
#include "brokerd/runner/runner.h"

struct broker_run {
	const char		*br_call;	/* the call's id, for the log */
	uint64_t		 br_seq;	/* its Decision record's */
	int			 br_hangup_fd;	/* -1: none */
	const char		*br_config_dir;	/* NULL: no secrets */
	const struct runtime	*br_runtime;
	const struct broker_log	*br_log;	/* NULL: silent */
};

/*
 * Fills *rr (rr_text malloc'd, or NULL when memory ran out): the run's
 * result, RUN_FAILED with the secret's problem, or RUN_UNAVAILABLE with
 * the runner's words.
 */
void	broker_run(const struct broker_run *, const struct decision *,
	    bool approved, struct run_result *rr);

#endif
