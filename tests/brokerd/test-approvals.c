/*
 * test-approvals.c: approvals (design section 6). First the pending table
 * itself: answers from another thread, expiry, a connection that goes away,
 * unknown and already answered ids. Then the design's cases through a whole
 * broker in one process: approve; refuse; expire with ttl_ms 100; approve
 * after the grant file was removed; approve after the taint rose past
 * max_taint; an unknown id; a loopd connection dropped while pending.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "brokerd/approvals.h"
#include "grants-fixture.h"
#include "proto/chain.h"

static struct approvals_item
item(uint64_t id, int64_t expires)
{
	struct approvals_item it;

	memset(&it, 0, sizeof(it));
	it.approval = id;
	snprintf(it.session, sizeof(it.session), "chat-1");
	snprintf(it.call, sizeof(it.call), "call_%llu",
	    (unsigned long long)id);
	it.tool = BX_TOOL_SHELL;
	it.arguments = (char *)"{\"command\":\"ls\"}";
	snprintf(it.grant, sizeof(it.grant), "shell-scratch");
	it.taint = BX_CLASS_PRIVATE;
	it.created = 1000;
	it.expires = expires;
	return it;
}

/* A broker thread: waits on its entry and records what it was told. */
struct waiter {
	struct approvals	*t;
	struct approval		*a;
	struct bx_outcome	 post;
	enum approvals_answer	 got;
	char			 reason[64];
	int			 gone_after;	/* -1: never gone */
	int			 gone_calls;
};

static bool
waiter_gone(void *ctx)
{
	struct waiter *w = ctx;

	w->gone_calls++;
	return w->gone_after >= 0 && w->gone_calls > w->gone_after;
}

static void *
waiter_run(void *arg)
{
	struct waiter *w = arg;
	struct approvals_from from;

	w->got = approvals_wait(w->t, w->a, waiter_gone, w, &from);
	snprintf(w->reason, sizeof(w->reason), "%s",
	    from.reason == NULL ? "(none)" : from.reason);
	approvals_finish(w->t, w->a, &w->post);
	return NULL;
}

static void
start(struct waiter *w, struct approvals *t, uint64_t id, pthread_t *th)
{
	struct approvals_item it = item(id, 1000000);
	struct bx_error err;

	w->t = t;
	w->a = approvals_add(t, &it, &err);
	assert_non_null(w->a);
	assert_int_equal(pthread_create(th, NULL, waiter_run, w), 0);
}

static void
test_expiry_is_ttl_or_the_grants_if_earlier(void **state)
{
	(void)state;
	assert_int_equal(approvals_expiry(1000, 500, 99999), 1500);
	assert_int_equal(approvals_expiry(1000, 500, 1200), 1200);
	assert_int_equal(approvals_expiry(1000, 500, 1500), 1500);
}

static void
test_approve_hands_back_the_recorded_outcome(void **state)
{
	struct approvals *t = approvals_new();
	struct waiter w = { .gone_after = -1 };
	struct bx_outcome out;
	struct bx_error err;
	pthread_t th;

	(void)state;
	w.post.kind = BX_OUTCOME_DENIED;
	w.post.reason = BX_DENY_NO_GRANT;
	start(&w, t, 41, &th);
	assert_int_equal(approvals_answer(t, 41, APPROVALS_APPROVED, NULL,
	    &out, &err), 0);
	pthread_join(th, NULL);
	assert_int_equal(w.got, APPROVALS_APPROVED);
	assert_int_equal(out.kind, BX_OUTCOME_DENIED);
	assert_int_equal(out.reason, BX_DENY_NO_GRANT);
	assert_int_equal(approvals_pending(t), 0);
	/* Answered: a second answer finds nothing. */
	assert_int_equal(approvals_answer(t, 41, APPROVALS_REFUSED, NULL,
	    &out, &err), -1);
	assert_non_null(strstr(err.msg, "41"));
	approvals_free(t);
}

