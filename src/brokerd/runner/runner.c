/*
 * runner.c: the only place a run_spec is built. Its mounts and egress come
 * from the decision's matched grant and nowhere else, so what a container
 * may touch is exactly what the owner granted for this call.
 */
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner.h"

/* What a runtime's -1 becomes when it left no message. */
#define RUNNER_SILENT		"the runtime failed without saying why"

struct run_mount {
	const char	*rm_path;	/* the decision's */
	bool		 rm_writable;
};

struct run_spec {
	enum bx_tool		 rs_tool;
	const struct tool_args	*rs_args;
	struct run_mount	*rs_mounts;
	size_t			 rs_nmounts;
	bool			 rs_has_egress;
	const char *const	*rs_egress;
	size_t			 rs_negress;
	uint64_t		 rs_seq;
	int			 rs_hangup_fd;
	const char		*rs_secret;
	const char		*rs_secret_header;
	const struct bx_redactor *rs_redactor;
};

static int
refuse(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	char *text;

	(void)ctx;
	(void)spec;
	if ((text = strdup(RUNNER_REFUSE_MESSAGE)) == NULL)
		return bx_fail(err, "runner: out of memory");
	ret->rr_status = RUN_UNAVAILABLE;
	ret->rr_text = text;
	ret->rr_truncated = false;
	return 0;
}

const struct runtime runner_refusing = { refuse, NULL };

/* Fills the spec's mounts and egress by the table in runner.h. */
static int
build(const struct decision *d, struct run_spec *s, struct bx_error *err)
{
	const char *const *paths;
	const char *matched;
	size_t i, n;

	s->rs_tool = decision_tool(d);
	s->rs_args = decision_args(d);
	switch (s->rs_tool) {
	case BX_TOOL_READ_FILE:
	case BX_TOOL_WRITE_FILE:
		if ((matched = decision_matched_path(d)) == NULL)
			return bx_fail(err, "runner: %s decision without a "
			    "matched path", bx_tool_name(s->rs_tool));
		if ((s->rs_mounts = calloc(1, sizeof(*s->rs_mounts))) == NULL)
			return bx_fail(err, "runner: out of memory");
		s->rs_mounts[0].rm_path = matched;
		s->rs_mounts[0].rm_writable = s->rs_tool == BX_TOOL_WRITE_FILE;
		s->rs_nmounts = 1;
		return 0;
	case BX_TOOL_SHELL:
		paths = decision_grant_paths(d, &n);
		if (n > RUNNER_MAX_MOUNTS)
			return bx_fail(err, "runner: %zu paths, more than %d",
			    n, RUNNER_MAX_MOUNTS);
		if (n > 0 &&
		    (s->rs_mounts = calloc(n, sizeof(*s->rs_mounts))) == NULL)
			return bx_fail(err, "runner: out of memory");
		for (i = 0; i < n; i++) {
			s->rs_mounts[i].rm_path = paths[i];
			s->rs_mounts[i].rm_writable = true;
		}
		s->rs_nmounts = n;
		return 0;
	case BX_TOOL_HTTP_FETCH:
		s->rs_egress = decision_grant_hosts(d, &s->rs_negress);
		s->rs_has_egress = true;
		return 0;
	default:
		return bx_fail(err, "runner: the decision names no tool");
	}
}

int
runner_run(const struct decision *d, bool approved, const struct run_call *call,
    const struct runtime *rt, struct run_result *ret, struct bx_error *err)
{
	enum bx_outcome_kind kind = decision_outcome(d).kind;
	struct run_spec spec;
	struct run_result r;
	struct bx_error rerr;
	int rc = -1;

	memset(&spec, 0, sizeof(spec));
	memset(&r, 0, sizeof(r));
	spec.rs_seq = call != NULL ? call->rc_seq : 0;
	spec.rs_hangup_fd = call != NULL ? call->rc_hangup_fd : -1;
	/* A secret goes with its grant's http_fetch, and whole, or not at all. */
	if (call != NULL && call->rc_secret != NULL) {
		if (decision_tool(d) != BX_TOOL_HTTP_FETCH ||
		    decision_grant_secret(d) == NULL ||
		    call->rc_secret_header == NULL || call->rc_redactor == NULL)
			return bx_fail(err, "runner: a secret comes only with "
			    "its header and redactor, for its grant's "
			    "http_fetch");
		spec.rs_secret = call->rc_secret;
		spec.rs_secret_header = call->rc_secret_header;
		spec.rs_redactor = call->rc_redactor;
	} else if (decision_grant_secret(d) != NULL)
		return bx_fail(err, "runner: the grant names the secret %s, "
		    "which the call was not given", decision_grant_secret(d));
	if (!(kind == BX_OUTCOME_ALLOWED ||
	    (kind == BX_OUTCOME_ASK && approved)) ||
	    decision_args(d) == NULL || !decision_has_grant(d))
		return bx_fail(err, "runner: only an allowed or approved "
		    "decision with its arguments and grant runs");
	if (build(d, &spec, err) == -1)
		goto out;
	rerr.msg[0] = '\0';
	if (rt->run(rt->ctx, &spec, &r, &rerr) == -1) {
		/* Whatever it left in r is not an answer. */
		free(r.rr_text);
		r.rr_status = RUN_UNAVAILABLE;
		r.rr_truncated = false;
		if ((r.rr_text = strdup(rerr.msg[0] != '\0' ? rerr.msg :
		    RUNNER_SILENT)) == NULL) {
			bx_fail(err, "runner: out of memory");
			goto out;
		}
	}
	if (r.rr_text == NULL && (r.rr_text = strdup("")) == NULL) {
		bx_fail(err, "runner: out of memory");
		goto out;
	}
	if (r.rr_status >= RUN_STATUS_MAX)
		r.rr_status = RUN_UNAVAILABLE;
	if (r.rr_status != RUN_OK)
		r.rr_truncated = false;
	*ret = r;
	rc = 0;
out:
	free(spec.rs_mounts);
	return rc;
}

void
run_result_clear(struct run_result *r)
{
	if (r == NULL)
		return;
	free(r->rr_text);
	memset(r, 0, sizeof(*r));
}

enum bx_tool
run_spec_tool(const struct run_spec *s)
{
	return s->rs_tool;
}

const struct tool_args *
run_spec_args(const struct run_spec *s)
{
	return s->rs_args;
}

size_t
run_spec_nmounts(const struct run_spec *s)
{
	return s->rs_nmounts;
}

const char *
run_spec_mount_path(const struct run_spec *s, size_t i)
{
	return i < s->rs_nmounts ? s->rs_mounts[i].rm_path : NULL;
}

bool
run_spec_mount_writable(const struct run_spec *s, size_t i)
{
	return i < s->rs_nmounts && s->rs_mounts[i].rm_writable;
}

bool
run_spec_has_egress(const struct run_spec *s)
{
	return s->rs_has_egress;
}

const char *const *
run_spec_egress(const struct run_spec *s, size_t *ret_len)
{
	*ret_len = s->rs_negress;
	return s->rs_egress;
}

uint64_t
run_spec_seq(const struct run_spec *s)
{
	return s->rs_seq;
}

int
run_spec_hangup_fd(const struct run_spec *s)
{
	return s->rs_hangup_fd;
}

const char *
run_spec_secret(const struct run_spec *s)
{
	return s->rs_secret;
}

const char *
run_spec_secret_header(const struct run_spec *s)
{
	return s->rs_secret_header;
}

const struct bx_redactor *
run_spec_redactor(const struct run_spec *s)
{
	return s->rs_redactor;
}
