/*
 * test-broker.c: one tool request from decision to answer (design section
 * 5, "Write order"; baseline section 6), driven in-process through
 * broker_call with the recording runtime. Audit before action: a failing
 * audit writer runs nothing, a failing state or Result write withholds the
 * content.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "grants-fixture.h"
#include "proto/sha256.h"

#define NOTE	"the note: SECRET-CONTENT-42"

static int
setup(void **state)
{
	*state = bfix_new(900000, NULL);
	return 0;
}

static int
setup_refusing(void **state)
{
	*state = bfix_new(900000, &runner_refusing);
	return 0;
}

static int
teardown(void **state)
{
	bfix_free(*state);
	return 0;
}

/* A read_file grant on /notes whose results are secret and untrusted. */
static void
secret_notes(struct bfix *f, const char *mode)
{
	bfix_grant(f, "notes", "read_file", mode, "secret", "secret", true,
	    "paths = [\"/notes\"]");
}

/* The one final frame of a call, which must have status st. */
static struct bx_msg *
final_frame(struct bpeer *p, enum bx_status st)
{
	struct bx_msg *m;

	assert_int_equal(p->nframes, 1);
	m = bpeer_frame(p, 0);
	assert_int_equal(m->kind, BX_MSG_TOOL_RESPONSE);
	assert_true(bx_msg_is_final(m));
	if (m->tool_response.status != st)
		fail_msg("status %s, want %s: %s",
		    bx_status_name(m->tool_response.status),
		    bx_status_name(st), p->frames[0]);
	return m;
}

static void
expect_denied(struct bpeer *p, enum bx_deny reason)
{
	struct bx_msg *m = final_frame(p, BX_STATUS_DENIED);

	assert_string_equal(bx_deny_name(m->tool_response.reason),
	    bx_deny_name(reason));
	bx_msg_free(m);
}

static void
expect_failed(struct bpeer *p, const char *message)
{
	struct bx_msg *m = final_frame(p, BX_STATUS_FAILED);

	assert_string_equal(m->tool_response.message, message);
	bx_msg_free(m);
}

static void
expect_hash(const struct bx_ev_result *r, const char *text)
{
	struct bx_hash h;
	struct bx_error err;

	assert_int_equal(r->bytes, strlen(text));
	assert_int_equal(bx_sha256(text, strlen(text), &h, &err), 0);
	assert_true(bx_hash_equal(&h, &r->sha256));
}

static void
test_allowed_call_records_decision_then_result(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bx_msg *m;
	struct bpeer p;
	struct state_value st;
	size_t n;

	secret_notes(f, "auto");
	snprintf(f->rec.text, sizeof(f->rec.text), "%s", NOTE);
	bpeer_init(&p);
	assert_int_equal(bfix_call(f, &p, "s1", "c1", "read_file",
	    "{\"path\":\"/notes/a.md\"}"), 0);
	m = final_frame(&p, BX_STATUS_RESULT);
	assert_string_equal(m->tool_response.content, NOTE);
	assert_int_equal(m->tool_response.class, BX_CLASS_SECRET);
	assert_true(m->tool_response.untrusted);
	bx_msg_free(m);
	assert_int_equal(recording_count(&f->rec), 1);

	n = bfix_records(f, &r);
	assert_int_equal(n, 2);
	assert_int_equal(r[0].event.type, BX_AUDIT_DECISION);
	assert_string_equal(r[0].event.decision.session, "s1");
	assert_string_equal(r[0].event.decision.call, "c1");
	assert_string_equal(r[0].event.decision.tool, "read_file");
	assert_string_equal(r[0].event.decision.arguments,
	    "{\"path\":\"/notes/a.md\"}");
	assert_int_equal(r[0].event.decision.outcome.kind, BX_OUTCOME_ALLOWED);
	assert_string_equal(r[0].event.decision.grant, "notes");
	assert_true(r[0].event.decision.has_grant_sha256);
	assert_int_equal(r[0].event.decision.taint, BX_CLASS_PRIVATE);
	assert_false(r[0].event.decision.untrusted);
	assert_int_equal(r[1].event.type, BX_AUDIT_RESULT);
	assert_string_equal(r[1].event.result.call, "c1");
	assert_int_equal(r[1].event.result.decision, r[0].seq);
	assert_int_equal(r[1].event.result.status, BX_RESULT_STATUS_RESULT);
	assert_int_equal(r[1].event.result.class, BX_CLASS_SECRET);
	assert_true(r[1].event.result.untrusted);
	assert_false(r[1].event.result.truncated);
	assert_int_equal(r[1].event.result.taint_after, BX_CLASS_SECRET);
	expect_hash(&r[1].event.result, NOTE);
	bfix_records_free(r, n);
	/* Recorded by hash and size, never content. */
	assert_false(bfix_audit_contains(f, "SECRET-CONTENT-42"));
	st = bfix_state(f, "s1");
	assert_int_equal(st.taint, BX_CLASS_SECRET);
	assert_true(st.untrusted);
	bpeer_free(&p);
}