static void
test_refuse_carries_the_reason(void **state)
{
	struct approvals *t = approvals_new();
	struct waiter w = { .gone_after = -1 };
	struct bx_outcome out;
	struct bx_error err;
	pthread_t th;

	(void)state;
	w.post.kind = BX_OUTCOME_DENIED;
	w.post.reason = BX_DENY_APPROVAL_REFUSED;
	start(&w, t, 7, &th);
	assert_int_equal(approvals_answer(t, 7, APPROVALS_REFUSED,
	    &(struct approvals_from){ "not now", NULL, NULL }, &out, &err), 0);
	pthread_join(th, NULL);
	assert_int_equal(w.got, APPROVALS_REFUSED);
	assert_string_equal(w.reason, "not now");
	assert_int_equal(out.reason, BX_DENY_APPROVAL_REFUSED);
	approvals_free(t);
}

static void
test_unknown_id_is_refused(void **state)
{
	struct approvals *t = approvals_new();
	struct bx_outcome out;
	struct bx_error err;

	(void)state;
	assert_int_equal(approvals_answer(t, 99, APPROVALS_APPROVED, NULL,
	    &out, &err), -1);
	approvals_free(t);
}

static void
test_expire_wakes_the_waiter(void **state)
{
	struct approvals *t = approvals_new();
	struct approvals_item early = item(1, 500), late = item(2, 5000);
	struct approval *a1, *a2;
	struct bx_outcome none = { BX_OUTCOME_DENIED, BX_DENY_APPROVAL_EXPIRED };
	struct bx_error err;
	struct approvals_from reason;

	(void)state;
	assert_non_null(a1 = approvals_add(t, &early, &err));
	assert_non_null(a2 = approvals_add(t, &late, &err));
	assert_int_equal(approvals_expire(t, 499), 0);
	assert_int_equal(approvals_expire(t, 500), 1);
	assert_int_equal(approvals_pending(t), 1);
	assert_int_equal(approvals_wait(t, a1, NULL, NULL, &reason),
	    APPROVALS_EXPIRED);
	approvals_finish(t, a1, &none);
	approvals_abandon_all(t);
	assert_int_equal(approvals_wait(t, a2, NULL, NULL, &reason),
	    APPROVALS_ABANDONED);
	approvals_finish(t, a2, &none);
	assert_int_equal(approvals_pending(t), 0);
	approvals_free(t);
}

static void
test_gone_connection_removes_the_entry(void **state)
{
	struct approvals *t = approvals_new();
	struct waiter w = { .gone_after = 2 };
	struct bx_outcome out;
	struct bx_error err;
	pthread_t th;

	(void)state;
	start(&w, t, 5, &th);
	pthread_join(th, NULL);
	assert_int_equal(w.got, APPROVALS_ABANDONED);
	assert_int_equal(w.gone_calls, 3);
	assert_int_equal(approvals_pending(t), 0);
	assert_int_equal(approvals_answer(t, 5, APPROVALS_APPROVED, NULL,
	    &out, &err), -1);
	approvals_free(t);
}

/* Changes the table every millisecond: an entry added, expired, finished. */
struct hammer {
	struct approvals	*t;
	pthread_mutex_t		 lock;
	pthread_cond_t		 changed;
	bool			 stop;
	struct waiter		*w;	/* the waiter it disturbs */
	bool			 waiter_done;
};

static void *
hammer_run(void *arg)
{
	struct hammer *h = arg;
	struct bx_outcome none = { BX_OUTCOME_DENIED, BX_DENY_APPROVAL_EXPIRED };
	struct approvals_item it;
	struct approval *a;
	struct bx_error err;
	struct approvals_from reason;
	uint64_t id = 1000;
	bool stop = false;

	while (!stop) {
		it = item(id++, 0);
		if ((a = approvals_add(h->t, &it, &err)) != NULL) {
			approvals_expire(h->t, 0);
			approvals_wait(h->t, a, NULL, NULL, &reason);
			approvals_finish(h->t, a, &none);
		}
		usleep(1000);
		pthread_mutex_lock(&h->lock);
		stop = h->stop;
		pthread_mutex_unlock(&h->lock);
	}
	return NULL;
}

static void *
watched_waiter_run(void *arg)
{
	struct hammer *h = arg;

	waiter_run(h->w);
	pthread_mutex_lock(&h->lock);
	h->waiter_done = true;
	pthread_cond_broadcast(&h->changed);
	pthread_mutex_unlock(&h->lock);
	return NULL;
}

