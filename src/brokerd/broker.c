/*
 * broker.c: one tool request from decision to answer. The order of the
 * steps is the point of this file: a record is on disk before what it
 * describes may happen, and content reaches loopd only once the taint it
 * raised is on disk (design section 5, "Write order").
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/broker.h"
#include "brokerd/broker_record.h"
#include "brokerd/broker_run.h"
#include "proto/sha256.h"

struct broker {
	struct broker_config	 b_cfg;
	pthread_mutex_t		 b_lock;	/* guards the two below */
	bool			 b_reported;
	struct bx_hash		 b_problems;	/* fingerprint last printed */
};

/*
 * One call in progress. It lives on broker_call's stack; it borrows the
 * broker, the request and the peer, and owns c_d (freed by broker_call).
 */
struct call {
	struct broker			*c_b;
	const struct bx_tool_request	*c_req;
	const struct broker_peer	*c_peer;
	struct state_hold		 c_hold;
	struct state_value		 c_st;		/* when (re)decided */
	struct decision			*c_d;		/* the first decision */
	struct call_records		 c_rec;		/* its Decision's seq */
};

struct broker *
broker_new(const struct broker_config *cfg, struct bx_error *err)
{
	struct broker *b;

	if (cfg->grants_dir == NULL || cfg->audit == NULL ||
	    cfg->state == NULL || cfg->approvals == NULL) {
		bx_fail(err, "broker: grants_dir, audit, state and approvals "
		    "are required");
		return NULL;
	}
	if ((b = calloc(1, sizeof(*b))) == NULL) {
		bx_fail(err, "broker: out of memory");
		return NULL;
	}
	b->b_cfg = *cfg;
	if (b->b_cfg.runtime == NULL)
		b->b_cfg.runtime = &runner_refusing;
	if (b->b_cfg.clock == NULL)
		b->b_cfg.clock = &audit_clock_system;
	pthread_mutex_init(&b->b_lock, NULL);
	return b;
}

void
broker_free(struct broker *b)
{
	if (b == NULL)
		return;
	pthread_mutex_destroy(&b->b_lock);
	free(b);
}

const struct broker_config *
broker_config(const struct broker *b)
{
	return &b->b_cfg;
}

int64_t
broker_now(const struct broker *b)
{
	return b->b_cfg.clock->now_ms(b->b_cfg.clock->ctx);
}

void
broker_log(const struct broker *b, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vsay(b->b_cfg.log, fmt, ap);
	va_end(ap);
}

void
broker_report_grants(struct broker *b, const struct grants *set)
{
	struct bx_hash fp;
	char line[BX_ERROR_MAX];
	size_t i;

	if (grants_valid(set) || grants_fingerprint(set, &fp, NULL) == -1)
		return;
	pthread_mutex_lock(&b->b_lock);
	if (b->b_reported && bx_hash_equal(&fp, &b->b_problems)) {
		pthread_mutex_unlock(&b->b_lock);
		return;
	}
	b->b_reported = true;
	b->b_problems = fp;
	for (i = 0; i < set->gs_nproblems; i++) {
		grants_problem_format(&set->gs_problems[i], line, sizeof(line));
		broker_log(b, "grants: %s; %s", line, GRANTS_RUNBOOK);
	}
	pthread_mutex_unlock(&b->b_lock);
}

/*
 * The Decision record of c->c_d. Fails (-1, logged here) when it cannot be
 * written: then nothing may run.
 */
static int
record_decision(struct call *c)
{
	struct bx_error err;

	if (broker_record_decision(&c->c_rec, c->c_d, &c->c_st, &err) == 0)
		return 0;
	broker_log(c->c_b, "%s", err.msg);
	return -1;
}

/*
 * The Approval record; if it fails (logged), *outcome is audit_unavailable.
 * by is the terminal's BROKER_APPROVER, or the Mattermost user of an
 * answer from the bridge, with its post; none for an expiry.
 */
