/*
 * runner_sandbox.c: M3b's runtime, one fresh sandbox per call
 * (runner.h). This file holds what both backends share: the
 * host's facts gathered once at startup, the max_running slots, the call's
 * directory and cgroup, and the removal of everything a call made, whether
 * it ended well or not.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/runner_egress.h"
#include "brokerd/runner/runner_impl.h"
#include "brokerd/runner/runner_redact.h"
#include "brokerd/runner/runner_result.h"
#include "brokerd/runner/runner.h"

/* The seq of the start-up check's sandbox: no Decision record has it. */
#define RUNNER_CHECK_SEQ	UINT64_MAX

static int	run(void *, const struct run_spec *, struct run_result *,
		    struct bx_error *);

int
runner_sandbox_new(const struct runner_sandbox_config *c,
    struct runner_sandbox **ret, struct bx_error *err)
{
	struct runner_sandbox *rs;
	struct sandbox_host *h;

	if (c->rsc_runner->cr_kind == RUNNER_REFUSE)
		return bx_fail(err, "runner: kind \"refuse\" runs no sandbox");
	if ((rs = calloc(1, sizeof(*rs))) == NULL)
		return bx_fail(err, "runner: out of memory");
	rs->rs_cfg = *c->rsc_runner;
	rs->rs_log = c->rsc_log;
	slots_init(&rs->rs_slots, rs->rs_cfg.cr_max_running);
	if (runner_setup(rs, c, err) == -1) {
		bx_error_prefix(err, "%s", config_runner_kind_name(
		    rs->rs_cfg.cr_kind));
		runner_sandbox_free(rs);
		return -1;
	}
	h = &rs->rs_host;
	h->sh_runner_dir = rs->rs_runner_dir;
	h->sh_usr = rs->rs_usr;
	h->sh_bxtool = rs->rs_bxtool;
	h->sh_tmp_bytes = rs->rs_cfg.cr_memory_mb * 1024 * 1024;
	h->sh_output_bytes = (size_t)rs->rs_cfg.cr_output_bytes;
	h->sh_nlinks = sandbox_usr_links(rs->rs_usr, h->sh_links);
	rs->rs_backend.bs_program = rs->rs_program;
	rs->rs_backend.bs_podman_runtime = rs->rs_cfg.cr_podman_runtime;
	rs->rs_backend.bs_home_id = rs->rs_home_id;
	rs->rs_backend.bs_pids = rs->rs_cfg.cr_pids;
	rs->rs_backend.bs_timeout_ms = rs->rs_cfg.cr_timeout_ms;
	rs->rs_runtime.run = run;
	rs->rs_runtime.ctx = rs;
	*ret = rs;
	return 0;
}

void
runner_sandbox_free(struct runner_sandbox *rs)
{
	size_t i;

	if (rs == NULL)
		return;
	for (i = 0; i < SANDBOX_MAX_PROTECTED; i++)
		free(rs->rs_protected[i]);
	for (i = 0; i < SANDBOX_MAX_ROOT_ENTRIES; i++)
		free(rs->rs_entries[i]);
	free(rs->rs_seccomp);
	runner_release(rs);
	cgroup_host_free(rs->rs_cgroups);
	slots_destroy(&rs->rs_slots);
	free(rs);
}

const struct runtime *
runner_sandbox_runtime(struct runner_sandbox *rs)
{
	return &rs->rs_runtime;
}

int
runner_sandbox_sweep(struct runner_sandbox *rs, size_t *ret_removed,
    struct bx_error *err)
{
	size_t containers = 0, cgroups = 0, dirs = 0;

	if (rs->rs_cfg.cr_kind == RUNNER_PODMAN &&
	    podman_sweep(&rs->rs_backend, &containers, err) == -1)
		return bx_error_prefix(err, "runner: sweep");
	if (cgroup_sweep(rs->rs_cgroups, &cgroups, err) == -1 ||
	    sandbox_dir_sweep(rs->rs_runner_dir, &dirs, err) == -1)
		return bx_error_prefix(err, "runner: sweep");
	*ret_removed = containers + cgroups + dirs;
	return 0;
}

static int
unavailable(struct run_result *ret, const char *msg, struct bx_error *err)
{
	if ((ret->rr_text = strdup(msg)) == NULL)
		return bx_fail(err, "runner: out of memory");
	ret->rr_status = RUN_UNAVAILABLE;
	ret->rr_truncated = false;
	return 0;
}

/* A secret call's result that cannot be redacted: failed, none of it shown. */
static int
withheld(struct run_result *ret, const struct bx_error *why,
    struct bx_error *err)
{
	if (asprintf(&ret->rr_text, "the result was withheld: %s",
	    why->msg) == -1)
		return bx_fail(err, "runner: out of memory");
	ret->rr_status = RUN_FAILED;
	ret->rr_truncated = false;
	return 0;
}

