/*
 * test-bridge.c: bridge.sock's requests (bridge.h) through a whole broker
 * in one process, as serve hands them to bridge_handle: an approve and a
 * refuse from Mattermost write the Approval record with by and post, the
 * terminal's keep by "bxctl" and post null; an answer without by and post
 * is refused, and admin.sock refuses one with them; the terminal and the
 * bridge racing for one approval: exactly one wins, the other gets
 * no_such_approval, and there is one Approval record; approvals_wait wakes
 * on a new pending approval and on its end (answered at either side, or
 * expired), says how it ended, and otherwise waits its timeout out; every
 * kind but the bridge's four is forbidden.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "served-fixture.h"
#include "brokerd/bridge.h"
#include "proto/clock.h"
#include "proto/readfile.h"

#define OWNER	"kz8f3q1xwbyn5c7tdm2re4hs6a"
#define POST	"p9w2c7dj4xkqm8rf3nt6ybz1ve"
/* Long: a wait that returned at its timeout instead of on a change shows. */
#define LONG_WAIT_MS	20000

static struct bx_msg *
bridge(struct bfix *f, struct bx_msg *req)
{
	struct bx_msg *answer = NULL;
	struct bx_error err;

	assert_non_null(req);
	if (bridge_handle(f->broker, req, &answer, &err) == -1)
		fail_msg("bridge_handle: %s", err.msg);
	bx_msg_free(req);
	return answer;
}

/* One call of the ask grant, pending. */
static void
ask(struct bfix *f, struct asked *a, const char *call)
{
	asked_start(f, a, call, "read_file", "{\"path\":\"/notes/a\"}");
}

static void
expect_error(struct bx_msg *m, enum bx_code code, const char *needle)
{
	assert_int_equal(m->kind, BX_MSG_ERROR);
	if (m->error.code != code)
		fail_msg("error %s, want %s: %s", bx_code_name(m->error.code),
		    bx_code_name(code), m->error.message);
	if (needle != NULL && strstr(m->error.message, needle) == NULL)
		fail_msg("\"%s\" does not say %s", m->error.message, needle);
	bx_msg_free(m);
}

static int
setup(void **state)
{
	struct bfix *f = bfix_new(900000, NULL);

	bfix_grant(f, "notes", "read_file", "ask", "private", "private", false,
	    "paths = [\"/notes\"]");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	bfix_free(*state);
	return 0;
}

static void
test_approve_from_mattermost_records_by_and_post(void **state)
{
	struct bfix *f = *state;
	struct asked a;
	struct bx_msg *m;

	ask(f, &a, "call_1");
	m = bridge(f, bx_msg_approve_from(a.id, OWNER, POST));
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	/* The re-decision of an ask grant: ask, which runs. */
	assert_int_equal(m->approve_result.kind, BX_OUTCOME_ASK);
	bx_msg_free(m);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(f, a.id, BX_ANSWER_APPROVED, OWNER, POST, "(null)");
	/* Answered: the terminal is told so. */
	expect_error(bfix_admin(f, bx_msg_approve(a.id)),
	    BX_CODE_NO_SUCH_APPROVAL, NULL);
}

static void
test_refuse_from_mattermost_records_by_and_post(void **state)
{
	struct bfix *f = *state;
	struct asked a;
	struct bx_msg *m;

	ask(f, &a, "call_1");
	m = bridge(f, bx_msg_refuse_from(a.id, "not from the phone", OWNER,
	    POST));
	assert_int_equal(m->kind, BX_MSG_OK);
	bx_msg_free(m);
	asked_done(&a, BX_STATUS_DENIED);
	expect_record(f, a.id, BX_ANSWER_REFUSED, OWNER, POST,
	    "not from the phone");
	assert_int_equal(recording_count(&f->rec), 0);
}

static void
test_terminal_keeps_bxctl(void **state)
{
	struct bfix *f = *state;
	struct asked a, b;
	struct bx_msg *m;

	ask(f, &a, "call_1");
	m = bfix_admin(f, bx_msg_approve(a.id));
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	bx_msg_free(m);
	asked_done(&a, BX_STATUS_RESULT);
	expect_record(f, a.id, BX_ANSWER_APPROVED, "bxctl", "(null)",
	    "(null)");
	ask(f, &b, "call_2");
	m = bfix_admin(f, bx_msg_refuse(b.id, "no"));
	assert_int_equal(m->kind, BX_MSG_OK);
	bx_msg_free(m);
	asked_done(&b, BX_STATUS_DENIED);
	expect_record(f, b.id, BX_ANSWER_REFUSED, "bxctl", "(null)", "no");
}

