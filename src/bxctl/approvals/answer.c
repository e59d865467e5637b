/*
 * answer.c: approve, approve for a while and refuse on the admin socket
 * (answer.h).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/approvals/answer.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/cli.h"
#include "bxctl/common/options.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/grants/approve_for.h"
#include "bxctl/grants/grantprune.h"

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

/* approve_for's port: admin.sock. */
static int
admin_port(void *ctx, const struct bx_msg *req, enum bx_msg_kind want,
    struct bx_msg **ret, struct bx_error *err)
{
	return admin_call(ctx, req, want, ret, err);
}

/*
 * What `grants prune` would remove, removed before a new grant is
 * written, so that approving for a while never piles up dead files. A
 * failure is said and does not stop the approval.
 */
static void
prune_first(const char *grants, int64_t now, FILE *fp)
{
	struct grantprune *gp;
	struct bx_error err;
	size_t removed;

	if (grantprune_scan(grants, now, GRANTPRUNE_KEEP_MS, &gp, &err) == -1) {
		fprintf(fp, "bxctl grants prune: %s\n", err.msg);
		return;
	}
	if (grantprune_remove(grants, gp, &err) == -1)
		fprintf(fp, "bxctl grants prune: %s\n", err.msg);
	if ((removed = grantprune_removed(gp)) > 0)
		fprintf(fp, "removed %zu grants of bxctl's that expired more "
		    "than 7 d ago (bxctl grants prune)\n", removed);
	grantprune_free(gp);
}

int
answer_approve_for(const char *admin_path, const char *config, uint64_t id,
    int64_t for_ms, FILE *fp)
{
	struct approve_port port = { admin_port, (void *)admin_path };
	struct approve_for af;
	struct approve_for_result r;
	struct bx_error err;
	char when[WHEN_LOCAL_LEN];
	char *grants;
	int status;

	memset(&af, 0, sizeof(af));
	if ((status = options_grants_dir(config, &grants)) != CLI_OK)
		return status;
	af.af_id = id;
	af.af_now = show_now();
	prune_first(grants, af.af_now, fp);
	af.af_for_ms = for_ms;
	af.af_grants = grants;
	status = approve_for(&port, &af, &r, &err);
	free(grants);
	if (status == -1)
		return cli_fail("%s", err.msg);
	if (!r.afr_kept) {
		fprintf(fp, "approved %" PRIu64 ": denied (%s); the grant %s "
		    "was removed again\n", id,
		    bx_deny_name(r.afr_outcome.reason), r.afr_grant);
		return CLI_OK;
	}
	when_local(r.afr_expires, when);
	fprintf(fp, "approved %" PRIu64 ": runs; grant %s lets the same call "
	    "through until %s%s\n", id, r.afr_grant, when,
	    r.afr_capped ? ", when the grant that asked expires" : "");
	return CLI_OK;
}