/* Removes what the call made; what cannot be removed is said, once. */
static void
remove_call(struct runner_sandbox *rs, const struct sandbox_view *v,
    struct cgroup_call *cg, bool abnormal)
{
	struct bx_error err;

	if (abnormal && rs->rs_cfg.cr_kind == RUNNER_PODMAN)
		podman_cleanup(&rs->rs_backend, v->v_seq);
	if (cgroup_call_remove(cg, &err) == -1)
		log_say(rs->rs_log, "runner: call %" PRIu64 ": %s; %s",
		    v->v_seq, err.msg, RUNNER_RUNBOOK);
	if (sandbox_dir_remove(v->v_calldir, &err) == -1)
		log_say(rs->rs_log, "runner: call %" PRIu64 ": %s; %s",
		    v->v_seq, err.msg, RUNNER_RUNBOOK);
	if (rs->rs_cfg.cr_kind == RUNNER_BWRAP)
		(void)exec_reap_orphans();
}

/* What this runner's egress proxies are started with. */
static void
egress_params(const struct runner_sandbox *rs, struct egress_params *p)
{
	memset(p, 0, sizeof(*p));
	p->ep_bxegress = rs->rs_bxegress;
	p->ep_seccomp_file = rs->rs_seccomp_file;
	p->ep_ca_file = rs->rs_cfg.cr_ca_file;
	p->ep_connect_timeout_ms = rs->rs_cfg.cr_connect_timeout_ms;
	p->ep_idle_timeout_ms = rs->rs_cfg.cr_timeout_ms;
	p->ep_max_bytes = rs->rs_cfg.cr_max_bytes;
	p->ep_allow = rs->rs_cfg.cr_allow_text;
	p->ep_nallow = rs->rs_cfg.cr_nallow;
	p->ep_log = rs->rs_log;
}

/* http_fetch's proxy, for a spec with egress; *ret stays NULL otherwise. */
static int
start_egress(const struct runner_sandbox *rs, const struct sandbox_view *v,
    const struct run_spec *spec, struct egress_call **ret,
    struct bx_error *err)
{
	struct egress_params p;
	const char *const *hosts;
	size_t nhosts;

	*ret = NULL;
	if (spec == NULL || !run_spec_has_egress(spec))
		return 0;
	hosts = run_spec_egress(spec, &nhosts);
	egress_params(rs, &p);
	return egress_start(&p, v, hosts, nhosts, ret, err);
}

/*
 * The run into a result, with what the proxy reported, if there was one;
 * with a secret, through its redaction (runner_redact.h), whose failure
 * withholds all the sandbox said.
 */
static int
shape(struct runner_sandbox *rs, struct sandbox_call *call,
    const struct run_spec *spec, enum bx_tool tool, struct exec_outcome *o,
    struct egress_call *eg, struct run_result *ret, struct bx_error *err)
{
	const struct bx_redactor *rd = spec != NULL ? run_spec_redactor(spec) :
	    NULL;
	struct egress_report er;
	struct result_input in;
	struct bx_error why;
	size_t removed = 0;
	int rc;

	memset(&er, 0, sizeof(er));
	if (eg != NULL)
		egress_finish(eg, &er);
	if (er.er_broken) {
		free(er.er_refusal);
		return unavailable(ret, "the egress proxy ended on its own; "
		    EGRESS_RUNBOOK, err);
	}
	memset(&in, 0, sizeof(in));
	in.ri_tool = tool;
	in.ri_run = o;
	in.ri_runtime = config_runner_kind_name(rs->rs_cfg.cr_kind);
	in.ri_oomed = cgroup_call_oomed(call->sc_cgroup);
	in.ri_pids_hit = cgroup_call_pids_hit(call->sc_cgroup);
	in.ri_pids = rs->rs_cfg.cr_pids;
	in.ri_timeout_ms = rs->rs_cfg.cr_timeout_ms;
	in.ri_start_timeout_ms = rs->rs_cfg.cr_start_timeout_ms;
	in.ri_memory_mb = rs->rs_cfg.cr_memory_mb;
	in.ri_output_bytes = (size_t)rs->rs_cfg.cr_output_bytes;
	in.ri_egress_refusal = er.er_refusal;
	in.ri_egress_limit = er.er_limit;
	if (rd != NULL && redact_output(rd, in.ri_output_bytes, o,
	    &in.ri_output_cut, &removed, &why) == -1) {
		free(er.er_refusal);
		return withheld(ret, &why, err);
	}
	rc = runner_result(&in, ret, err);
	free(er.er_refusal);
	if (rc == 0 && rd != NULL && redact_result(rd, run_spec_secret(spec),
	    removed, ret, &why) == -1) {
		run_result_clear(ret);
		return withheld(ret, &why, err);
	}
	return rc;
}