/*
 * Where an answer came from is the socket's: the bridge must say who and
 * which post, the terminal must not claim either. Neither touches the
 * approval, which the terminal then answers.
 */
static void
test_answers_must_say_where_they_come_from(void **state)
{
	struct bfix *f = *state;
	struct asked a;
	struct bx_msg *m;

	ask(f, &a, "call_1");
	expect_error(bridge(f, bx_msg_approve(a.id)), BX_CODE_BAD_REQUEST,
	    "\"by\"");
	expect_error(bridge(f, bx_msg_refuse(a.id, "x")), BX_CODE_BAD_REQUEST,
	    "\"post\"");
	expect_error(bridge(f, bx_msg_approve_from(a.id, OWNER, NULL)),
	    BX_CODE_BAD_REQUEST, "\"post\"");
	expect_error(bfix_admin(f, bx_msg_approve_from(a.id, OWNER, POST)),
	    BX_CODE_FORBIDDEN, "the terminal");
	expect_error(bfix_admin(f, bx_msg_refuse_from(a.id, NULL, NULL, POST)),
	    BX_CODE_FORBIDDEN, "the terminal");
	m = bfix_admin(f, bx_msg_refuse(a.id, NULL));
	assert_int_equal(m->kind, BX_MSG_OK);
	bx_msg_free(m);
	asked_done(&a, BX_STATUS_DENIED);
	expect_record(f, a.id, BX_ANSWER_REFUSED, "bxctl", "(null)",
	    "(null)");
}

/* One side of the race: answers once the other side is ready too. */
struct racer {
	struct bfix		*f;
	uint64_t		 id;
	bool			 from_bridge;
	pthread_barrier_t	*go;
	struct bx_msg		*answer;
};

static void *
race_run(void *arg)
{
	struct racer *r = arg;

	pthread_barrier_wait(r->go);
	if (r->from_bridge)
		r->answer = bridge(r->f, bx_msg_approve_from(r->id, OWNER,
		    POST));
	else
		r->answer = bfix_admin(r->f, bx_msg_approve(r->id));
	return NULL;
}

/*
 * The terminal and the bridge approve the same approval at once, many
 * times over: exactly one wins, the other is told no_such_approval, and
 * the one Approval record names the winner.
 */
static void
test_first_answer_wins(void **state)
{
	struct bfix *f = *state;
	pthread_barrier_t go;
	struct racer r[2];
	pthread_t th[2];
	struct asked a;
	char call[32], by[64], post[64], reason[64];
	enum bx_answer answer;
	int round, i, winner, wins[2] = { 0, 0 };

	for (round = 0; round < 40; round++) {
		snprintf(call, sizeof(call), "call_%d", round);
		ask(f, &a, call);
		pthread_barrier_init(&go, NULL, 2);
		for (i = 0; i < 2; i++) {
			r[i] = (struct racer){ f, a.id, i == 1, &go, NULL };
			assert_int_equal(pthread_create(&th[i], NULL,
			    race_run, &r[i]), 0);
		}
		for (i = 0; i < 2; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&go);
		winner = r[0].answer->kind == BX_MSG_APPROVE_RESULT ? 0 : 1;
		assert_int_equal(r[winner].answer->kind,
		    BX_MSG_APPROVE_RESULT);
		expect_error(r[1 - winner].answer, BX_CODE_NO_SUCH_APPROVAL,
		    NULL);
		bx_msg_free(r[winner].answer);
		wins[winner]++;
		asked_done(&a, BX_STATUS_RESULT);
		assert_int_equal(approvals_of(f, a.id, &answer, by, post,
		    reason), 1);
		assert_int_equal(answer, BX_ANSWER_APPROVED);
		assert_string_equal(by, winner == 1 ? OWNER : "bxctl");
		assert_string_equal(post, winner == 1 ? POST : "(null)");
	}
	assert_int_equal(wins[0] + wins[1], 40);
	assert_int_equal(recording_count(&f->rec), 40);
}

/* An approvals_wait on a thread of its own. */
struct waiter {
	struct bfix	*f;
	uint64_t	 known[4];
	size_t		 nknown;
	int64_t		 timeout_ms;
	struct bx_msg	*answer;
	int64_t		 took_ms;
	pthread_t	 thread;
};

static void *
wait_run(void *arg)
{
	struct waiter *w = arg;
	int64_t start = bx_clock_mono_ms();

	w->answer = bridge(w->f, bx_msg_approvals_wait(w->known, w->nknown,
	    w->timeout_ms));
	w->took_ms = bx_clock_mono_ms() - start;
	return NULL;
}

