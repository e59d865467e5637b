/*
 * admin_explain.c: explain on admin.sock (admin_console.h), the decision
 * brokerd would make now for one call of one session: its real taint
 * (the state file read as a call reads it) and the grant files as they
 * are, decided by policy.c, and each candidate's reasoning in the words
 * of `brokerd explain` (explain.c), which both print. Nothing is written.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/admin_console.h"
#include "brokerd/explain.h"
#include "brokerd/policy.h"

/* brokerd explain's words for candidate i, as a new string. */
static char *
why(const struct decision *d, size_t i, const struct grants *set)
{
	const struct policy_candidate *c = decision_candidate(d, i);
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	if ((fp = open_memstream(&text, &len)) == NULL)
		return NULL;
	explain_why(fp, d, c, explain_find_grant(set, c->pc_id));
	if (fclose(fp) == EOF) {
		free(text);
		return NULL;
	}
	return text;
}

static int
add_candidates(struct bx_msg *m, const struct decision *d,
    const struct grants *set)
{
	const struct policy_candidate *c;
	struct bx_candidate cand;
	char *words;
	size_t i;
	int rc;

	for (i = 0; i < decision_ncandidates(d); i++) {
		c = decision_candidate(d, i);
		if ((words = why(d, i, set)) == NULL)
			return -1;
		cand = (struct bx_candidate){ (char *)c->pc_id,
		    (char *)grant_mode_name(c->pc_mode),
		    (char *)policy_verdict_name(c->pc_verdict), words };
		rc = bx_msg_add_candidate(m, &cand);
		free(words);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/* The explanation's fixed fields, from the decision. */
static int
fill(struct bx_msg *m, const char *session, const struct state_value *st,
    const struct decision *d)
{
	struct bx_explanation x = { 0 };

	x.session = (char *)session;
	x.taint = st->taint;
	x.untrusted = st->untrusted;
	x.now = decision_now(d);
	x.outcome = decision_outcome(d);
	x.detail = decision_detail(d)[0] != '\0' ?
	    (char *)decision_detail(d) : NULL;
	if ((x.has_grant = decision_has_grant(d))) {
		x.grant.id = (char *)decision_grant_id(d);
		x.grant.mode = (char *)grant_mode_name(decision_grant_mode(d));
		x.grant.result_class = decision_result_class(d);
		x.grant.untrusted = decision_untrusted(d);
		x.grant.matched_path = (char *)decision_matched_path(d);
	}
	return bx_msg_set_explanation(m, &x);
}

struct bx_msg *
admin_explain(struct broker *b, const struct bx_explain *req,
    struct bx_error *err)
{
	const struct broker_config *cfg = broker_config(b);
	struct state_value st = { BX_CLASS_PRIVATE, false };
	struct policy_request r;
	struct decision *d = NULL;
	struct grants *set = NULL;
	struct bx_msg *m = NULL;

	r.pr_tool = req->tool;
	r.pr_arguments = req->arguments;
	r.pr_arguments_len = strlen(req->arguments);
	r.pr_state_unreadable = state_read(cfg->state, req->session, &st,
	    NULL) == -1;
	r.pr_taint = st.taint;
	r.pr_now = broker_now(b);
	if (policy_decide(cfg->grants_dir, &r, &d, &set, err) == -1)
		return NULL;
	if ((m = bx_msg_new(BX_MSG_EXPLANATION)) == NULL ||
	    fill(m, req->session, &st, d) == -1 ||
	    add_candidates(m, d, set) == -1 || admin_add_problems(m, set) == -1) {
		bx_msg_free(m);
		m = NULL;
		bx_fail(err, "admin: out of memory");
	}
	decision_free(d);
	grants_free(set);
	return m;
}
