/*
 * policy.c: decide and redecide, and the only definition of struct
 * decision. A decision copies what it needs from the grant set (the matched
 * grant and every candidate's verdict), so it outlives the set, which is
 * read afresh for each call.
 */
#include <stdlib.h>
#include <string.h>

#include "brokerd/policy.h"
#include "proto/strlist.h"

struct decision {
	struct bx_outcome	 d_outcome;
	char			*d_tool_name;
	enum bx_tool		 d_tool;	/* BX_TOOL_MAX: no such tool */
	char			*d_arguments;
	size_t			 d_arguments_len;
	struct tool_args	*d_args;
	enum bx_class		 d_taint;
	int64_t			 d_now;
	bool			 d_state_unreadable;
	char			 d_detail[BX_ERROR_MAX];

	bool			 d_has_grant;
	char			 d_grant_id[BX_ID_MAX + 1];
	enum grant_mode		 d_grant_mode;
	enum bx_class		 d_result_class;
	bool			 d_untrusted;
	int64_t			 d_expires;
	struct bx_hash		 d_sha256;
	char			*d_matched_path;
	char			**d_paths;
	size_t			 d_npaths;
	char			**d_hosts;
	size_t			 d_nhosts;
	char			 d_secret[BX_ID_MAX + 1];	/* "": none */

	struct policy_candidate	*d_candidates;
	char			(*d_candidate_ids)[BX_ID_MAX + 1];
	size_t			 d_ncandidates;
};

static const char *verdict_names[POLICY_VERDICT_MAX] = {
	"matched", "outranked", "expired", "taint_too_high", "not_covered",
};

const char *
policy_verdict_name(enum policy_verdict v)
{
	return v < POLICY_VERDICT_MAX ? verdict_names[v] : "?";
}

void
decision_free(struct decision *d)
{
	if (d == NULL)
		return;
	free(d->d_tool_name);
	free(d->d_arguments);
	args_free(d->d_args);
	free(d->d_matched_path);
	free(d->d_paths);
	free(d->d_hosts);
	free(d->d_candidates);
	free(d->d_candidate_ids);
	free(d);
}

static void
deny(struct decision *d, enum bx_deny reason)
{
	d->d_outcome.kind = BX_OUTCOME_DENIED;
	d->d_outcome.reason = reason;
}

/* Copies the winning grant into d. */
static int
take_grant(struct decision *d, const struct grant *g, const char *path,
    struct bx_error *err)
{
	d->d_has_grant = true;
	memcpy(d->d_grant_id, g->g_id, sizeof(d->d_grant_id));
	d->d_grant_mode = g->g_mode;
	d->d_result_class = g->g_result_class;
	d->d_untrusted = g->g_untrusted;
	d->d_expires = g->g_expires;
	memcpy(d->d_secret, g->g_secret, sizeof(d->d_secret));
	/* The one grant file hashed: the bytes this decision was made on. */
	if (grant_sha256(g, &d->d_sha256, err) == -1)
		return -1;
	if (path != NULL && (d->d_matched_path = strdup(path)) == NULL)
		return bx_fail(err, "out of memory");
	if (bx_strlist_copy((const char *const *)g->g_paths, g->g_npaths,
	    &d->d_paths, err) == -1)
		return -1;
	d->d_npaths = g->g_npaths;
	if (bx_strlist_copy((const char *const *)g->g_hosts, g->g_nhosts,
	    &d->d_hosts, err) == -1)
		return -1;
	d->d_nhosts = g->g_nhosts;
	switch (g->g_mode) {
	case GRANT_MODE_AUTO:
		d->d_outcome.kind = BX_OUTCOME_ALLOWED;
		break;
	case GRANT_MODE_ASK:
		d->d_outcome.kind = BX_OUTCOME_ASK;
		break;
	default:
		deny(d, BX_DENY_DENIED_BY_GRANT);
		break;
	}
	return 0;
}

/* One candidate's three tests; the first that holds rules it out. */
static void
judge(const struct decision *d, const struct grant *g,
    struct policy_candidate *c, const char **ret_path)
{
	c->pc_mode = g->g_mode;
	c->pc_expired = d->d_now >= g->g_expires;
	c->pc_taint_high = d->d_taint > g->g_max_taint;
	c->pc_covered = args_covered(d->d_args, g->g_paths, g->g_npaths,
	    g->g_hosts, g->g_nhosts, ret_path);
	if (c->pc_expired)
		c->pc_verdict = POLICY_EXPIRED;
	else if (c->pc_taint_high)
		c->pc_verdict = POLICY_TAINT;
	else if (!c->pc_covered)
		c->pc_verdict = POLICY_CONSTRAINTS;
	else
		c->pc_verdict = POLICY_OUTRANKED;
}

