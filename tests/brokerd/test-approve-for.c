/*
 * test-approve-for.c: `bxctl approve ID --for DURATION` (bxctl's
 * approve_for.c) against a whole broker in one process: the real decision
 * path, audit log and approvals table, the recording runtime, and the
 * fixture's settable clock. approve_for reaches brokerd through a port
 * that calls admin_handle(), as admin.sock would.
 *
 * The grant written; the next identical call allowed without asking and
 * recorded with that grant's id and hash; the grant expired after its
 * time; a shell or write_file approval refused and left pending; an http_fetch host;
 * an expiry capped by the grant that asked; a name already taken and a
 * grants directory that cannot be written, each leaving nothing behind
 * and the call pending; a re-decision that denies and an approval that
 * vanished, each taking the grant back.
 */
#include <sys/stat.h>
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "bxctl/grants/approve_for.h"
#include "grants-fixture.h"
#include "proto/sha256.h"

#define HOUR_MS		(3600LL * 1000)
#define NOTES_ARGS	"{\"path\":\"/notes/a \\\"b\\\".md\"}"
#define NOTES_PATH	"/notes/a \"b\".md"

/* The port: admin_handle on the fixture's broker, and a hook before approve. */
struct port_ctx {
	struct bfix	*pc_fix;
	void		(*pc_before_approve)(struct bfix *, uint64_t id);
};

static int
port_call(void *ctx, const struct bx_msg *req, enum bx_msg_kind want,
    struct bx_msg **ret, struct bx_error *err)
{
	struct port_ctx *pc = ctx;
	struct bx_msg *answer = NULL;

	if (req->kind == BX_MSG_APPROVE && pc->pc_before_approve != NULL)
		pc->pc_before_approve(pc->pc_fix, req->approve.approval);
	if (admin_handle(pc->pc_fix->broker, req, &answer, err) == -1)
		return -1;
	if (answer->kind == BX_MSG_ERROR) {
		bx_fail(err, "brokerd answered error %s: %s",
		    bx_code_name(answer->error.code), answer->error.message);
		bx_msg_free(answer);
		return -1;
	}
	assert_int_equal(answer->kind, want);
	*ret = answer;
	return 0;
}

/* A call that waits for approval: its thread, peer and approval id. */
struct asked {
	struct bpeer	 p;
	struct bcall	*call;
	uint64_t	 id;
};

static void
ask_call(struct bfix *f, struct asked *a, const char *call,
    const char *tool, const char *args)
{
	struct bx_msg *m;

	bpeer_init(&a->p);
	a->call = bfix_call_async(f, &a->p, "s1", call, tool, args);
	bpeer_wait(&a->p, 1);
	m = bpeer_frame(&a->p, 0);
	assert_int_equal(m->tool_response.status, BX_STATUS_PENDING_APPROVAL);
	a->id = m->tool_response.approval;
	bx_msg_free(m);
}

/* Waits for the call's end: its final frame's status. */
static enum bx_status
finish(struct asked *a)
{
	struct bx_msg *m;
	enum bx_status st;

	bfix_join(a->call);
	m = bpeer_frame(&a->p, a->p.nframes - 1);
	st = m->tool_response.status;
	bx_msg_free(m);
	bpeer_free(&a->p);
	return st;
}

/* Answers a call still waiting with a refusal, so its thread ends. */
static void
refuse(struct bfix *f, struct asked *a)
{
	bx_msg_free(bfix_admin(f, bx_msg_refuse(a->id, NULL)));
	assert_int_equal(finish(a), BX_STATUS_DENIED);
}

/* One call run to its end; the status of its only frame. */
static enum bx_status
call_once(struct bfix *f, const char *call, const char *tool,
    const char *args)
{
	struct bpeer p;
	struct bx_msg *m;
	enum bx_status st;

	bpeer_init(&p);
	bfix_call(f, &p, "s1", call, tool, args);
	assert_int_equal(p.nframes, 1);
	m = bpeer_frame(&p, 0);
	st = m->tool_response.status;
	bx_msg_free(m);
	bpeer_free(&p);
	return st;
}