static void
test_no_grant_is_one_decision_and_nothing_else(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bpeer p;
	size_t n;

	bpeer_init(&p);
	assert_int_equal(bfix_call(f, &p, "s1", "c1", "read_file",
	    "{\"path\":\"/notes/a.md\"}"), 0);
	expect_denied(&p, BX_DENY_NO_GRANT);
	assert_int_equal(recording_count(&f->rec), 0);
	n = bfix_records(f, &r);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].event.decision.outcome.kind, BX_OUTCOME_DENIED);
	assert_int_equal(r[0].event.decision.outcome.reason, BX_DENY_NO_GRANT);
	assert_null(r[0].event.decision.grant);
	assert_false(r[0].event.decision.has_grant_sha256);
	bfix_records_free(r, n);
	assert_int_equal(f->state_writes, 0);
	bpeer_free(&p);
}

static void
test_unknown_tool_is_invalid_arguments(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bpeer p;
	size_t n;

	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "echo", "{\"text\":\"hi\"}");
	expect_denied(&p, BX_DENY_INVALID_ARGUMENTS);
	n = bfix_records(f, &r);
	assert_int_equal(n, 1);
	assert_string_equal(r[0].event.decision.tool, "echo");
	bfix_records_free(r, n);
	bpeer_free(&p);
}

static void
test_unavailable_runner_fails_and_leaves_taint(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bpeer p;
	size_t n;

	secret_notes(f, "auto");
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	expect_failed(&p, "no tool runs: the runner kind is "
	    "refuse");
	n = bfix_records(f, &r);
	assert_int_equal(n, 2);
	assert_int_equal(r[1].event.result.status, BX_RESULT_STATUS_FAILED);
	assert_int_equal(r[1].event.result.taint_after, BX_CLASS_PRIVATE);
	expect_hash(&r[1].event.result, "no tool runs: the runner kind "
	    "is refuse");
	bfix_records_free(r, n);
	/* Nothing was raised, so there was nothing to write. */
	assert_int_equal(f->state_writes, 0);
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_PRIVATE);
	assert_false(bfix_state(f, "s1").untrusted);
	bpeer_free(&p);
}

static void
test_tool_failure_raises_taint_like_a_result(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bpeer p;
	size_t n;

	secret_notes(f, "auto");
	f->rec.status = RUN_FAILED;
	snprintf(f->rec.text, sizeof(f->rec.text), "cat: partial output");
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	expect_failed(&p, "cat: partial output");
	n = bfix_records(f, &r);
	assert_int_equal(r[1].event.result.status, BX_RESULT_STATUS_FAILED);
	assert_int_equal(r[1].event.result.class, BX_CLASS_SECRET);
	assert_int_equal(r[1].event.result.taint_after, BX_CLASS_SECRET);
	bfix_records_free(r, n);
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_SECRET);
	bpeer_free(&p);
}

static void
test_failing_audit_writer_runs_nothing(void **state)
{
	struct bfix *f = *state;
	struct bpeer p, q;

	secret_notes(f, "auto");
	bfix_grant(f, "ask-scratch", "read_file", "ask", "secret", "private",
	    false, "paths = [\"/scratch\"]");
	f->audit_fail = true;
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	expect_denied(&p, BX_DENY_AUDIT_UNAVAILABLE);
	/* An ask whose Decision is not on disk is not even pending. */
	bpeer_init(&q);
	bfix_call(f, &q, "s1", "c2", "read_file", "{\"path\":\"/scratch/b\"}");
	expect_denied(&q, BX_DENY_AUDIT_UNAVAILABLE);
	assert_int_equal(recording_count(&f->rec), 0);
	assert_int_equal(approvals_pending(f->approvals), 0);
	assert_int_equal(f->state_writes, 0);
	assert_true(bfix_logged(f, "see docs/runbook.md#audit-unavailable"));
	bpeer_free(&p);
	bpeer_free(&q);
}