static void
wait_start(struct waiter *w, struct bfix *f, const uint64_t *known,
    size_t n, int64_t timeout_ms)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	memcpy(w->known, known, n * sizeof(*known));
	w->nknown = n;
	w->timeout_ms = timeout_ms;
	assert_int_equal(pthread_create(&w->thread, NULL, wait_run, w), 0);
}

/* The waiter's answer, which must have come on a change, not its timeout. */
static struct bx_approval_changes *
wait_end(struct waiter *w)
{
	pthread_join(w->thread, NULL);
	assert_int_equal(w->answer->kind, BX_MSG_APPROVAL_CHANGES);
	if (w->took_ms >= w->timeout_ms)
		fail_msg("approvals_wait took %lld ms: its timeout, not the "
		    "change", (long long)w->took_ms);
	return &w->answer->approval_changes;
}

static void
test_wait_wakes_on_new_and_on_end(void **state)
{
	struct bfix *f = *state;
	struct bx_approval_changes *c;
	struct waiter w;
	struct asked a;
	struct bx_msg *m;

	/* Nothing pending, nothing known: wakes when a call asks. */
	wait_start(&w, f, NULL, 0, LONG_WAIT_MS);
	ask(f, &a, "call_1");
	c = wait_end(&w);
	assert_int_equal(c->nitems, 1);
	assert_int_equal(c->items[0].approval, a.id);
	assert_string_equal(c->items[0].tool, "read_file");
	assert_string_equal(c->items[0].grant, "notes");
	assert_int_equal(c->nended, 0);
	bx_msg_free(w.answer);

	/* It is known: wakes when it is approved in Mattermost. */
	wait_start(&w, f, &a.id, 1, LONG_WAIT_MS);
	m = bridge(f, bx_msg_approve_from(a.id, OWNER, POST));
	assert_int_equal(m->kind, BX_MSG_APPROVE_RESULT);
	bx_msg_free(m);
	c = wait_end(&w);
	assert_int_equal(c->nitems, 0);
	assert_int_equal(c->nended, 1);
	assert_int_equal(c->ended[0].approval, a.id);
	assert_int_equal(c->ended[0].end, BX_END_APPROVED);
	assert_string_equal(c->ended[0].by, OWNER);
	assert_string_equal(c->ended[0].post, POST);
	assert_true(c->ended[0].has_outcome);
	assert_int_equal(c->ended[0].outcome.kind, BX_OUTCOME_ASK);
	bx_msg_free(w.answer);
	asked_done(&a, BX_STATUS_RESULT);
}

/* Answered at the terminal: the bridge learns it, with no Mattermost user. */
static void
test_wait_sees_the_terminal_answer(void **state)
{
	struct bfix *f = *state;
	struct bx_approval_changes *c;
	struct waiter w;
	struct asked a;
	struct bx_msg *m;

	ask(f, &a, "call_1");
	wait_start(&w, f, &a.id, 1, LONG_WAIT_MS);
	m = bfix_admin(f, bx_msg_refuse(a.id, "not now"));
	assert_int_equal(m->kind, BX_MSG_OK);
	bx_msg_free(m);
	c = wait_end(&w);
	assert_int_equal(c->nended, 1);
	assert_int_equal(c->ended[0].end, BX_END_REFUSED);
	assert_null(c->ended[0].by);
	assert_null(c->ended[0].post);
	assert_true(c->ended[0].has_outcome);
	assert_int_equal(c->ended[0].outcome.reason, BX_DENY_APPROVAL_REFUSED);
	bx_msg_free(w.answer);
	asked_done(&a, BX_STATUS_DENIED);
	/* The bridge's later approve is too late. */
	expect_error(bridge(f, bx_msg_approve_from(a.id, OWNER, POST)),
	    BX_CODE_NO_SUCH_APPROVAL, NULL);
}

static void
test_wait_sees_expiry_and_forgets_the_unknown(void **state)
{
	struct bfix *f = *state;
	struct bx_approval_changes *c;
	uint64_t known[2];
	struct waiter w;
	struct asked a;

	ask(f, &a, "call_1");
	known[0] = a.id;
	known[1] = 999999;	/* never pending here */
	/* An id brokerd does not know is a change at once: forgotten. */
	wait_start(&w, f, known, 2, LONG_WAIT_MS);
	c = wait_end(&w);
	assert_int_equal(c->nitems, 1);
	assert_int_equal(c->nended, 1);
	assert_int_equal(c->ended[0].approval, 999999);
	assert_int_equal(c->ended[0].end, BX_END_FORGOTTEN);
	assert_false(c->ended[0].has_outcome);
	bx_msg_free(w.answer);

	wait_start(&w, f, known, 1, LONG_WAIT_MS);
	assert_int_equal(approvals_expire(f->approvals, INT64_MAX), 1);
	c = wait_end(&w);
	assert_int_equal(c->nitems, 0);
	assert_int_equal(c->nended, 1);
	assert_int_equal(c->ended[0].end, BX_END_EXPIRED);
	assert_true(c->ended[0].has_outcome);
	assert_int_equal(c->ended[0].outcome.reason, BX_DENY_APPROVAL_EXPIRED);
	bx_msg_free(w.answer);
	asked_done(&a, BX_STATUS_DENIED);
}

