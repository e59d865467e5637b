/*
 * test-admin-console.c: the owner's console on admin.sock, answered
 * in-process (admin_console.c, admin_explain.c): status; the grant list
 * with its problems; sessions counted from the audit log and the state
 * files, a broken log refused naming where; explain, brokerd
 * explain's reasoning with the session's real taint, which writes no
 * record, raises no taint and runs nothing; and an answer too large for
 * a frame answered with an error that says so.
 */
#include <sys/socket.h>

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
#include "proto/frame.h"

static int
setup(void **state)
{
	*state = bfix_new(900000, NULL);
	return 0;
}

static int
teardown(void **state)
{
	bfix_free(*state);
	return 0;
}

static void
test_console_kinds_are_admin_kinds(void **state)
{
	(void)state;
	assert_true(admin_kind(BX_MSG_SESSIONS));
	assert_true(admin_kind(BX_MSG_EXPLAIN));
	assert_true(admin_kind(BX_MSG_STATUS));
	assert_true(admin_kind(BX_MSG_LIST_GRANTS));
	/* Answers are not requests. */
	assert_false(admin_kind(BX_MSG_SESSION_LIST));
	assert_false(admin_kind(BX_MSG_EXPLANATION));
	assert_false(admin_kind(BX_MSG_BROKER_STATUS));
	assert_false(admin_kind(BX_MSG_GRANT_LIST));
}

static void
test_status(void **state)
{
	struct bfix *f = *state;
	int64_t started = bfix_now(f);
	struct bx_msg *m;

	bfix_set_now(f, started + 3600000);
	m = bfix_admin(f, bx_msg_new(BX_MSG_STATUS));
	assert_int_equal(m->kind, BX_MSG_BROKER_STATUS);
	assert_string_equal(m->broker_status.version, BOXMAKER_VERSION);
	assert_string_equal(m->broker_status.runtime, "refuse");
	assert_int_equal(m->broker_status.started, started);
	assert_int_equal(m->broker_status.now, started + 3600000);
	bx_msg_free(m);
}

static void
test_list_grants(void **state)
{
	struct bfix *f = *state;
	const struct bx_grant_info *g;
	struct bx_msg *m;

	bfix_grant(f, "notes", "read_file", "ask", "secret", "private", false,
	    "paths = [\"/notes\", \"/docs\"]");
	bfix_grant(f, "web", "http_fetch", "auto", "public", "public", true,
	    "hosts = [\"*.example.org\"]");
	m = bfix_admin(f, bx_msg_new(BX_MSG_LIST_GRANTS));
	assert_int_equal(m->kind, BX_MSG_GRANT_LIST);
	assert_int_equal(m->grant_list.ngrants, 2);
	assert_int_equal(m->grant_list.nproblems, 0);
	g = &m->grant_list.grants[0];
	assert_string_equal(g->id, "notes");
	assert_string_equal(g->tool, "read_file");
	assert_string_equal(g->mode, "ask");
	assert_int_equal(g->max_taint, BX_CLASS_SECRET);
	assert_int_equal(g->result_class, BX_CLASS_PRIVATE);
	assert_int_equal(g->npaths, 2);
	assert_string_equal(g->paths[1], "/docs");
	g = &m->grant_list.grants[1];
	assert_string_equal(g->mode, "auto");
	assert_true(g->untrusted);
	assert_int_equal(g->nhosts, 1);
	assert_string_equal(g->hosts[0], "*.example.org");
	bx_msg_free(m);

	/* An invalid file: listed as a problem with its line. */
	fixture_text(f->grants, "typo.toml", "tool = \"read_file\"\n"
	    "colour = \"red\"\n");
	m = bfix_admin(f, bx_msg_new(BX_MSG_LIST_GRANTS));
	assert_int_equal(m->grant_list.ngrants, 2);
	assert_true(m->grant_list.nproblems >= 1);
	assert_non_null(strstr(m->grant_list.problems[0].file, "typo.toml"));
	bx_msg_free(m);
}

/* One call that no grant covers, answered denied. */
static void
denied_call(struct bfix *f, const char *session, const char *call)
{
	struct bpeer p;

	bpeer_init(&p);
	assert_int_equal(bfix_call(f, &p, session, call, "read_file",
	    "{\"path\":\"/nothing/a\"}"), 0);
	bpeer_free(&p);
}