static int
run(struct bfix *f, struct port_ctx *pc, uint64_t id, int64_t for_ms,
    struct approve_for_result *r, struct bx_error *err)
{
	struct approve_port port = { port_call, pc };
	struct approve_for af = { id, bfix_now(f), for_ms, f->grants };

	pc->pc_fix = f;
	return approve_for(&port, &af, r, err);
}

/* The bytes of grants/<id>.toml, or NULL if there is none. */
static char *
grant_bytes(struct bfix *f, const char *id, size_t *ret_len)
{
	char path[4096], *buf;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.toml", f->grants, id);
	if ((fp = fopen(path, "r")) == NULL)
		return NULL;
	assert_non_null(buf = calloc(1, 65536));
	*ret_len = fread(buf, 1, 65535, fp);
	fclose(fp);
	return buf;
}

/* How many entries the grants directory holds, . and .. aside. */
static size_t
entries(struct bfix *f)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	assert_non_null(d = opendir(f->grants));
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 && strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/* Whether brokerd still lists approval id. */
static bool
pending(struct bfix *f, uint64_t id)
{
	struct bx_msg *l = bfix_admin(f, bx_msg_new(BX_MSG_APPROVALS));
	bool found = false;
	size_t i;

	for (i = 0; i < l->approval_list.nitems; i++)
		found |= l->approval_list.items[i].approval == id;
	bx_msg_free(l);
	return found;
}

/* The last Decision record in the log. */
static void
last_decision(struct bfix *f, char *grant, size_t size, struct bx_hash *h)
{
	struct bx_audit_record *r;
	size_t i, n = bfix_records(f, &r);

	for (i = n; i-- > 0;)
		if (r[i].event.type == BX_AUDIT_DECISION)
			break;
	assert_true(i < n);
	assert_int_equal(r[i].event.decision.outcome.kind, BX_OUTCOME_ALLOWED);
	assert_non_null(r[i].event.decision.grant);
	snprintf(grant, size, "%s", r[i].event.decision.grant);
	assert_true(r[i].event.decision.has_grant_sha256);
	*h = r[i].event.decision.grant_sha256;
	bfix_records_free(r, n);
}

