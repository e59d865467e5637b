/*
 * approve_for.c: an approval that leaves a grant behind (approve_for.h).
 * What the call was comes from brokerd's approval list (tool, arguments,
 * the grant that asked); the asking grant's classes and expiry from its
 * grant list, as brokerd loads the files now, which is also how the
 * approval will be re-decided.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "bxctl/grants/approve_for.h"
#include "bxctl/grants/grantwrite.h"

#define STILL_WAITS	"nothing was approved and the call still waits"

/* What the approval and its grant say, for building the new grant. */
struct asked {
	enum bx_tool		 a_tool;
	struct tool_args	*a_args;
	struct bx_grant_info	*a_grant;	/* in a_list */
	struct bx_msg		*a_approvals;
	struct bx_msg		*a_list;
};

static void
asked_free(struct asked *a)
{
	args_free(a->a_args);
	bx_msg_free(a->a_approvals);
	bx_msg_free(a->a_list);
}

void
approve_for_grant_id(enum bx_tool tool, uint64_t id, char *buf)
{
	char *p;

	/* Grant ids take no _: read_file becomes read-file. */
	snprintf(buf, BX_ID_MAX + 1, "approved-%s-%" PRIu64, bx_tool_name(tool),
	    id);
	for (p = buf; *p != '\0'; p++)
		if (*p == '_')
			*p = '-';
}

static int
ask(const struct approve_port *port, struct bx_msg *req,
    enum bx_msg_kind want, struct bx_msg **ret, struct bx_error *err)
{
	int rc;

	if (req == NULL)
		return bx_fail(err, "out of memory");
	rc = port->ap_call(port->ap_ctx, req, want, ret, err);
	bx_msg_free(req);
	return rc;
}

/* The pending approval id, from brokerd's list. */
static const struct bx_pending_approval *
find_approval(const struct bx_msg *list, uint64_t id)
{
	size_t i;

	for (i = 0; i < list->approval_list.nitems; i++)
		if (list->approval_list.items[i].approval == id)
			return &list->approval_list.items[i];
	return NULL;
}

/* The call's tool and arguments; shell is refused here. */
static int
load_call(const struct approve_for *af, const struct bx_pending_approval *pa,
    struct asked *a, struct bx_error *err)
{
	struct bx_error e;

	if (bx_tool_parse(pa->tool, &a->a_tool, &e) == -1)
		return bx_fail(err, "approval %" PRIu64 ": %s; " STILL_WAITS,
		    af->af_id, e.msg);
	if (a->a_tool == BX_TOOL_SHELL)
		return bx_fail(err, "approval %" PRIu64 " is a shell call, "
		    "and a shell grant would let every command run in that "
		    "directory, so --for is refused; " STILL_WAITS " (bxctl "
		    "approve %" PRIu64 " runs it once)", af->af_id, af->af_id);
	/*
	 * A write_file grant covers the files below its paths, never a path
	 * itself (the sandbox mounts that directory writable), so the
	 * narrowest grant would let every file in the folder be written.
	 */
	if (a->a_tool == BX_TOOL_WRITE_FILE)
		return bx_fail(err, "approval %" PRIu64 " is a write_file "
		    "call, and a write_file grant covers a whole directory, "
		    "never one file: it would let every file in that "
		    "directory be written, so --for is refused; " STILL_WAITS
		    " (bxctl approve %" PRIu64 " runs it once)", af->af_id,
		    af->af_id);
	if (args_parse(a->a_tool, pa->arguments, strlen(pa->arguments),
	    &a->a_args, &e) == -1)
		return bx_fail(err, "approval %" PRIu64 "'s arguments do not "
		    "parse: %s; " STILL_WAITS, af->af_id, e.msg);
	return 0;
}

/* The grant that asked, as brokerd loads it now. */
static int
load_grant(const struct approve_port *port, const struct approve_for *af,
    const char *id, struct asked *a, struct bx_error *err)
{
	struct bx_grant_list *l;
	size_t i;

	if (ask(port, bx_msg_new(BX_MSG_LIST_GRANTS), BX_MSG_GRANT_LIST,
	    &a->a_list, err) == -1)
		return -1;
	l = &a->a_list->grant_list;
	if (l->nproblems > 0)
		return bx_fail(err, "the grant files are invalid, so brokerd "
		    "would deny the call (bxctl grants check); " STILL_WAITS);
	for (i = 0; i < l->ngrants; i++)
		if (strcmp(l->grants[i].id, id) == 0)
			a->a_grant = &l->grants[i];
	if (a->a_grant == NULL)
		return bx_fail(err, "the grant that asked, %s, is gone; "
		    STILL_WAITS, id);
	if (a->a_grant->expires <= af->af_now)
		return bx_fail(err, "the grant that asked, %s, has expired; "
		    STILL_WAITS, id);
	return 0;
}