static void
test_sessions(void **state)
{
	struct bfix *f = *state;
	const struct bx_session_info *s;
	struct state_value secret = { BX_CLASS_SECRET, true };
	struct bx_error err;
	struct bx_msg *m;
	int64_t t0 = bfix_now(f);

	m = bfix_admin(f, bx_msg_new(BX_MSG_SESSIONS));
	assert_int_equal(m->kind, BX_MSG_SESSION_LIST);
	assert_int_equal(m->session_list.total, 0);
	bx_msg_free(m);

	denied_call(f, "s-b", "c1");
	bfix_set_now(f, t0 + 1000);
	denied_call(f, "s-a", "c1");
	bfix_set_now(f, t0 + 2000);
	denied_call(f, "s-b", "c2");
	/* A session with a state file and no call. */
	assert_int_equal(state_write(f->state, "s-c", &secret, &err), 0);
	m = bfix_admin(f, bx_msg_new(BX_MSG_SESSIONS));
	assert_int_equal(m->kind, BX_MSG_SESSION_LIST);
	assert_int_equal(m->session_list.total, 3);
	assert_int_equal(m->session_list.nitems, 3);
	/* Never called first, then by last call. */
	s = &m->session_list.items[0];
	assert_string_equal(s->session, "s-c");
	assert_int_equal(s->calls, 0);
	assert_false(s->has_last_call);
	assert_int_equal(s->taint, BX_CLASS_SECRET);
	assert_true(s->untrusted);
	s = &m->session_list.items[1];
	assert_string_equal(s->session, "s-a");
	assert_int_equal(s->calls, 1);
	assert_int_equal(s->last_call, t0 + 1000);
	assert_int_equal(s->taint, BX_CLASS_PRIVATE);
	s = &m->session_list.items[2];
	assert_string_equal(s->session, "s-b");
	assert_int_equal(s->calls, 2);
	assert_int_equal(s->last_call, t0 + 2000);
	bx_msg_free(m);

	/* A damaged state file is shown at its worst: it denies every call. */
	fixture_text(f->home, "broker/sessions/s-a.json", "{\"taint\":");
	m = bfix_admin(f, bx_msg_new(BX_MSG_SESSIONS));
	assert_int_equal(m->session_list.items[1].taint, BX_CLASS_SECRET);
	assert_true(m->session_list.items[1].untrusted);
	bx_msg_free(m);
}

/* A log that does not verify gives no counts but says where it breaks. */
static void
test_sessions_on_a_broken_log(void **state)
{
	struct bfix *f = *state;
	char name[64], path[4096];
	struct bx_msg *m;
	FILE *fp;

	denied_call(f, "s-a", "c1");
	denied_call(f, "s-a", "c2");
	bx_time_date(bfix_now(f), name);
	snprintf(path, sizeof(path), "%s/audit/%s.jsonl", f->home, name);
	assert_non_null(fp = fopen(path, "r+"));
	assert_int_equal(fseek(fp, 20, SEEK_SET), 0);
	assert_int_equal(fputc('X', fp), 'X');
	fclose(fp);
	m = bfix_admin(f, bx_msg_new(BX_MSG_SESSIONS));
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_UNAVAILABLE);
	snprintf(path, sizeof(path), "the audit log does not verify at "
	    "%s.jsonl:1: ", name);
	assert_non_null(strstr(m->error.message, path));
	assert_non_null(strstr(m->error.message,
	    "docs/runbook.md#audit-chain-broken"));
	bx_msg_free(m);
}

static struct bx_msg *
explain(struct bfix *f, const char *session, const char *tool,
    const char *args)
{
	struct bx_msg *m = bfix_admin(f, bx_msg_explain(session, tool, args));

	assert_int_equal(m->kind, BX_MSG_EXPLANATION);
	return m;
}