static void
record_approval(struct call *c, enum bx_answer answer,
    const struct approvals_from *from, struct bx_outcome *outcome)
{
	struct bx_error err;
	const char *by = BROKER_APPROVER, *post = NULL;

	if (answer == BX_ANSWER_EXPIRED)
		by = NULL;
	else if (from->by != NULL) {
		by = from->by;
		post = from->post;
	}
	if (broker_record_approval(&c->c_rec, answer, by, post, from->reason,
	    outcome, &err) == 0)
		return;
	broker_log(c->c_b, "%s", err.msg);
	outcome->kind = BX_OUTCOME_DENIED;
	outcome->reason = BX_DENY_AUDIT_UNAVAILABLE;
}

/* Sends msg (taking it) to loopd; NULL is memory running out. */
static int
send_msg(struct call *c, struct bx_msg *msg, struct bx_error *err)
{
	int rc;

	if (msg == NULL)
		return bx_fail(err, "broker: out of memory");
	rc = c->c_peer->send(c->c_peer->ctx, msg, err);
	bx_msg_free(msg);
	return rc;
}

static int
send_denied(struct call *c, enum bx_deny reason, struct bx_error *err)
{
	return send_msg(c, bx_msg_denied(reason), err);
}

/*
 * Reads the session state for a decision. A damaged file is printed and
 * decided as state_unreadable; its record then shows the highest state the
 * session could have had.
 */
static bool
read_state(struct call *c)
{
	struct bx_error err;

	if (state_read(c->c_b->b_cfg.state, c->c_req->session, &c->c_st,
	    &err) == 0)
		return false;
	broker_log(c->c_b, "state: %s; every call of session %s is denied; "
	    "see docs/runbook.md#broker-state-damaged", err.msg,
	    c->c_req->session);
	c->c_st.taint = BX_CLASS_SECRET;
	c->c_st.untrusted = true;
	return true;
}

static int
decide(struct call *c, struct bx_error *err)
{
	struct policy_request r;
	struct grants *set = NULL;
	int rc;

	memset(&r, 0, sizeof(r));
	r.pr_state_unreadable = read_state(c);
	r.pr_tool = c->c_req->tool;
	r.pr_arguments = c->c_req->arguments;
	r.pr_arguments_len = strlen(c->c_req->arguments);
	r.pr_taint = c->c_st.taint;
	r.pr_now = broker_now(c->c_b);
	rc = policy_decide(c->c_b->b_cfg.grants_dir, &r, &c->c_d, &set, err);
	if (set != NULL)
		broker_report_grants(c->c_b, set);
	grants_free(set);
	return rc;
}

/*
 * Runs an allowed (or approved) decision with the session held: run, state
 * file, Result record, answer. A tool's failure raises the taint like a
 * result, since its message may carry the tool's output; an unavailable
 * runner leaves it (baseline section 6).
 */
static int
run_and_answer(struct call *c, const struct decision *d, bool approved,
    struct bx_error *err)
{
	struct broker_run run;
	struct run_result rr;
	struct state_value after = c->c_st;
	struct bx_error rerr;
	const char *sent;
	bool failed, stored;
	int rc;

	memset(&rr, 0, sizeof(rr));
	run.br_call = c->c_req->call;
	run.br_seq = c->c_rec.cr_decision;
	run.br_hangup_fd = c->c_peer->hangup_fd == NULL ? -1 :
	    c->c_peer->hangup_fd(c->c_peer->ctx);
	run.br_config_dir = c->c_b->b_cfg.config_dir;
	run.br_runtime = c->c_b->b_cfg.runtime;
	run.br_log = c->c_b->b_cfg.log;
	broker_run(&run, d, approved, &rr);
	if (rr.rr_status != RUN_UNAVAILABLE)
		after = state_raise(after, decision_result_class(d),
		    decision_untrusted(d));
	stored = state_store_changed(c->c_b->b_cfg.state, c->c_req->session,
	    &c->c_st, &after, &rerr) == 0;
	if (!stored)
		broker_log(c->c_b, "state: %s; the result of call %s is "
		    "withheld; see docs/runbook.md#broker-state-damaged",
		    rerr.msg, c->c_req->call);
	failed = !stored || rr.rr_status != RUN_OK;
	sent = !stored ? BROKER_UNRECORDED : rr.rr_text != NULL ? rr.rr_text :
	    BROKER_RUNNER_FAILED;
	/* Withheld content leaves the taint where the state file has it. */
	if (!stored)
		after = c->c_st;
	if (broker_record_result(&c->c_rec, d, failed, &rr, sent, after.taint,
	    &rerr) == -1) {
		broker_log(c->c_b, "%s", rerr.msg);
		rc = send_msg(c, bx_msg_failed(BROKER_UNRECORDED), err);
	} else if (!failed)
		rc = send_msg(c, bx_msg_result(rr.rr_text,
		    decision_result_class(d), decision_untrusted(d),
		    rr.rr_truncated), err);
	else
		rc = send_msg(c, bx_msg_failed(sent), err);
	run_result_clear(&rr);
	return rc;
}