static void
test_failing_result_write_withholds_the_content(void **state)
{
	struct bfix *f = *state;
	struct bpeer p;

	secret_notes(f, "auto");
	snprintf(f->rec.text, sizeof(f->rec.text), "%s", NOTE);
	f->audit_fail_after = 1;	/* the Decision, not the Result */
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	expect_failed(&p, BROKER_UNRECORDED);
	assert_false(bpeer_saw(&p, "SECRET-CONTENT-42"));
	assert_int_equal(recording_count(&f->rec), 1);
	/* The raised taint is on disk even so. */
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_SECRET);
	bpeer_free(&p);
}

static void
test_failing_state_writer_withholds_the_content(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bpeer p;
	size_t n;

	secret_notes(f, "auto");
	snprintf(f->rec.text, sizeof(f->rec.text), "%s", NOTE);
	f->state_fail = true;
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	expect_failed(&p, BROKER_UNRECORDED);
	assert_false(bpeer_saw(&p, "SECRET-CONTENT-42"));
	assert_true(bfix_logged(f, "see docs/runbook.md#broker-state-damaged"));
	n = bfix_records(f, &r);
	assert_int_equal(n, 2);
	assert_int_equal(r[1].event.result.status, BX_RESULT_STATUS_FAILED);
	expect_hash(&r[1].event.result, BROKER_UNRECORDED);
	bfix_records_free(r, n);
	assert_false(bfix_audit_contains(f, "SECRET-CONTENT-42"));
	bpeer_free(&p);
}

static void
test_damaged_state_denies_only_that_session(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct bpeer p, q;
	char path[4096];
	FILE *fp;
	size_t n;

	secret_notes(f, "auto");
	snprintf(path, sizeof(path), "%s/broker/sessions/s1.json", f->home);
	assert_non_null(fp = fopen(path, "w"));
	fputs("{\"taint\":", fp);
	fclose(fp);
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	expect_denied(&p, BX_DENY_STATE_UNREADABLE);
	assert_true(bfix_logged(f, "s1.json"));
	assert_true(bfix_logged(f, "see docs/runbook.md#broker-state-damaged"));
	bpeer_init(&q);
	bfix_call(f, &q, "s2", "c2", "read_file", "{\"path\":\"/notes/a\"}");
	bx_msg_free(final_frame(&q, BX_STATUS_RESULT));
	n = bfix_records(f, &r);
	/* The damaged session is recorded at the highest it could be. */
	assert_int_equal(r[0].event.decision.taint, BX_CLASS_SECRET);
	assert_true(r[0].event.decision.untrusted);
	assert_int_equal(r[0].event.decision.outcome.reason,
	    BX_DENY_STATE_UNREADABLE);
	bfix_records_free(r, n);
	assert_int_equal(recording_count(&f->rec), 1);
	bpeer_free(&p);
	bpeer_free(&q);
}

static size_t
count_logged(struct bfix *f, const char *text)
{
	size_t i, n = 0;

	for (i = 0; i < f->nlines; i++)
		n += strstr(f->lines[i], text) != NULL;
	return n;
}

static void
test_invalid_grants_deny_and_print_once(void **state)
{
	struct bfix *f = *state;
	struct bpeer p, q, r;
	size_t once;

	secret_notes(f, "auto");
	fixture_text(f->grants, "typo.toml", "tool = \"read_file\"\nmode = 1\n");
	bpeer_init(&p);
	bpeer_init(&q);
	bpeer_init(&r);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/notes/a\"}");
	once = count_logged(f, "typo.toml");
	assert_true(once > 0);
	assert_int_equal(count_logged(f, "see docs/runbook.md#grants-invalid"),
	    once);
	bfix_call(f, &q, "s1", "c2", "read_file", "{\"path\":\"/notes/a\"}");
	expect_denied(&p, BX_DENY_GRANTS_INVALID);
	expect_denied(&q, BX_DENY_GRANTS_INVALID);
	assert_int_equal(recording_count(&f->rec), 0);
	/* The same problems are not printed again; a new set is. */
	assert_int_equal(count_logged(f, "typo.toml"), once);
	fixture_text(f->grants, "Bad.toml", "tool = \"read_file\"\n");
	bfix_call(f, &r, "s1", "c3", "read_file", "{\"path\":\"/notes/a\"}");
	expect_denied(&r, BX_DENY_GRANTS_INVALID);
	assert_true(bfix_logged(f, "Bad.toml"));
	assert_int_equal(count_logged(f, "typo.toml"), 2 * once);
	bpeer_free(&p);
	bpeer_free(&q);
	bpeer_free(&r);
}

