/*
 * answer.c: approve and refuse on the admin socket (answer.h).
 */
#include <inttypes.h>
#include <stdio.h>

#include "bxctl/admin.h"
#include "bxctl/answer.h"
#include "bxctl/cli.h"

int
answer_approve(const char *admin_path, uint64_t id, FILE *fp)
{
	struct bx_msg *req, *answer;
	struct bx_outcome *o;
	struct bx_error err;
	int r;

	if ((req = bx_msg_approve(id)) == NULL)
		return cli_fail("out of memory");
	r = admin_call(admin_path, req, BX_MSG_APPROVE_RESULT, &answer, &err);
	bx_msg_free(req);
	if (r == -1)
		return cli_fail("%s", err.msg);
	/* The re-decision: ask and allowed both let the call run. */
	o = &answer->approve_result;
	if (o->kind == BX_OUTCOME_DENIED)
		fprintf(fp, "approved %" PRIu64 ": denied (%s)\n", id,
		    bx_deny_name(o->reason));
	else
		fprintf(fp, "approved %" PRIu64 ": runs\n", id);
	bx_msg_free(answer);
	return CLI_OK;
}

int
answer_refuse(const char *admin_path, uint64_t id, const char *reason,
    FILE *fp)
{
	struct bx_msg *req, *answer;
	struct bx_error err;
	int r;

	if ((req = bx_msg_refuse(id, reason)) == NULL)
		return cli_fail("out of memory");
	r = admin_call(admin_path, req, BX_MSG_OK, &answer, &err);
	bx_msg_free(req);
	if (r == -1)
		return cli_fail("%s", err.msg);
	fprintf(fp, "refused %" PRIu64 "\n", id);
	bx_msg_free(answer);
	return CLI_OK;
}