/* With nothing changing, it waits its timeout out and says so unchanged. */
static void
test_wait_times_out_unchanged(void **state)
{
	struct bfix *f = *state;
	struct waiter w;
	struct asked a;
	struct bx_msg *m;

	ask(f, &a, "call_1");
	/* Duplicates in known count once. */
	wait_start(&w, f, (uint64_t[]){ a.id, a.id }, 2, 300);
	pthread_join(w.thread, NULL);
	assert_true(w.took_ms >= 300);
	assert_int_equal(w.answer->kind, BX_MSG_APPROVAL_CHANGES);
	assert_int_equal(w.answer->approval_changes.nitems, 1);
	assert_int_equal(w.answer->approval_changes.nended, 0);
	bx_msg_free(w.answer);
	m = bridge(f, bx_msg_new(BX_MSG_APPROVALS));
	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	assert_int_equal(m->approval_list.nitems, 1);
	bx_msg_free(m);
	m = bfix_admin(f, bx_msg_refuse(a.id, NULL));
	bx_msg_free(m);
	asked_done(&a, BX_STATUS_DENIED);
}

/* brokerd stopping ends a wait at once. */
static void
test_wait_ends_when_brokerd_stops(void **state)
{
	struct bfix *f = *state;
	struct bx_approval_changes *c;
	struct waiter w;

	wait_start(&w, f, NULL, 0, LONG_WAIT_MS);
	approvals_abandon_all(f->approvals);
	c = wait_end(&w);
	assert_int_equal(c->nitems, 0);
	bx_msg_free(w.answer);
}

/*
 * Every kind but approvals, approvals_wait, approve and refuse, as the
 * fixtures have each, is forbidden on bridge.sock and touches nothing.
 */
static void
test_every_other_kind_is_forbidden(void **state)
{
	struct bfix *f = *state;
	const char *root = getenv("BX_SOURCE_ROOT");
	bool seen[BX_MSG_MAX] = { false };
	char dir[512], path[1024], *buf;
	struct bx_error err;
	struct bx_msg *req;
	struct dirent *de;
	size_t len, i, forbidden = 0;
	DIR *d;

	assert_non_null(root);
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/messages", root);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		if (strstr(de->d_name, ".jsonl") == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (bx_readfile(path, 0, &buf, &len, NULL, &err) == -1)
			fail_msg("%s", err.msg);
		if (bx_msg_decode(buf, len - 1, &req, &err) == -1)
			fail_msg("%s: %s", de->d_name, err.msg);
		free(buf);
		seen[req->kind] = true;
		if (bridge_kind(req->kind)) {
			bx_msg_free(req);
			continue;
		}
		expect_error(bridge(f, req), BX_CODE_FORBIDDEN,
		    "bridge.sock takes only");
		forbidden++;
	}
	closedir(d);
	for (i = 0; i < BX_MSG_MAX; i++)
		if (!seen[i])
			fail_msg("no fixture for kind %s", bx_msg_kind_name(i));
	assert_true(forbidden >= BX_MSG_MAX - 4);
	for (i = 0; i < BX_MSG_MAX; i++)
		assert_int_equal(bridge_kind(i), i == BX_MSG_APPROVALS ||
		    i == BX_MSG_APPROVALS_WAIT || i == BX_MSG_APPROVE ||
		    i == BX_MSG_REFUSE);
	assert_int_equal(recording_count(&f->rec), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_approve_from_mattermost_records_by_and_post, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_refuse_from_mattermost_records_by_and_post, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_terminal_keeps_bxctl,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_answers_must_say_where_they_come_from, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_first_answer_wins, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(
		    test_wait_wakes_on_new_and_on_end, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_wait_sees_the_terminal_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_wait_sees_expiry_and_forgets_the_unknown, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_wait_times_out_unchanged,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_wait_ends_when_brokerd_stops, setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_every_other_kind_is_forbidden, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