static void
test_a_busy_table_still_sees_the_connection_go(void **state)
{
	struct waiter w = { .gone_after = 0 };
	struct hammer h = { .lock = PTHREAD_MUTEX_INITIALIZER,
	    .changed = PTHREAD_COND_INITIALIZER, .w = &w };
	struct approvals *t = approvals_new();
	struct approvals_item it = item(5, 1000000);
	struct timespec until;
	struct bx_error err;
	pthread_t hammer, waiter;
	bool done;

	(void)state;
	h.t = t;
	w.t = t;
	assert_non_null(w.a = approvals_add(t, &it, &err));
	assert_int_equal(pthread_create(&hammer, NULL, hammer_run, &h), 0);
	assert_int_equal(pthread_create(&waiter, NULL, watched_waiter_run,
	    &h), 0);
	/* Generous: the waiter looks at its connection within 100 ms. */
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += 20;
	pthread_mutex_lock(&h.lock);
	while (!h.waiter_done)
		if (pthread_cond_timedwait(&h.changed, &h.lock, &until) != 0)
			break;
	done = h.waiter_done;
	h.stop = true;
	pthread_mutex_unlock(&h.lock);
	if (!done)
		fail_msg("a table changing every millisecond kept the waiter "
		    "from noticing its connection was gone");
	pthread_join(waiter, NULL);
	pthread_join(hammer, NULL);
	assert_int_equal(w.got, APPROVALS_ABANDONED);
	assert_int_equal(approvals_pending(t), 0);
	approvals_free(t);
}

static void
test_list_copies_pending_oldest_first(void **state)
{
	struct approvals *t = approvals_new();
	struct approvals_item a = item(3, 100), b = item(9, 100), *items;
	struct bx_outcome none = { BX_OUTCOME_DENIED, BX_DENY_APPROVAL_EXPIRED };
	struct approval *ea, *eb;
	struct bx_error err;
	struct approvals_from reason;
	size_t n;

	(void)state;
	assert_int_equal(approvals_list(t, &items, &n, &err), 0);
	assert_int_equal(n, 0);
	assert_null(items);
	assert_non_null(ea = approvals_add(t, &a, &err));
	assert_non_null(eb = approvals_add(t, &b, &err));
	assert_null(approvals_add(t, &a, &err));
	assert_int_equal(approvals_list(t, &items, &n, &err), 0);
	assert_int_equal(n, 2);
	assert_int_equal(items[0].approval, 3);
	assert_int_equal(items[1].approval, 9);
	assert_string_equal(items[1].arguments, "{\"command\":\"ls\"}");
	assert_string_equal(items[1].grant, "shell-scratch");
	approvals_items_free(items, n);
	approvals_expire(t, 100);
	assert_int_equal(approvals_wait(t, ea, NULL, NULL, &reason),
	    APPROVALS_EXPIRED);
	assert_int_equal(approvals_wait(t, eb, NULL, NULL, &reason),
	    APPROVALS_EXPIRED);
	approvals_finish(t, ea, &none);
	approvals_finish(t, eb, &none);
	approvals_free(t);
}

/* An ask call pending in the broker: its thread, peer and approval id. */
struct asked {
	struct bpeer	 p;
	struct bcall	*call;
	uint64_t	 id;
	int64_t		 expires;
};

static void
ask_notes(struct bfix *f, struct asked *a, const char *session,
    const char *call)
{
	struct bx_msg *m;

	bpeer_init(&a->p);
	a->call = bfix_call_async(f, &a->p, session, call, "read_file",
	    "{\"path\":\"/notes/a\"}");
	bpeer_wait(&a->p, 1);
	m = bpeer_frame(&a->p, 0);
	assert_int_equal(m->kind, BX_MSG_TOOL_RESPONSE);
	assert_int_equal(m->tool_response.status, BX_STATUS_PENDING_APPROVAL);
	assert_false(bx_msg_is_final(m));
	a->id = m->tool_response.approval;
	a->expires = m->tool_response.expires;
	bx_msg_free(m);
	assert_int_equal(recording_count(&f->rec), 0);
}

/*
 * Waits for the call's end; its final frame must be status st. A call that
 * ran (a result or a failure) was told it was approved first.
 */