/* Decides an approved call again, with the grants and state as they are now. */
static int
redecide(struct call *c, struct decision **ret, struct bx_error *err)
{
	struct grants *set = NULL;
	bool unreadable;
	int rc;

	unreadable = read_state(c);
	rc = policy_redecide(c->c_b->b_cfg.grants_dir, c->c_d, c->c_st.taint,
	    unreadable, broker_now(c->c_b), ret, &set, err);
	if (set != NULL)
		broker_report_grants(c->c_b, set);
	grants_free(set);
	return rc;
}

/*
 * Tells loopd the owner's answer is recorded and the call runs now, so
 * that a turn the owner stops from here on waits for the result instead of
 * giving the call up (protocol.md, Stopping a turn). A loopd already gone
 * changes nothing: the runner sees the hang-up and the Result record says
 * the caller went away, as for any call whose caller left.
 */
static int
run_approved(struct call *c, const struct decision *d, struct bx_error *err)
{
	struct bx_error serr;

	if (send_msg(c, bx_msg_approved(), &serr) == -1)
		broker_log(c->c_b, "broker: call %s: %s", c->c_req->call,
		    serr.msg);
	return run_and_answer(c, d, true, err);
}

/* The approved path: hold the session, re-decide, record, run. */
static int
approved(struct call *c, struct approval *a,
    const struct approvals_from *from, struct bx_error *err)
{
	struct approvals *t = c->c_b->b_cfg.approvals;
	struct bx_outcome out = { BX_OUTCOME_DENIED, BX_DENY_AUDIT_UNAVAILABLE };
	struct decision *d = NULL;
	int rc;

	state_hold(c->c_b->b_cfg.state, &c->c_hold, c->c_req->session);
	if (redecide(c, &d, err) == -1) {
		approvals_finish(t, a, &out);
		state_release(c->c_b->b_cfg.state, &c->c_hold);
		return send_msg(c, bx_msg_error(BX_CODE_INTERNAL, err->msg),
		    err);
	}
	out = decision_outcome(d);
	record_approval(c, BX_ANSWER_APPROVED, from, &out);
	approvals_finish(t, a, &out);
	if (out.kind == BX_OUTCOME_DENIED)
		rc = send_denied(c, out.reason, err);
	else
		rc = run_approved(c, d, err);
	state_release(c->c_b->b_cfg.state, &c->c_hold);
	decision_free(d);
	return rc;
}

