/*
 * test-broker-property.c: the property test of test-policy-property.c,
 * extended to sequences of calls through broker.c (design section 12) with
 * the recording runtime. A seeded xorshift generator makes grant sets that
 * change as the sequence goes on, calls in a few sessions, the owner's
 * answers to asks (approve, refuse, expiry, a dropped connection, a grant
 * change first), runs that succeed, fail or are unavailable, and audit or
 * state writes that fail. Over the whole sequence:
 *
 *	every Result record follows a Decision for the same call;
 *	the fake runtime sees a call only after allowed or an approval;
 *	taint never goes down;
 *	each answer agrees with the records, and no content reaches the log.
 *
 *	BX_PROPERTY_CALLS	calls in the sequence (default 300)
 *	BX_PROPERTY_SEED	the generator's seed (default fixed, so that
 *				make check is repeatable); printed on failure
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "grants-fixture.h"
#include "xorshift.h"

#define DEFAULT_CALLS	400
#define DEFAULT_SEED	0x2545f4914f6cdd1dULL
#define SESSIONS	6
#define GRANTS		5
#define TTL_MS		60000

static uint64_t seed;

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

static const char *tools[] = { "read_file", "write_file", "shell",
    "http_fetch" };
/* Weighted so that most calls run or ask: auto, ask, then deny. */
static const char *modes[] = { "auto", "auto", "auto", "ask", "ask",
    "deny" };
static const char *classes[] = { "public", "private", "secret" };
/* max_taint: mostly high enough that rising taint still leaves a grant. */
static const char *ceilings[] = { "public", "private", "secret",
    "secret" };
/* The tool of each grant of the current set, so calls mostly find one. */
static int granted[GRANTS];
static const char *paths[] = { "/a", "/a/b", "/x", "/" };
static const char *hosts[] = { "a.com", "*.a.com" };

/* What the test did for one call, to check the records against. */
struct done {
	char	session[8];
	char	call[16];
	int	status;		/* the final frame's, or -1: none (dropped) */
	int	reason;		/* denied */
	bool	unrecorded;	/* failed with BROKER_UNRECORDED */
	enum bx_class class;	/* result */
	bool	untrusted;	/* result */
	bool	saw_content;	/* some frame carried the tool's output */
	bool	write_failed;	/* a state or audit write failed in it */
	enum bx_class after;	/* the session's taint on disk afterwards */
};