/* Everything approve_for needs to know before it writes. */
static int
load(const struct approve_port *port, const struct approve_for *af,
    struct asked *a, struct bx_error *err)
{
	const struct bx_pending_approval *pa;

	if (ask(port, bx_msg_new(BX_MSG_APPROVALS), BX_MSG_APPROVAL_LIST,
	    &a->a_approvals, err) == -1)
		return -1;
	if ((pa = find_approval(a->a_approvals, af->af_id)) == NULL)
		return bx_fail(err, "brokerd does not list approval %" PRIu64
		    "; it may have been answered or expired", af->af_id);
	if (load_call(af, pa, a, err) == -1)
		return -1;
	return load_grant(port, af, pa->grant, a, err);
}

/* The new grant's file, in place. */
static int
write_grant(const struct approve_for *af, const struct asked *a,
    struct approve_for_result *r, struct bx_error *err)
{
	const struct bx_grant_info *g = a->a_grant;
	const char *where;
	char note[256], *text;
	struct grant_text gt;
	size_t len;
	int rc;

	approve_for_grant_id(a->a_tool, af->af_id, r->afr_grant);
	r->afr_expires = af->af_now + af->af_for_ms;
	r->afr_capped = g->expires < r->afr_expires;
	if (r->afr_capped)
		r->afr_expires = g->expires;
	snprintf(note, sizeof(note), "Written by bxctl approve %" PRIu64
	    " --for: approval %" PRIu64 ", asked by grant %s.\n"
	    "It lets the same call through without asking until it expires.",
	    af->af_id, af->af_id, g->id);
	memset(&gt, 0, sizeof(gt));
	gt.gt_comment = note;
	gt.gt_tool = bx_tool_name(a->a_tool);
	gt.gt_mode = "auto";
	gt.gt_max_taint = bx_class_name(g->max_taint);
	gt.gt_class = bx_class_name(g->result_class);
	gt.gt_untrusted = g->untrusted;
	gt.gt_expires = r->afr_expires;
	if (a->a_tool == BX_TOOL_HTTP_FETCH) {
		where = a->a_args->ta_host;
		gt.gt_hosts = &where;
		gt.gt_nhosts = 1;
	} else {
		where = a->a_args->ta_path;
		gt.gt_paths = &where;
		gt.gt_npaths = 1;
	}
	if (grantwrite_text(&gt, &text, &len, err) == -1)
		return -1;
	rc = grantwrite_put(af->af_grants, r->afr_grant, text, len, err);
	free(text);
	if (rc == -1)
		return bx_error_prefix(err, "the grant was not written, so "
		    STILL_WAITS);
	return 0;
}

/*
 * The grant taken back after an approval that did not run the call; why
 * holds why, and err gets it with what became of the grant.
 */
static int
take_back(const struct approve_for *af, struct approve_for_result *r,
    const char *why, struct bx_error *err)
{
	struct bx_error e;

	if (grantwrite_remove(af->af_grants, r->afr_grant, &e) == -1)
		return bx_fail(err, "%s; and the grant %s could not be removed "
		    "again (%s): remove it with bxctl grants remove %s", why,
		    r->afr_grant, e.msg, r->afr_grant);
	r->afr_kept = false;
	return bx_fail(err, "%s; the grant %s was removed again", why,
	    r->afr_grant);
}

int
approve_for(const struct approve_port *port, const struct approve_for *af,
    struct approve_for_result *ret, struct bx_error *err)
{
	struct approve_for_result r;
	struct asked a;
	struct bx_msg *answer = NULL;
	struct bx_error e;
	char why[BX_ERROR_MAX];
	int rc = -1;

	memset(&a, 0, sizeof(a));
	memset(&r, 0, sizeof(r));
	if (af->af_for_ms <= 0 || af->af_for_ms > APPROVE_FOR_MAX_MS) {
		bx_fail(err, "--for must be more than nothing and at most 30 d");
		goto out;
	}
	if (load(port, af, &a, err) == -1 || write_grant(af, &a, &r, err) == -1)
		goto out;
	r.afr_kept = true;
	if (ask(port, bx_msg_approve(af->af_id), BX_MSG_APPROVE_RESULT,
	    &answer, &e) == -1) {
		take_back(af, &r, e.msg, err);
		goto out;
	}
	r.afr_outcome = answer->approve_result;
	/* A denied re-decision: the grant would outlive a call that never ran. */
	if (r.afr_outcome.kind == BX_OUTCOME_DENIED) {
		snprintf(why, sizeof(why), "approved %" PRIu64 ": denied (%s)",
		    af->af_id, bx_deny_name(r.afr_outcome.reason));
		if (take_back(af, &r, why, &e) == -1 && r.afr_kept) {
			bx_fail(err, "%s", e.msg);
			goto out;
		}
	}
	*ret = r;
	rc = 0;
out:
	bx_msg_free(answer);
	asked_free(&a);
	return rc;
}