static struct bx_msg *
finish(struct asked *a, enum bx_status st)
{
	struct bx_msg *m;
	size_t n = st == BX_STATUS_DENIED ? 2 : 3;

	bfix_join(a->call);
	assert_int_equal(a->p.nframes, n);
	if (n == 3) {
		m = bpeer_frame(&a->p, 1);
		assert_int_equal(m->tool_response.status, BX_STATUS_APPROVED);
		assert_false(bx_msg_is_final(m));
		bx_msg_free(m);
	}
	m = bpeer_frame(&a->p, n - 1);
	assert_true(bx_msg_is_final(m));
	if (m->tool_response.status != st)
		fail_msg("status %s, want %s: %s",
		    bx_status_name(m->tool_response.status),
		    bx_status_name(st), a->p.frames[n - 1]);
	return m;
}

static void
finish_denied(struct asked *a, enum bx_deny reason)
{
	struct bx_msg *m = finish(a, BX_STATUS_DENIED);

	assert_string_equal(bx_deny_name(m->tool_response.reason),
	    bx_deny_name(reason));
	bx_msg_free(m);
	bpeer_free(&a->p);
}

static struct bx_msg *
approve(struct bfix *f, uint64_t id)
{
	return bfix_admin(f, bx_msg_approve(id));
}

static void
expect_no_such(struct bx_msg *m)
{
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_NO_SUCH_APPROVAL);
	bx_msg_free(m);
}

/* The Approval record that must follow the Decision record with seq id. */
static void
expect_approval(struct bfix *f, uint64_t id, enum bx_answer answer,
    enum bx_outcome_kind kind, enum bx_deny reason, const char *why)
{
	struct bx_audit_record *r;
	const struct bx_ev_approval *a = NULL;
	size_t i, n;

	n = bfix_records(f, &r);
	for (i = 0; i < n; i++)
		if (r[i].event.type == BX_AUDIT_APPROVAL &&
		    r[i].event.approval.decision == id) {
			assert_true(r[i].seq > id);
			a = &r[i].event.approval;
			break;
		}
	assert_non_null(a);
	assert_int_equal(a->answer, answer);
	assert_int_equal(a->outcome.kind, kind);
	if (kind == BX_OUTCOME_DENIED)
		assert_string_equal(bx_deny_name(a->outcome.reason),
		    bx_deny_name(reason));
	if (answer == BX_ANSWER_EXPIRED)
		assert_null(a->by);
	else
		assert_string_equal(a->by, "bxctl");
	if (why == NULL)
		assert_null(a->reason);
	else
		assert_string_equal(a->reason, why);
	bfix_records_free(r, n);
}

static int
setup_broker(void **state)
{
	struct bfix *f = bfix_new(900000, NULL);

	bfix_grant(f, "notes", "read_file", "ask", "private", "private", false,
	    "paths = [\"/notes\"]");
	*state = f;
	return 0;
}

static int
teardown_broker(void **state)
{
	bfix_free(*state);
	return 0;
}

static void
test_approve_runs_the_call(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m, *list;
	struct asked a;

	ask_notes(f, &a, "s1", "c1");
	assert_int_equal(a.expires, bfix_now(f) + 900000);
	list = bfix_admin(f, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(list->kind, BX_MSG_APPROVAL_LIST);
	assert_int_equal(list->approval_list.nitems, 1);
	assert_int_equal(list->approval_list.items[0].approval, a.id);
	assert_string_equal(list->approval_list.items[0].session, "s1");
	assert_string_equal(list->approval_list.items[0].call, "c1");
	assert_string_equal(list->approval_list.items[0].tool, "read_file");
	assert_string_equal(list->approval_list.items[0].arguments,
	    "{\"path\":\"/notes/a\"}");
	assert_string_equal(list->approval_list.items[0].grant, "notes");
	assert_int_equal(list->approval_list.items[0].taint, BX_CLASS_PRIVATE);
	assert_int_equal(list->approval_list.items[0].created, bfix_now(f));
	assert_int_equal(list->approval_list.items[0].expires, a.expires);
	bx_msg_free(list);

	m = approve(f, a.id);
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_ASK);
	bx_msg_free(m);
	m = finish(&a, BX_STATUS_RESULT);
	assert_string_equal(m->tool_response.content, "content");
	bx_msg_free(m);
	bpeer_free(&a.p);
	assert_int_equal(recording_count(&f->rec), 1);
	expect_approval(f, a.id, BX_ANSWER_APPROVED, BX_OUTCOME_ASK, 0, NULL);
	/* Answered: it is gone. */
	expect_no_such(approve(f, a.id));
	assert_int_equal(approvals_pending(f->approvals), 0);
}