/*
 * How a grant that is left ranks; the higher wins. deny over everything,
 * then an exact auto grant, then ask, then auto. An exact grant names the
 * very file a read_file reads (its matched path is the call's path) or
 * the very host an http_fetch reaches (a pattern without "*" equal to the
 * URL's host): it is the owner's answer given ahead for that one call,
 * which is what `bxctl approve --for` writes, so an ask grant over the
 * whole folder or domain must not keep asking it.
 */
static int
rank(const struct decision *d, const struct grant *g, const char *path)
{
	size_t i;

	if (g->g_mode == GRANT_MODE_DENY)
		return 4;
	if (g->g_mode == GRANT_MODE_ASK)
		return 2;
	if (d->d_tool == BX_TOOL_READ_FILE && path != NULL &&
	    strcmp(path, d->d_args->ta_path) == 0)
		return 3;
	if (d->d_tool == BX_TOOL_HTTP_FETCH)
		for (i = 0; i < g->g_nhosts; i++)
			if (strcmp(g->g_hosts[i], d->d_args->ta_host) == 0)
				return 3;
	return 1;
}

/* Matching, design section 3, steps 1 to 4. */
static int
match(struct decision *d, const struct grants *set, struct bx_error *err)
{
	const struct grant *winner = NULL, *g;
	const char *path, *winner_path = NULL;
	struct policy_candidate *c;
	bool only_expired = false, only_taint = false;
	size_t i, n = 0, w = 0;
	int r, winner_rank = 0;

	if (set->gs_len > 0) {
		d->d_candidates = calloc(set->gs_len, sizeof(*d->d_candidates));
		d->d_candidate_ids = calloc(set->gs_len,
		    sizeof(*d->d_candidate_ids));
		if (d->d_candidates == NULL || d->d_candidate_ids == NULL)
			return bx_fail(err, "out of memory");
	}
	for (i = 0; i < set->gs_len; i++) {
		g = &set->gs_grants[i];
		if (g->g_tool != d->d_tool)
			continue;
		c = &d->d_candidates[n];
		judge(d, g, c, &path);
		memcpy(d->d_candidate_ids[n], g->g_id, sizeof(g->g_id));
		c->pc_id = d->d_candidate_ids[n];
		only_expired |= c->pc_expired && !c->pc_taint_high &&
		    c->pc_covered;
		only_taint |= c->pc_taint_high && !c->pc_expired &&
		    c->pc_covered;
		/* Grants are in id order: only a higher rank displaces. */
		if (c->pc_verdict == POLICY_OUTRANKED &&
		    (r = rank(d, g, path)) > winner_rank) {
			winner = g;
			winner_rank = r;
			winner_path = path;
			w = n;
		}
		n++;
	}
	d->d_ncandidates = n;
	if (winner != NULL) {
		d->d_candidates[w].pc_verdict = POLICY_MATCHED;
		return take_grant(d, winner, winner_path, err);
	}
	if (only_expired)
		deny(d, BX_DENY_GRANT_EXPIRED);
	else if (only_taint)
		deny(d, BX_DENY_TAINT_TOO_HIGH);
	else
		deny(d, BX_DENY_NO_GRANT);
	return 0;
}

/* The checks before matching, in baseline.md section 6's order. */
static int
decide_into(struct decision *d, const struct grants *set,
    struct bx_error *err)
{
	struct bx_error aerr;

	if (!grants_valid(set)) {
		deny(d, BX_DENY_GRANTS_INVALID);
		return 0;
	}
	if (d->d_state_unreadable) {
		deny(d, BX_DENY_STATE_UNREADABLE);
		return 0;
	}
	if (bx_tool_parse(d->d_tool_name, &d->d_tool, &aerr) == -1 ||
	    args_parse(d->d_tool, d->d_arguments, d->d_arguments_len,
	    &d->d_args, &aerr) == -1) {
		memcpy(d->d_detail, aerr.msg, sizeof(d->d_detail));
		deny(d, BX_DENY_INVALID_ARGUMENTS);
		return 0;
	}
	return match(d, set, err);
}

/* A new decision holding copies of the request's values. */
static int
decision_new(const struct policy_request *r, struct decision **ret,
    struct bx_error *err)
{
	struct decision *d;

	if (r->pr_taint >= BX_CLASS_MAX)
		return bx_fail(err, "policy: the session's taint is not a "
		    "data class");
	if ((d = calloc(1, sizeof(*d))) == NULL)
		return bx_fail(err, "out of memory");
	d->d_tool = BX_TOOL_MAX;
	d->d_taint = r->pr_taint;
	d->d_now = r->pr_now;
	d->d_tool_name = strdup(r->pr_tool != NULL ? r->pr_tool : "");
	d->d_arguments = malloc(r->pr_arguments_len + 1);
	if (d->d_tool_name == NULL || d->d_arguments == NULL) {
		decision_free(d);
		return bx_fail(err, "out of memory");
	}
	if (r->pr_arguments_len > 0)
		memcpy(d->d_arguments, r->pr_arguments, r->pr_arguments_len);
	d->d_arguments[r->pr_arguments_len] = '\0';
	d->d_arguments_len = r->pr_arguments_len;
	d->d_state_unreadable = r->pr_state_unreadable;
	*ret = d;
	return 0;
}