/* One view through its backend into a result; the slot is held. */
static int
run_view(struct runner_sandbox *rs, const struct sandbox_view *v,
    const struct run_spec *spec, enum bx_tool tool, int hangup_fd,
    struct run_result *ret, struct bx_error *err)
{
	struct egress_call *eg = NULL;
	struct sandbox_call call;
	struct exec_limits lim;
	struct exec_outcome o;
	struct bx_error why;
	int rc;

	memset(&call, 0, sizeof(call));
	memset(&lim, 0, sizeof(lim));
	lim.el_timeout_ms = rs->rs_cfg.cr_timeout_ms;
	lim.el_start_timeout_ms = rs->rs_cfg.cr_start_timeout_ms;
	lim.el_output_bytes = (size_t)rs->rs_cfg.cr_output_bytes;
	/* bxtool passes on more with a secret: it is redacted, then cut. */
	if (spec != NULL && run_spec_secret(spec) != NULL)
		lim.el_output_bytes += SANDBOX_FETCH_LOOKAHEAD;
	lim.el_hangup_fd = hangup_fd;
	lim.el_stdin = v->v_stdin;
	lim.el_stdin_len = v->v_stdin_len;
	call.sc_view = v;
	call.sc_limits = &lim;
	if (sandbox_dir_prepare(v, rs->rs_cfg.cr_kind == RUNNER_PODMAN,
	    &why) == -1)
		return unavailable(ret, why.msg, err);
	if (cgroup_call_new(rs->rs_cgroups, v->v_seq,
	    rs->rs_cfg.cr_memory_mb * 1024 * 1024, rs->rs_cfg.cr_pids,
	    &call.sc_cgroup, &why) == -1) {
		sandbox_dir_remove(v->v_calldir, err);
		return unavailable(ret, why.msg, err);
	}
	if (start_egress(rs, v, spec, &eg, &why) == -1)
		rc = -1;
	else
		rc = rs->rs_cfg.cr_kind == RUNNER_PODMAN ?
		    podman_run(&rs->rs_backend, &call, &o, &why) :
		    bwrap_run(&rs->rs_backend, &call, &o, &why);
	if (rc == 0) {
		rc = shape(rs, &call, spec, tool, &o, eg, ret, err);
		call.sc_abnormal |= ret->rr_status == RUN_UNAVAILABLE;
		exec_outcome_clear(&o);
	} else
		rc = unavailable(ret, why.msg, err);
	egress_free(eg);
	remove_call(rs, v, call.sc_cgroup, call.sc_abnormal);
	return rc;
}

static int
run(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	struct runner_sandbox *rs = ctx;
	struct sandbox_view *v = NULL;
	struct bx_error why;
	int hangup_fd = run_spec_hangup_fd(spec), rc;

	if (sandbox_view_build(&rs->rs_host, spec, run_spec_seq(spec), &v,
	    &why) == -1)
		return unavailable(ret, why.msg, err);
	if (!slots_take(&rs->rs_slots, hangup_fd)) {
		sandbox_view_free(v);
		return unavailable(ret, "the caller went away", err);
	}
	rc = run_view(rs, v, spec, run_spec_tool(spec), hangup_fd, ret, err);
	slots_give(&rs->rs_slots);
	sandbox_view_free(v);
	return rc;
}

int
runner_sandbox_check(struct runner_sandbox *rs, struct bx_error *err)
{
	struct sandbox_view *v = NULL;
	struct egress_params p;
	struct run_result r;
	int rc = -1;

	memset(&r, 0, sizeof(r));
	if (sandbox_view_noop(&rs->rs_host, RUNNER_CHECK_SEQ, &v, err) == -1)
		return -1;
	(void)sandbox_dir_remove(v->v_calldir, err);
	if (run_view(rs, v, NULL, BX_TOOL_SHELL, -1, &r, err) == -1)
		goto out;
	if (r.rr_status != RUN_OK || strcmp(r.rr_text, "") != 0) {
		bx_fail(err, "runner: the %s start-up check failed: %s",
		    config_runner_kind_name(rs->rs_cfg.cr_kind), r.rr_text);
		goto out;
	}
	egress_params(rs, &p);
	if (egress_check(&p, v, err) == -1)
		goto out;
	rc = 0;
out:
	run_result_clear(&r);
	sandbox_view_free(v);
	return rc;
}
