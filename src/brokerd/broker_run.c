/*
 * broker_run.c: a call through the runner, its secret opened first
 * (broker_run.h).
 */
#include <stdlib.h>
#include <string.h>

#include "brokerd/broker_run.h"
#include "brokerd/secret_call.h"

/*
 * The secret of the decision's grant, read now. 0 with *ret (NULL when the
 * grant names none), or -1 with *rr the call's failure.
 */
static int
open_secret(const struct broker_run *br, const struct decision *d,
    struct secret_call **ret, struct run_result *rr)
{
	const char *name = decision_grant_secret(d);
	const struct tool_args *a = decision_args(d);
	struct bx_error why;

	*ret = NULL;
	if (name == NULL)
		return 0;
	if (a == NULL || a->ta_host == NULL)
		bx_fail(&why, "the secret %s cannot be used: the call has no "
		    "host; " SECRET_CALL_RUNBOOK, name);
	else if (secret_call_open(br->br_config_dir, name, a->ta_host, ret,
	    &why) == 0)
		return 0;
	log_say(br->br_log, "call %s: %s", br->br_call, why.msg);
	rr->rr_status = RUN_FAILED;
	rr->rr_text = strdup(why.msg);
	rr->rr_truncated = false;
	return -1;
}

void
broker_run(const struct broker_run *br, const struct decision *d,
    bool approved, struct run_result *rr)
{
	struct secret_call *sc = NULL;
	struct run_call call;
	struct bx_error rerr;

	memset(rr, 0, sizeof(*rr));
	if (open_secret(br, d, &sc, rr) == -1)
		return;
	memset(&call, 0, sizeof(call));
	call.rc_seq = br->br_seq;
	call.rc_hangup_fd = br->br_hangup_fd;
	if (sc != NULL) {
		call.rc_secret = secret_call_name(sc);
		call.rc_secret_header = secret_call_header(sc);
		call.rc_redactor = secret_call_redactor(sc);
	}
	/* A runner that cannot say why is unavailable: still a Result record. */
	if (runner_run(d, approved, &call, br->br_runtime, rr, &rerr) == -1) {
		log_say(br->br_log, "runner: %s", rerr.msg);
		rr->rr_status = RUN_UNAVAILABLE;
		rr->rr_text = strdup(rerr.msg);
		rr->rr_truncated = false;
	}
	/* Only a secret's redaction removes; without one there is no name. */
	if (sc != NULL && rr->rr_removed > 0)
		log_say(br->br_log, "call %s: %zu occurrence%s of the secret %s "
		    "removed from the result", br->br_call, rr->rr_removed,
		    rr->rr_removed == 1 ? "" : "s",
		    secret_call_name(sc));
	secret_call_free(sc);
}