static int
setup(void **state)
{
	struct bfix *f = bfix_new(900000, NULL);

	bfix_grant(f, "notes", "read_file", "ask", "secret", "private", true,
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
test_grant_written_and_used(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct bx_hash want, got;
	struct asked a;
	char grant[80], expect[512], *bytes;
	size_t len;

	ask_call(f, &a, "c1", "read_file", NOTES_ARGS);
	if (run(f, &pc, a.id, HOUR_MS, &r, &err) == -1)
		fail_msg("approve_for: %s", err.msg);
	assert_int_equal(finish(&a), BX_STATUS_RESULT);
	assert_true(r.afr_kept);
	assert_false(r.afr_capped);
	assert_int_not_equal(r.afr_outcome.kind, BX_OUTCOME_DENIED);
	assert_int_equal(r.afr_expires, bfix_now(f) + HOUR_MS);
	snprintf(expect, sizeof(expect), "approved-read-file-%llu",
	    (unsigned long long)a.id);
	assert_string_equal(r.afr_grant, expect);

	/* The file: the exact path, auto, the asking grant's classes. */
	assert_non_null(bytes = grant_bytes(f, r.afr_grant, &len));
	snprintf(expect, sizeof(expect), "approval %llu, asked by grant notes",
	    (unsigned long long)a.id);
	assert_non_null(strstr(bytes, expect));
	assert_non_null(strstr(bytes, "\ntool = \"read_file\"\n"
	    "mode = \"auto\"\nmax_taint = \"secret\"\n"
	    "result_class = \"private\"\nuntrusted = true\n"
	    "expires = \"2026-09-18T13:00:00.000Z\"\n\n[constraints]\n"
	    "paths = [\"/notes/a \\\"b\\\".md\"]\n"));

	/* The same call again: allowed at once, by that grant, hash and all. */
	assert_int_equal(call_once(f, "c2", "read_file", NOTES_ARGS),
	    BX_STATUS_RESULT);
	last_decision(f, grant, sizeof(grant), &got);
	assert_string_equal(grant, r.afr_grant);
	assert_int_equal(bx_sha256(bytes, len, &want, &err), 0);
	assert_memory_equal(got.bytes, want.bytes, sizeof(want.bytes));
	assert_int_equal(recording_count(&f->rec), 2);

	/* Another file in the folder still asks. */
	ask_call(f, &a, "c3", "read_file", "{\"path\":\"/notes/other.md\"}");
	refuse(f, &a);

	/* An hour on, the grant has expired and the same call asks again. */
	bfix_set_now(f, bfix_now(f) + HOUR_MS);
	ask_call(f, &a, "c4", "read_file", NOTES_ARGS);
	refuse(f, &a);
	assert_int_equal(recording_count(&f->rec), 2);
	free(bytes);
}

static void
test_http_fetch_host(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct asked a;
	char *bytes;
	size_t len;

	bfix_grant(f, "web", "http_fetch", "ask", "private", "public", true,
	    "hosts = [\"*.example.org\"]");
	ask_call(f, &a, "c1", "http_fetch",
	    "{\"url\":\"https://docs.example.org/a?b=1\"}");
	if (run(f, &pc, a.id, 2 * 24 * HOUR_MS, &r, &err) == -1)
		fail_msg("approve_for: %s", err.msg);
	assert_int_equal(finish(&a), BX_STATUS_RESULT);
	assert_non_null(bytes = grant_bytes(f, r.afr_grant, &len));
	assert_non_null(strstr(r.afr_grant, "approved-http-fetch-"));
	assert_non_null(strstr(bytes, "hosts = [\"docs.example.org\"]\n"));
	assert_null(strstr(bytes, "paths"));
	assert_int_equal(call_once(f, "c2", "http_fetch",
	    "{\"url\":\"https://docs.example.org/other\"}"), BX_STATUS_RESULT);
	ask_call(f, &a, "c3", "http_fetch",
	    "{\"url\":\"https://www.example.org/\"}");
	refuse(f, &a);
	free(bytes);
}

/* shell and write_file: refused with the reason, nothing written. */
static void
test_shell_and_write_refused_and_left_pending(void **state)
{
	static const struct {
		const char	*tool, *args, *says;
	} cases[] = {
		{ "shell", "{\"command\":\"ls\",\"cwd\":\"/scratch\"}",
		    "a shell grant would let every command run in that "
		    "directory" },
		{ "write_file", "{\"path\":\"/scratch/a\",\"content\":\"x\"}",
		    "never one file" },
	};
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct asked a;
	size_t i;

	bfix_grant(f, "sh", "shell", "ask", "private", "private", false,
	    "paths = [\"/scratch\"]");
	bfix_grant(f, "wr", "write_file", "ask", "private", "private", false,
	    "paths = [\"/scratch\"]");
	for (i = 0; i < 2; i++) {
		ask_call(f, &a, "c1", cases[i].tool, cases[i].args);
		assert_int_equal(run(f, &pc, a.id, HOUR_MS, &r, &err), -1);
		assert_non_null(strstr(err.msg, cases[i].says));
		assert_non_null(strstr(err.msg, "the call still waits"));
		assert_true(pending(f, a.id));
		assert_int_equal(entries(f), 3);
		refuse(f, &a);
	}
	assert_int_equal(recording_count(&f->rec), 0);
}

static void
test_expiry_capped_by_asking_grant(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct asked a;
	int64_t ask_expires;

	fixture_grant(f->grants, "notes", "read_file", "ask", "private",
	    "2026-09-18T12:30:00.000Z", "paths = [\"/notes\"]");
	assert_int_equal(bx_time_parse("2026-09-18T12:30:00.000Z",
	    &ask_expires, &err), 0);
	ask_call(f, &a, "c1", "read_file", NOTES_ARGS);
	if (run(f, &pc, a.id, 2 * 24 * HOUR_MS, &r, &err) == -1)
		fail_msg("approve_for: %s", err.msg);
	assert_int_equal(finish(&a), BX_STATUS_RESULT);
	assert_true(r.afr_capped);
	assert_int_equal(r.afr_expires, ask_expires);
}

/* A name already taken: nothing replaced, nothing approved. */
static void
test_name_taken(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct asked a;
	char id[80], *bytes;
	size_t len;

	ask_call(f, &a, "c1", "read_file", NOTES_ARGS);
	snprintf(id, sizeof(id), "approved-read-file-%llu",
	    (unsigned long long)a.id);
	bfix_grant(f, id, "read_file", "deny", "secret", "secret", false,
	    "paths = [\"/elsewhere\"]");
	assert_int_equal(run(f, &pc, a.id, HOUR_MS, &r, &err), -1);
	assert_non_null(strstr(err.msg, "already exists; nothing was "
	    "replaced"));
	assert_non_null(strstr(err.msg, "the call still waits"));
	assert_non_null(bytes = grant_bytes(f, id, &len));
	assert_non_null(strstr(bytes, "mode = \"deny\""));
	assert_int_equal(entries(f), 2);
	assert_true(pending(f, a.id));
	refuse(f, &a);
	free(bytes);
}

/* A file where the grants directory should be: nothing made anywhere. */
static void
test_grants_dir_unwritable(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_port port = { port_call, &pc };
	struct approve_for_result r;
	struct approve_for af;
	struct bx_error err;
	struct asked a;
	char notdir[4096];
	struct stat st;

	snprintf(notdir, sizeof(notdir), "%s/notadir", f->home);
	fixture_text(f->home, "notadir", "x");
	ask_call(f, &a, "c1", "read_file", NOTES_ARGS);
	pc.pc_fix = f;
	af = (struct approve_for){ a.id, bfix_now(f), HOUR_MS, notdir };
	assert_int_equal(approve_for(&port, &af, &r, &err), -1);
	assert_non_null(strstr(err.msg, "the grant was not written"));
	assert_int_equal(stat(notdir, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 1);
	assert_int_equal(entries(f), 1);
	assert_true(pending(f, a.id));
	refuse(f, &a);
}

static void
deny_before_approve(struct bfix *f, uint64_t id)
{
	(void)id;
	bfix_grant(f, "notes-deny", "read_file", "deny", "secret", "secret",
	    false, "paths = [\"/notes\"]");
}

/* The re-decision denies: the call does not run, the grant goes. */
static void
test_denied_takes_the_grant_back(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct asked a;
	size_t len;

	pc.pc_before_approve = deny_before_approve;
	ask_call(f, &a, "c1", "read_file", NOTES_ARGS);
	if (run(f, &pc, a.id, HOUR_MS, &r, &err) == -1)
		fail_msg("approve_for: %s", err.msg);
	assert_int_equal(finish(&a), BX_STATUS_DENIED);
	assert_int_equal(r.afr_outcome.kind, BX_OUTCOME_DENIED);
	assert_false(r.afr_kept);
	assert_null(grant_bytes(f, r.afr_grant, &len));
	assert_int_equal(entries(f), 2);
}

static void
refuse_before_approve(struct bfix *f, uint64_t id)
{
	bx_msg_free(bfix_admin(f, bx_msg_refuse(id, NULL)));
}

/* The approval was answered meanwhile: nothing approved, the grant goes. */
static void
test_vanished_approval_takes_the_grant_back(void **state)
{
	struct bfix *f = *state;
	struct port_ctx pc = { 0 };
	struct approve_for_result r;
	struct bx_error err;
	struct asked a;

	pc.pc_before_approve = refuse_before_approve;
	ask_call(f, &a, "c1", "read_file", NOTES_ARGS);
	assert_int_equal(run(f, &pc, a.id, HOUR_MS, &r, &err), -1);
	assert_non_null(strstr(err.msg, "no_such_approval"));
	assert_non_null(strstr(err.msg, "was removed again"));
	assert_int_equal(finish(&a), BX_STATUS_DENIED);
	assert_int_equal(entries(f), 1);
	/* An id brokerd does not list: nothing written. */
	assert_int_equal(run(f, &pc, 999, HOUR_MS, &r, &err), -1);
	assert_non_null(strstr(err.msg, "does not list approval 999"));
	assert_int_equal(entries(f), 1);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_grant_written_and_used),
		T(test_http_fetch_host),
		T(test_shell_and_write_refused_and_left_pending),
		T(test_expiry_capped_by_asking_grant),
		T(test_name_taken),
		T(test_grants_dir_unwritable),
		T(test_denied_takes_the_grant_back),
		T(test_vanished_approval_takes_the_grant_back),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