static void
test_refuse_denies_with_the_reason(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;
	struct asked a;

	ask_notes(f, &a, "s1", "c1");
	m = bfix_admin(f, bx_msg_refuse(a.id, "not now"));
	assert_int_equal(m->kind, BX_MSG_OK);
	bx_msg_free(m);
	finish_denied(&a, BX_DENY_APPROVAL_REFUSED);
	assert_int_equal(recording_count(&f->rec), 0);
	expect_approval(f, a.id, BX_ANSWER_REFUSED, BX_OUTCOME_DENIED,
	    BX_DENY_APPROVAL_REFUSED, "not now");
	expect_no_such(bfix_admin(f, bx_msg_refuse(a.id, NULL)));
}

static void
test_expires_with_ttl_100(void **state)
{
	struct bfix *f = bfix_new(100, NULL);
	struct asked a;

	(void)state;
	bfix_grant(f, "notes", "read_file", "ask", "private", "private", false,
	    "paths = [\"/notes\"]");
	ask_notes(f, &a, "s1", "c1");
	assert_int_equal(a.expires, bfix_now(f) + 100);
	/* What serve's expiry thread does once a second. */
	bfix_set_now(f, bfix_now(f) + 99);
	assert_int_equal(approvals_expire(f->approvals, bfix_now(f)), 0);
	bfix_set_now(f, bfix_now(f) + 1);
	assert_int_equal(approvals_expire(f->approvals, bfix_now(f)), 1);
	finish_denied(&a, BX_DENY_APPROVAL_EXPIRED);
	assert_int_equal(recording_count(&f->rec), 0);
	expect_approval(f, a.id, BX_ANSWER_EXPIRED, BX_OUTCOME_DENIED,
	    BX_DENY_APPROVAL_EXPIRED, NULL);
	expect_no_such(approve(f, a.id));
	bfix_free(f);
}

static void
test_expiry_is_the_grants_when_earlier(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;
	struct asked a;
	int64_t grant_expires;
	struct bx_error err;

	assert_int_equal(bx_time_parse("2026-09-18T12:05:00.000Z",
	    &grant_expires, &err), 0);
	fixture_text(f->grants, "notes.toml", "tool = \"read_file\"\n"
	    "mode = \"ask\"\nmax_taint = \"private\"\n"
	    "result_class = \"private\"\n"
	    "expires = \"2026-09-18T12:05:00.000Z\"\n\n"
	    "[constraints]\npaths = [\"/notes\"]\n");
	ask_notes(f, &a, "s1", "c1");
	assert_int_equal(a.expires, grant_expires);
	approvals_expire(f->approvals, grant_expires);
	finish_denied(&a, BX_DENY_APPROVAL_EXPIRED);
	m = approve(f, a.id);
	expect_no_such(m);
}

static void
test_approve_after_the_grant_was_removed(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;
	struct asked a;

	ask_notes(f, &a, "s1", "c1");
	bfix_ungrant(f, "notes");
	m = approve(f, a.id);
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_DENIED);
	assert_int_equal(m->approve_result.reason, BX_DENY_NO_GRANT);
	bx_msg_free(m);
	finish_denied(&a, BX_DENY_NO_GRANT);
	assert_int_equal(recording_count(&f->rec), 0);
	expect_approval(f, a.id, BX_ANSWER_APPROVED, BX_OUTCOME_DENIED,
	    BX_DENY_NO_GRANT, NULL);
}

static void
test_approve_after_the_taint_rose(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;
	struct bpeer p;
	struct asked a;

	bfix_grant(f, "vault", "read_file", "auto", "secret", "secret", false,
	    "paths = [\"/vault\"]");
	ask_notes(f, &a, "s1", "c1");
	/* The waiting call does not hold its session: this one runs. */
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c2", "read_file", "{\"path\":\"/vault/key\"}");
	m = bpeer_frame(&p, 0);
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	bx_msg_free(m);
	bpeer_free(&p);
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_SECRET);
	m = approve(f, a.id);
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_DENIED);
	assert_int_equal(m->approve_result.reason, BX_DENY_TAINT_TOO_HIGH);
	bx_msg_free(m);
	finish_denied(&a, BX_DENY_TAINT_TOO_HIGH);
	assert_int_equal(recording_count(&f->rec), 1);
	expect_approval(f, a.id, BX_ANSWER_APPROVED, BX_OUTCOME_DENIED,
	    BX_DENY_TAINT_TOO_HIGH, NULL);
}