static void
test_explain(void **state)
{
	struct bfix *f = *state;
	struct state_value secret = { BX_CLASS_SECRET, false };
	const struct bx_explanation *x;
	struct bx_error err;
	struct bx_msg *m;

	bfix_grant(f, "notes", "read_file", "ask", "secret", "private", false,
	    "paths = [\"/notes\"]");
	bfix_grant(f, "public-notes", "read_file", "auto", "private", "public",
	    false, "paths = [\"/notes\"]");
	bfix_grant(f, "docs", "read_file", "auto", "secret", "public", false,
	    "paths = [\"/docs\"]");
	m = explain(f, "s1", "read_file", "{\"path\":\"/notes/a.md\"}");
	x = &m->explanation;
	assert_string_equal(x->session, "s1");
	assert_int_equal(x->taint, BX_CLASS_PRIVATE);
	assert_int_equal(x->now, bfix_now(f));
	assert_int_equal(x->outcome.kind, BX_OUTCOME_ASK);
	assert_true(x->has_grant);
	assert_string_equal(x->grant.id, "notes");
	assert_string_equal(x->grant.mode, "ask");
	assert_string_equal(x->grant.matched_path, "/notes");
	assert_null(x->detail);
	assert_int_equal(x->ncandidates, 3);
	assert_string_equal(x->candidates[0].grant, "docs");
	assert_string_equal(x->candidates[0].verdict, "not_covered");
	assert_string_equal(x->candidates[0].why, "ruled out: path "
	    "/notes/a.md is not inside its paths [/docs]");
	assert_string_equal(x->candidates[1].verdict, "matched");
	assert_string_equal(x->candidates[1].why, "matched");
	assert_string_equal(x->candidates[2].verdict, "outranked");
	bx_msg_free(m);

	/* The session's real taint: secret rules public-notes out. */
	assert_int_equal(state_write(f->state, "s2", &secret, &err), 0);
	m = explain(f, "s2", "read_file", "{\"path\":\"/notes/a.md\"}");
	x = &m->explanation;
	assert_int_equal(x->taint, BX_CLASS_SECRET);
	assert_string_equal(x->candidates[2].verdict, "taint_too_high");
	assert_string_equal(x->candidates[2].why, "ruled out: the session's "
	    "taint secret is above its max_taint private");
	bx_msg_free(m);

	/* Bad arguments: the detail says why. */
	m = explain(f, "s1", "read_file", "{\"path\":\"notes\"}");
	assert_int_equal(m->explanation.outcome.kind, BX_OUTCOME_DENIED);
	assert_int_equal(m->explanation.outcome.reason,
	    BX_DENY_INVALID_ARGUMENTS);
	assert_non_null(m->explanation.detail);
	assert_false(m->explanation.has_grant);
	bx_msg_free(m);

	/* Nothing was written, raised or run. */
	assert_int_equal(recording_count(&f->rec), 0);
	assert_false(bfix_audit_contains(f, "read_file"));
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_PRIVATE);
}

static void
test_explain_refusals(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;

	/* A damaged state file: state_unreadable, as a call would be. */
	fixture_text(f->home, "broker/sessions/s3.json", "not json");
	m = explain(f, "s3", "read_file", "{\"path\":\"/notes/a.md\"}");
	assert_int_equal(m->explanation.outcome.reason,
	    BX_DENY_STATE_UNREADABLE);
	bx_msg_free(m);

	/* An invalid grant file: grants_invalid, with its problems. */
	fixture_text(f->grants, "Bad.toml", "tool = \"read_file\"\n");
	m = explain(f, "s1", "read_file", "{\"path\":\"/notes/a.md\"}");
	assert_int_equal(m->explanation.outcome.reason, BX_DENY_GRANTS_INVALID);
	assert_true(m->explanation.nproblems >= 1);
	assert_non_null(strstr(m->explanation.problems[0].file, "Bad.toml"));
	bx_msg_free(m);
}

/*
 * An answer past the 1 MiB frame (a grant list of 60 grants of 256 long
 * paths each) is still answered: error internal, saying why.
 */
static void
test_an_answer_too_large_for_a_frame(void **state)
{
	struct bfix *f = *state;
	char *paths, id[32], one[160];
	struct bx_frame_reader r;
	struct bx_error err;
	struct bx_msg *req, *m;
	const char *line;
	size_t len;
	int sv[2], i, j;

	assert_non_null(paths = malloc(256 * sizeof(one) + 512));
	strcpy(paths, "tool = \"read_file\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"" BFIX_LATER "\"\n\n[constraints]\npaths = [");
	for (j = 0; j < 256; j++) {
		snprintf(one, sizeof(one), "%s\"/%0100d/%d\"", j > 0 ? ", " :
		    "", 0, j);
		strcat(paths, one);
	}
	strcat(paths, "]\n");
	for (i = 0; i < 60; i++) {
		snprintf(id, sizeof(id), "g%d.toml", i);
		fixture_text(f->grants, id, paths);
	}
	free(paths);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	req = bx_msg_new(BX_MSG_LIST_GRANTS);
	assert_int_equal(admin_handle_fd(f->broker, sv[0], req, 10000, &err),
	    0);
	bx_msg_free(req);
	bx_frame_reader_init(&r, sv[1]);
	assert_int_equal(bx_frame_read(&r, 10000, &line, &len, &err),
	    BX_FRAME_OK);
	assert_int_equal(bx_msg_decode(line, len, &m, &err), 0);
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_INTERNAL);
	assert_non_null(strstr(m->error.message, "more than 1048576"));
	bx_msg_free(m);
	bx_frame_reader_free(&r);
	close(sv[0]);
	close(sv[1]);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_console_kinds_are_admin_kinds),
		T(test_status),
		T(test_list_grants),
		T(test_sessions),
		T(test_sessions_on_a_broken_log),
		T(test_explain),
		T(test_explain_refusals),
		T(test_an_answer_too_large_for_a_frame),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