/* A runtime that holds each run until the test lets it go. */
struct gate {
	pthread_mutex_t	 lock;
	pthread_cond_t	 changed;
	int		 running;
	bool		 open;
};

static int
gated_run(void *ctx, const struct run_spec *spec, struct run_result *ret,
    struct bx_error *err)
{
	struct gate *g = ctx;

	(void)spec;
	(void)err;
	pthread_mutex_lock(&g->lock);
	g->running++;
	pthread_cond_broadcast(&g->changed);
	while (!g->open)
		pthread_cond_wait(&g->changed, &g->lock);
	pthread_mutex_unlock(&g->lock);
	ret->rr_status = RUN_OK;
	ret->rr_text = strdup("done");
	ret->rr_truncated = false;
	return 0;
}

static void
test_calls_of_one_session_are_serialized(void **state)
{
	struct gate g = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER,
	    0, false };
	struct runtime rt = { gated_run, &g };
	struct bfix *f = bfix_new(900000, &rt);
	struct bx_audit_record *r;
	struct bcall *first, *second;
	struct bpeer p1, p2, p3;
	size_t n;

	(void)state;
	bfix_grant(f, "notes", "read_file", "auto", "secret", "private",
	    false, "paths = [\"/notes\"]");
	bfix_grant(f, "date", "shell", "deny", "secret", "private", false, "");
	bpeer_init(&p1);
	bpeer_init(&p2);
	bpeer_init(&p3);
	first = bfix_call_async(f, &p1, "s1", "c1", "read_file",
	    "{\"path\":\"/notes/a\"}");
	pthread_mutex_lock(&g.lock);
	while (g.running == 0)
		pthread_cond_wait(&g.changed, &g.lock);
	pthread_mutex_unlock(&g.lock);
	second = bfix_call_async(f, &p2, "s1", "c2", "read_file",
	    "{\"path\":\"/notes/b\"}");
	/* Another session is not held up while s1 runs. */
	bfix_call(f, &p3, "s2", "c3", "shell", "{\"command\":\"date\"}");
	expect_denied(&p3, BX_DENY_DENIED_BY_GRANT);
	usleep(100 * 1000);
	pthread_mutex_lock(&g.lock);
	g.open = true;
	pthread_cond_broadcast(&g.changed);
	pthread_mutex_unlock(&g.lock);
	bfix_join(first);
	bfix_join(second);
	n = bfix_records(f, &r);
	assert_int_equal(n, 5);
	/* c1's Result comes before c2's Decision. */
	assert_string_equal(r[0].event.decision.call, "c1");
	assert_string_equal(r[1].event.decision.call, "c3");
	assert_int_equal(r[2].event.type, BX_AUDIT_RESULT);
	assert_string_equal(r[2].event.result.call, "c1");
	assert_int_equal(r[3].event.type, BX_AUDIT_DECISION);
	assert_string_equal(r[3].event.decision.call, "c2");
	assert_string_equal(r[4].event.result.call, "c2");
	bfix_records_free(r, n);
	bpeer_free(&p1);
	bpeer_free(&p2);
	bpeer_free(&p3);
	bfix_free(f);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_allowed_call_records_decision_then_result),
		T(test_no_grant_is_one_decision_and_nothing_else),
		T(test_unknown_tool_is_invalid_arguments),
		cmocka_unit_test_setup_teardown(
		    test_unavailable_runner_fails_and_leaves_taint,
		    setup_refusing, teardown),
		T(test_tool_failure_raises_taint_like_a_result),
		T(test_failing_audit_writer_runs_nothing),
		T(test_failing_result_write_withholds_the_content),
		T(test_failing_state_writer_withholds_the_content),
		T(test_damaged_state_denies_only_that_session),
		T(test_invalid_grants_deny_and_print_once),
		cmocka_unit_test(test_calls_of_one_session_are_serialized),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