static void
test_approve_after_the_owner_allowed_it_outright(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bx_msg *m;
	struct asked a;
	size_t n;

	ask_notes(f, &a, "s1", "c1");
	/* The ask grant is gone; an auto one with other terms took its place. */
	bfix_ungrant(f, "notes");
	bfix_grant(f, "notes-auto", "read_file", "auto", "secret", "secret",
	    true, "paths = [\"/notes/a\"]");
	m = approve(f, a.id);
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_ALLOWED);
	bx_msg_free(m);
	m = finish(&a, BX_STATUS_RESULT);
	/* Run under the grant matched now: its mount, class and flag. */
	assert_int_equal(m->tool_response.class, BX_CLASS_SECRET);
	assert_true(m->tool_response.untrusted);
	bx_msg_free(m);
	bpeer_free(&a.p);
	assert_int_equal(recording_count(&f->rec), 1);
	assert_string_equal(f->rec.calls[0].mounts[0], "/notes/a");
	expect_approval(f, a.id, BX_ANSWER_APPROVED, BX_OUTCOME_ALLOWED, 0,
	    NULL);
	n = bfix_records(f, &r);
	assert_int_equal(n, 3);
	assert_int_equal(r[2].event.type, BX_AUDIT_RESULT);
	assert_int_equal(r[2].event.result.decision, a.id);
	assert_int_equal(r[2].event.result.class, BX_CLASS_SECRET);
	assert_true(r[2].event.result.untrusted);
	assert_int_equal(r[2].event.result.taint_after, BX_CLASS_SECRET);
	bfix_records_free(r, n);
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_SECRET);
	assert_true(bfix_state(f, "s1").untrusted);
}

static void
test_an_unknown_id_is_no_such_approval(void **state)
{
	struct bfix *f = *state;

	expect_no_such(approve(f, 999));
	expect_no_such(bfix_admin(f, bx_msg_refuse(999, "no")));
}

static void
test_dropped_connection_is_abandoned(void **state)
{
	struct bfix *f = *state;
	struct bx_chain_report *rep;
	struct bx_audit_record *r;
	struct asked a;
	size_t n;

	ask_notes(f, &a, "s1", "c1");
	bpeer_set_gone(&a.p);
	bfix_join(a.call);
	assert_int_equal(a.p.rc, -1);
	assert_int_equal(a.p.nframes, 1);
	bpeer_free(&a.p);
	assert_int_equal(approvals_pending(f->approvals), 0);
	expect_no_such(approve(f, a.id));
	/* Nothing was written after the Decision. */
	n = bfix_records(f, &r);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].event.decision.outcome.kind, BX_OUTCOME_ASK);
	bfix_records_free(r, n);
	rep = bfix_verify(f);
	assert_int_equal(rep->nabandoned, 1);
	assert_int_equal(rep->abandoned[0], a.id);
	bx_chain_report_free(rep);
	assert_int_equal(recording_count(&f->rec), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_expiry_is_ttl_or_the_grants_if_earlier),
		cmocka_unit_test(test_approve_hands_back_the_recorded_outcome),
		cmocka_unit_test(test_refuse_carries_the_reason),
		cmocka_unit_test(test_unknown_id_is_refused),
		cmocka_unit_test(test_expire_wakes_the_waiter),
		cmocka_unit_test(test_gone_connection_removes_the_entry),
		cmocka_unit_test(
		    test_a_busy_table_still_sees_the_connection_go),
		cmocka_unit_test(test_list_copies_pending_oldest_first),
#define T(name) cmocka_unit_test_setup_teardown(name, setup_broker, \
    teardown_broker)
		T(test_approve_runs_the_call),
		T(test_refuse_denies_with_the_reason),
		cmocka_unit_test(test_expires_with_ttl_100),
		T(test_expiry_is_the_grants_when_earlier),
		T(test_approve_after_the_grant_was_removed),
		T(test_approve_after_the_taint_rose),
		T(test_approve_after_the_owner_allowed_it_outright),
		T(test_an_unknown_id_is_no_such_approval),
		T(test_dropped_connection_is_abandoned),
#undef T
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