static void
fail_at(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
fail_at(const char *fmt, ...)
{
	char what[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	fail_msg("seed %#" PRIx64 " (BX_PROPERTY_SEED=%" PRIu64 "): %s", seed,
	    seed, what);
}

/* A new grant set: every file rewritten, some modes, classes and expiries. */
static void
regrant(struct bfix *f)
{
	char id[8], list[128], text[1024], when[BX_TIME_LEN + 1];
	const char *tool;
	int i, t;

	for (i = 0; i < GRANTS; i++) {
		snprintf(id, sizeof(id), "g%d.toml", i);
		t = (int)xs_pick(LEN(tools));
		tool = tools[t];
		granted[i] = t;
		if (t == 3)
			snprintf(list, sizeof(list), "hosts = [\"%s\"]",
			    hosts[xs_pick(LEN(hosts))]);
		else if (t == 2 && xs_chance(40))
			list[0] = '\0';
		else
			snprintf(list, sizeof(list), "paths = [\"%s\", \"%s\"]",
			    paths[xs_pick(LEN(paths))],
			    paths[xs_pick(LEN(paths))]);
		bx_time_format(bfix_now(f) + (xs_chance(10) ? -1 : 86400000),
		    when);
		snprintf(text, sizeof(text), "tool = \"%s\"\nmode = \"%s\"\n"
		    "max_taint = \"%s\"\nresult_class = \"%s\"\n"
		    "untrusted = %s\nexpires = \"%s\"\n\n[constraints]\n%s\n",
		    tool, modes[xs_pick(LEN(modes))],
		    ceilings[xs_pick(LEN(ceilings))], classes[xs_pick(3)],
		    xs_chance(30) ? "true" : "false", when, list);
		fixture_text(f->grants, id, text);
	}
}

/* The arguments of a call; the call id is in them, for the runtime's copy. */
static const char *
gen_call(const char *call, char *args, size_t len)
{
	int t = xs_chance(80) ? granted[xs_pick(GRANTS)] :
	    (int)xs_pick(LEN(tools));

	switch (t) {
	case 0:
		snprintf(args, len, "{\"path\":\"%s/%s\"}",
		    paths[xs_pick(3)], call);
		break;
	case 1:
		snprintf(args, len, "{\"path\":\"%s/%s\",\"content\":\"x\"}",
		    paths[xs_pick(3)], call);
		break;
	case 2:
		if (xs_chance(50))
			snprintf(args, len, "{\"command\":\"%s\"}", call);
		else
			snprintf(args, len, "{\"command\":\"%s\",\"cwd\":"
			    "\"%s\"}", call, paths[xs_pick(3)]);
		break;
	default:
		snprintf(args, len, "{\"url\":\"https://%s/%s\"}",
		    xs_chance(50) ? "a.com" : "b.a.com", call);
		break;
	}
	return tools[t];
}

static void	one_call(struct bfix *, int, int, struct done *,
		    struct state_value *, int *);

/*
 * The owner's answer to an ask, or a dropped connection. Before approving,
 * the grants may change, or another call of the same session may run (the
 * waiting call does not hold its session) and raise its taint.
 */
static void
answer(struct bfix *f, struct bpeer *p, int base, int n, struct done *done,
    struct state_value *taint, int *used)
{
	struct bx_msg *m;
	uint64_t id;
	unsigned what = xs_pick(100);

	m = bpeer_frame(p, 0);
	if (m->tool_response.status != BX_STATUS_PENDING_APPROVAL)
		fail_at("an ask's first frame is not pending_approval: %s",
		    p->frames[0]);
	id = m->tool_response.approval;
	bx_msg_free(m);
	/* Expiring a call made meanwhile would expire the one waiting too. */
	if (*used > 1 && what < 20)
		what += 20;
	if (what < 10) {
		bpeer_set_gone(p);
		return;
	}
	if (what < 20) {
		bfix_set_now(f, bfix_now(f) + TTL_MS);
		approvals_expire(f->approvals, bfix_now(f));
		return;
	}
	if (what < 35)
		regrant(f);
	else if (what >= 45 && what < 70 && base + *used < n) {
		int fail_after = f->audit_fail_after;
		bool state_fail = f->state_fail;

		one_call(f, base, n, done, taint, used);
		f->audit_fail_after = fail_after;
		f->state_fail = state_fail;
	}
	if (what >= 35 && what < 45)
		m = bfix_admin(f, bx_msg_refuse(id, "no"));
	else
		m = bfix_admin(f, bx_msg_approve(id));
	if (m->kind == BX_MSG_ERROR)
		fail_at("answering %" PRIu64 ": %s", id, m->error.message);
	bx_msg_free(m);
}

/*
 * Runs call base + *used to its end and notes how it was answered; *used
 * counts the calls made from base (an ask may make more of the same
 * session meanwhile).
 */
static void
one_call(struct bfix *f, int base, int n, struct done *done,
    struct state_value *taint, int *used)
{
	static const enum run_status runs[] = { RUN_OK, RUN_OK, RUN_OK,
	    RUN_OK, RUN_FAILED, RUN_UNAVAILABLE };
	struct done *d = &done[base + *used];
	struct state_value now;
	struct bpeer p;
	struct bcall *c;
	struct bx_msg *m;
	const char *tool;
	char args[256];
	bool nested;
	int s, failures;

	/* A call made while another waits is of the same session. */
	s = *used > 0 ? done[base].session[1] - '0' : (int)xs_pick(SESSIONS);
	snprintf(d->session, sizeof(d->session), "s%d", s);
	snprintf(d->call, sizeof(d->call), "c%d", base + *used);
	(*used)++;
	tool = gen_call(d->call, args, sizeof(args));
	pthread_mutex_lock(&f->rec.lock);
	f->rec.status = runs[xs_pick(LEN(runs))];
	snprintf(f->rec.text, sizeof(f->rec.text), "CONTENT-%s", d->call);
	pthread_mutex_unlock(&f->rec.lock);
	/* Only a call with no other inside it has writes fail, so that each
	 * failure is known to be its own. */
	nested = *used > 1;
	f->audit_fail_after = !nested && xs_chance(5) ? (int)xs_pick(3) : -1;
	f->state_fail = !nested && xs_chance(5);
	failures = f->state_failures + f->audit_failures;
	bpeer_init(&p);
	c = bfix_call_async(f, &p, d->session, d->call, tool, args);
	bpeer_wait(&p, 1);
	if (!bx_msg_is_final((m = bpeer_frame(&p, 0))))
		answer(f, &p, base, n, done, taint, used);
	else
		bpeer_set_gone(&p);	/* loopd hangs up after a final frame */
	bx_msg_free(m);
	bfix_join(c);
	d->saw_content = bpeer_saw(&p, "CONTENT-");
	d->write_failed = f->state_failures + f->audit_failures > failures;
	d->status = -1;
	if (p.nframes > 0 && bx_msg_is_final((m = bpeer_frame(&p,
	    p.nframes - 1)))) {
		d->status = (int)m->tool_response.status;
		d->reason = (int)m->tool_response.reason;
		d->unrecorded = m->tool_response.message != NULL &&
		    strcmp(m->tool_response.message, BROKER_UNRECORDED) == 0;
		d->class = m->tool_response.class;
		d->untrusted = m->tool_response.untrusted;
		bx_msg_free(m);
	} else if (p.nframes > 0)
		bx_msg_free(m);
	bpeer_free(&p);
	f->audit_fail_after = -1;
	f->state_fail = false;
	/*
	 * Taint never goes down, as the store reads it after each call, and
	 * a result the model saw is in it.
	 */
	now = bfix_state(f, d->session);
	if (now.taint < taint[s].taint || (taint[s].untrusted && !now.untrusted))
		fail_at("call %s: session %s went from %s to %s", d->call,
		    d->session, bx_class_name(taint[s].taint),
		    bx_class_name(now.taint));
	if (d->status == BX_STATUS_RESULT && (now.taint < d->class ||
	    (d->untrusted && !now.untrusted)))
		fail_at("call %s: a %s%s result reached the model, the session "
		    "is at %s%s", d->call, d->untrusted ? "untrusted " : "",
		    bx_class_name(d->class), now.untrusted ? "untrusted " : "",
		    bx_class_name(now.taint));
	d->after = now.taint;
	taint[s] = now;
}

/* What the records say of one call. */
struct seen {
	const struct bx_audit_record	*decision;
	const struct bx_audit_record	*approval;
	const struct bx_audit_record	*result;
	bool				 ran;
};

static struct seen *
seen_of(struct seen *seen, const struct done *done, int n, const char *call)
{
	int i;

	for (i = 0; i < n; i++)
		if (strcmp(done[i].call, call) == 0)
			return &seen[i];
	fail_at("a record for call %s, which was never made", call);
	return NULL;
}

/* Walks the log in order, checking each record against what came before. */
static void
check_records(const struct bx_audit_record *r, size_t nr, struct seen *seen,
    const struct done *done, int n)
{
	enum bx_class taint[SESSIONS] = { BX_CLASS_PUBLIC };
	const struct bx_ev_decision *dec;
	struct seen *s;
	size_t i;
	int sess;

	for (i = 0; i < nr; i++) {
		switch (r[i].event.type) {
		case BX_AUDIT_DECISION:
			dec = &r[i].event.decision;
			s = seen_of(seen, done, n, dec->call);
			if (s->decision != NULL)
				fail_at("call %s decided twice", dec->call);
			s->decision = &r[i];
			sess = dec->session[1] - '0';
			if (dec->taint < taint[sess])
				fail_at("call %s decided at %s after %s",
				    dec->call, bx_class_name(dec->taint),
				    bx_class_name(taint[sess]));
			taint[sess] = dec->taint;
			break;
		case BX_AUDIT_APPROVAL:
			s = seen_of(seen, done, n, r[i].event.approval.call);
			if (s->decision == NULL || s->approval != NULL ||
			    s->decision->seq != r[i].event.approval.decision ||
			    s->decision->event.decision.outcome.kind !=
			    BX_OUTCOME_ASK)
				fail_at("Approval %" PRIu64 " does not follow "
				    "one ask Decision of its call", r[i].seq);
			s->approval = &r[i];
			break;
		case BX_AUDIT_RESULT:
			s = seen_of(seen, done, n, r[i].event.result.call);
			if (s->decision == NULL || s->result != NULL ||
			    s->decision->seq != r[i].event.result.decision ||
			    strcmp(s->decision->event.decision.session,
			    r[i].event.result.session) != 0)
				fail_at("Result %" PRIu64 " does not follow "
				    "the Decision of its call", r[i].seq);
			s->result = &r[i];
			sess = r[i].event.result.session[1] - '0';
			if (r[i].event.result.taint_after < taint[sess])
				fail_at("Result %" PRIu64 " lowers the taint",
				    r[i].seq);
			if (r[i].event.result.status == BX_RESULT_STATUS_RESULT &&
			    r[i].event.result.taint_after <
			    r[i].event.result.class)
				fail_at("Result %" PRIu64 " of a %s result "
				    "leaves the taint at %s", r[i].seq,
				    bx_class_name(r[i].event.result.class),
				    bx_class_name(r[i].event.result.taint_after));
			taint[sess] = r[i].event.result.taint_after;
			break;
		default:
			fail_at("an unexpected %s record",
			    bx_event_type_name(r[i].event.type));
		}
	}
}

/* Whether the records let call s run: allowed, or approved and not denied. */
static bool
may_run(const struct seen *s)
{
	if (s->decision == NULL)
		return false;
	if (s->decision->event.decision.outcome.kind == BX_OUTCOME_ALLOWED)
		return true;
	return s->approval != NULL &&
	    s->approval->event.approval.answer == BX_ANSWER_APPROVED &&
	    s->approval->event.approval.outcome.kind != BX_OUTCOME_DENIED;
}

/* The call id the runtime's copy of a spec carries. */
static const char *
run_call(const struct recorded_call *c)
{
	const char *s = c->path != NULL ? c->path : c->url != NULL ? c->url :
	    c->command;
	const char *slash = strrchr(s, '/');

	return slash != NULL ? slash + 1 : s;
}

static void
check_answer(const struct done *d, const struct seen *s)
{
	const struct bx_outcome *o;

	if (d->status == BX_STATUS_DENIED) {
		o = s->approval != NULL ? &s->approval->event.approval.outcome :
		    s->decision != NULL ? &s->decision->event.decision.outcome :
		    NULL;
		if (o == NULL ? d->reason != BX_DENY_AUDIT_UNAVAILABLE :
		    (o->kind == BX_OUTCOME_DENIED && (int)o->reason != d->reason))
			fail_at("call %s denied %s, not as recorded", d->call,
			    bx_deny_name((enum bx_deny)d->reason));
		if (s->ran || s->result != NULL)
			fail_at("call %s was denied but ran", d->call);
	} else if (d->status == BX_STATUS_RESULT) {
		if (s->result == NULL || !s->ran ||
		    s->result->event.result.status != BX_RESULT_STATUS_RESULT)
			fail_at("call %s answered a result not recorded",
			    d->call);
	} else if (d->status == BX_STATUS_FAILED) {
		if (s->result == NULL && !d->unrecorded)
			fail_at("call %s failed without a Result", d->call);
	} else if (d->status == -1 && (s->result != NULL || s->ran))
		fail_at("call %s was dropped but ran", d->call);
	/*
	 * The tool's output reaches loopd only once its taint and its Result
	 * are on disk: never after a failed write.
	 */
	if (d->saw_content && (s->result == NULL || d->write_failed ||
	    (s->result->event.result.status == BX_RESULT_STATUS_FAILED &&
	    s->result->event.result.bytes == strlen(BROKER_UNRECORDED)) ||
	    d->after < s->result->event.result.class))
		fail_at("call %s: the tool's output was sent, its taint is not "
		    "on disk", d->call);
}

static void
test_sequences_through_the_broker(void **state)
{
	struct bfix *f = bfix_new(TTL_MS, NULL);
	struct state_value taint[SESSIONS];
	struct bx_audit_record *r;
	struct seen *seen;
	struct done *done;
	const char *env;
	size_t nr, k, outcomes[BX_OUTCOME_MAX] = { 0 };
	int i, n, used;

	(void)state;
	env = getenv("BX_PROPERTY_CALLS");
	n = env != NULL ? atoi(env) : DEFAULT_CALLS;
	env = getenv("BX_PROPERTY_SEED");
	seed = env != NULL ? strtoull(env, NULL, 0) : DEFAULT_SEED;
	xs_seed(seed, DEFAULT_SEED);
	assert_non_null(done = calloc((size_t)n, sizeof(*done)));
	assert_non_null(seen = calloc((size_t)n, sizeof(*seen)));
	for (i = 0; i < SESSIONS; i++)
		taint[i] = (struct state_value){ BX_CLASS_PRIVATE, false };
	for (i = 0; i < n; i += used) {
		if (i % 10 == 0)
			regrant(f);
		used = 0;
		one_call(f, i, n, done, taint, &used);
	}
	nr = bfix_records(f, &r);
	check_records(r, nr, seen, done, n);
	for (k = 0; k < f->rec.count; k++) {
		struct seen *s = seen_of(seen, done, n,
		    run_call(&f->rec.calls[k]));

		if (s->ran || !may_run(s))
			fail_at("the runtime saw call %s without allowed or "
			    "an approval, or twice", run_call(&f->rec.calls[k]));
		s->ran = true;
	}
	for (i = 0; i < n; i++) {
		if (seen[i].result != NULL && !seen[i].ran)
			fail_at("call %s has a Result but never ran",
			    done[i].call);
		check_answer(&done[i], &seen[i]);
	}
	if (bfix_audit_contains(f, "CONTENT-"))
		fail_at("content reached the audit log");
	for (k = 0; k < nr; k++)
		if (r[k].event.type == BX_AUDIT_DECISION)
			outcomes[r[k].event.decision.outcome.kind]++;
	print_message("%d calls: %zu allowed, %zu ask, %zu denied; %zu "
	    "records, %zu runs (seed %#" PRIx64 ")\n", n, outcomes[0],
	    outcomes[1], outcomes[2], nr, f->rec.count, seed);
	bfix_records_free(r, nr);
	free(seen);
	free(done);
	bfix_free(f);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequences_through_the_broker),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