/* The ask path; the session is not held while the call waits. */
static int
ask(struct call *c, struct bx_error *err)
{
	struct approvals *t = c->c_b->b_cfg.approvals;
	struct approvals_item item;
	struct approval *a;
	struct bx_outcome out = { BX_OUTCOME_DENIED, BX_DENY_APPROVAL_EXPIRED };
	enum approvals_answer ans;
	struct approvals_from from;
	size_t len;

	memset(&item, 0, sizeof(item));
	item.approval = c->c_rec.cr_decision;
	snprintf(item.session, sizeof(item.session), "%s", c->c_req->session);
	snprintf(item.call, sizeof(item.call), "%s", c->c_req->call);
	item.tool = decision_tool(c->c_d);
	item.arguments = (char *)decision_arguments(c->c_d, &len);
	snprintf(item.grant, sizeof(item.grant), "%s",
	    decision_grant_id(c->c_d));
	item.taint = c->c_st.taint;
	item.created = broker_now(c->c_b);
	item.expires = approvals_expiry(item.created, c->c_b->b_cfg.ttl_ms,
	    decision_grant_expires(c->c_d));
	if ((a = approvals_add(t, &item, err)) == NULL)
		return send_msg(c, bx_msg_error(BX_CODE_BUSY, err->msg), err);
	if (send_msg(c, bx_msg_pending(item.approval, item.expires),
	    err) == -1) {
		approvals_finish(t, a, &out);
		return -1;
	}
	ans = approvals_wait(t, a, c->c_peer->gone, c->c_peer->ctx, &from);
	switch (ans) {
	case APPROVALS_APPROVED:
		return approved(c, a, &from, err);
	case APPROVALS_REFUSED:
		out.reason = BX_DENY_APPROVAL_REFUSED;
		record_approval(c, BX_ANSWER_REFUSED, &from, &out);
		break;
	case APPROVALS_EXPIRED:
		record_approval(c, BX_ANSWER_EXPIRED, &from, &out);
		break;
	default:
		approvals_finish(t, a, &out);
		return bx_fail(err, "broker: call %s: loopd went away while "
		    "it waited for approval %llu", c->c_req->call,
		    (unsigned long long)c->c_rec.cr_decision);
	}
	approvals_finish(t, a, &out);
	return send_denied(c, out.reason, err);
}

int
broker_call(struct broker *b, const struct bx_tool_request *req,
    const struct broker_peer *peer, struct bx_error *err)
{
	struct call c;
	struct bx_outcome out;
	int rc = 0;

	memset(&c, 0, sizeof(c));
	c.c_b = b;
	c.c_req = req;
	c.c_peer = peer;
	c.c_rec.cr_audit = b->b_cfg.audit;
	c.c_rec.cr_req = req;
	state_hold(b->b_cfg.state, &c.c_hold, req->session);
	if (decide(&c, err) == -1) {
		state_release(b->b_cfg.state, &c.c_hold);
		broker_log(b, "broker: %s", err->msg);
		return send_msg(&c, bx_msg_error(BX_CODE_INTERNAL, err->msg),
		    err);
	}
	if (record_decision(&c) == -1) {
		state_release(b->b_cfg.state, &c.c_hold);
		rc = send_denied(&c, BX_DENY_AUDIT_UNAVAILABLE, err);
		goto out;
	}
	out = decision_outcome(c.c_d);
	if (out.kind == BX_OUTCOME_ALLOWED)
		rc = run_and_answer(&c, c.c_d, false, err);
	state_release(b->b_cfg.state, &c.c_hold);
	if (out.kind == BX_OUTCOME_DENIED)
		rc = send_denied(&c, out.reason, err);
	else if (out.kind == BX_OUTCOME_ASK)
		rc = ask(&c, err);
out:
	decision_free(c.c_d);
	return rc;
}

/* loopd's end of a broker.sock connection. */
struct fd_peer {
	int	fp_fd;
	int	fp_timeout_ms;
};

static int
fd_send(void *ctx, const struct bx_msg *msg, struct bx_error *err)
{
	struct fd_peer *p = ctx;

	return bx_msg_send(p->fp_fd, msg, p->fp_timeout_ms, err);
}

/*
 * Whether loopd closed its end. On a Unix socket a full close is POLLHUP;
 * a half close (shutdown of its writing side) is not, and the call waits on.
 */
static bool
fd_gone(void *ctx)
{
	struct fd_peer *p = ctx;
	struct pollfd pfd = { p->fp_fd, POLLIN, 0 };

	if (poll(&pfd, 1, 0) == -1)
		return errno != EINTR;
	return (pfd.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

/* The same descriptor, polled by a runner while a tool runs. */
static int
fd_hangup(void *ctx)
{
	return ((struct fd_peer *)ctx)->fp_fd;
}

int
broker_call_fd(struct broker *b, int fd, const struct bx_tool_request *req,
    int timeout_ms, struct bx_error *err)
{
	struct fd_peer p = { fd, timeout_ms };
	struct broker_peer peer = { fd_send, fd_gone, &p, fd_hangup };

	return broker_call(b, req, &peer, err);
}