int
policy_decide_grants(const struct grants *set, const struct policy_request *r,
    struct decision **ret, struct bx_error *err)
{
	struct decision *d = NULL;

	if (!set->gs_finished)
		return bx_fail(err, "policy: the grant set is not finished");
	if (decision_new(r, &d, err) == -1)
		return -1;
	if (decide_into(d, set, err) == -1) {
		decision_free(d);
		return -1;
	}
	*ret = d;
	return 0;
}

int
policy_decide(const char *grants_dir, const struct policy_request *r,
    struct decision **ret, struct grants **ret_grants, struct bx_error *err)
{
	struct grants *set;
	int rc;

	if (grants_load(grants_dir, &set, err) == -1)
		return -1;
	rc = policy_decide_grants(set, r, ret, err);
	if (rc == 0 && ret_grants != NULL) {
		*ret_grants = set;
		return 0;
	}
	grants_free(set);
	return rc;
}

int
policy_request_again(const struct decision *pending, enum bx_class taint,
    bool state_unreadable, int64_t now, struct policy_request *r,
    struct bx_error *err)
{
	if (pending->d_outcome.kind != BX_OUTCOME_ASK)
		return bx_fail(err, "policy: only an ask decision is decided "
		    "again");
	r->pr_tool = pending->d_tool_name;
	r->pr_arguments = pending->d_arguments;
	r->pr_arguments_len = pending->d_arguments_len;
	r->pr_taint = taint;
	r->pr_state_unreadable = state_unreadable;
	r->pr_now = now;
	return 0;
}

int
policy_redecide(const char *grants_dir, const struct decision *pending,
    enum bx_class taint, bool state_unreadable, int64_t now,
    struct decision **ret, struct grants **ret_grants, struct bx_error *err)
{
	struct policy_request r;

	if (policy_request_again(pending, taint, state_unreadable, now, &r,
	    err) == -1)
		return -1;
	return policy_decide(grants_dir, &r, ret, ret_grants, err);
}

struct bx_outcome
decision_outcome(const struct decision *d)
{
	return d->d_outcome;
}

const char *
decision_tool_name(const struct decision *d)
{
	return d->d_tool_name;
}

enum bx_tool
decision_tool(const struct decision *d)
{
	return d->d_tool;
}

const char *
decision_arguments(const struct decision *d, size_t *ret_len)
{
	if (ret_len != NULL)
		*ret_len = d->d_arguments_len;
	return d->d_arguments;
}

const struct tool_args *
decision_args(const struct decision *d)
{
	return d->d_args;
}

enum bx_class
decision_taint(const struct decision *d)
{
	return d->d_taint;
}

int64_t
decision_now(const struct decision *d)
{
	return d->d_now;
}

bool
decision_has_grant(const struct decision *d)
{
	return d->d_has_grant;
}

const char *
decision_grant_id(const struct decision *d)
{
	return d->d_has_grant ? d->d_grant_id : NULL;
}

enum grant_mode
decision_grant_mode(const struct decision *d)
{
	return d->d_grant_mode;
}

enum bx_class
decision_result_class(const struct decision *d)
{
	return d->d_result_class;
}

bool
decision_untrusted(const struct decision *d)
{
	return d->d_untrusted;
}

int64_t
decision_grant_expires(const struct decision *d)
{
	return d->d_expires;
}

const struct bx_hash *
decision_grant_sha256(const struct decision *d)
{
	return d->d_has_grant ? &d->d_sha256 : NULL;
}

const char *
decision_matched_path(const struct decision *d)
{
	return d->d_matched_path;
}

const char *const *
decision_grant_paths(const struct decision *d, size_t *ret_len)
{
	*ret_len = d->d_npaths;
	return (const char *const *)d->d_paths;
}

const char *
decision_grant_secret(const struct decision *d)
{
	return d->d_has_grant && d->d_secret[0] != '\0' ? d->d_secret : NULL;
}

const char *const *
decision_grant_hosts(const struct decision *d, size_t *ret_len)
{
	*ret_len = d->d_nhosts;
	return (const char *const *)d->d_hosts;
}

size_t
decision_ncandidates(const struct decision *d)
{
	return d->d_ncandidates;
}

const struct policy_candidate *
decision_candidate(const struct decision *d, size_t i)
{
	return i < d->d_ncandidates ? &d->d_candidates[i] : NULL;
}

const char *
decision_detail(const struct decision *d)
{
	return d->d_detail;
}
