/*
 * test-broker-port.c: BrokerPort against a fake brokerd on a Unix socket:
 * a result, a denial, the pending event, and every way the broker can fail
 * (unreachable, gone mid-call, gone while pending, garbage, an error frame,
 * two pending frames), each a failed "the tool broker is unavailable" with
 * the runbook pointer for the operator.
 */
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loopd/broker_port.h"
#include "fake_brokerd.h"
#include "testutil.h"

struct pend {
	int		 calls;
	uint64_t	 approval;
	int64_t		 expires;
	atomic_int		*stop_on_pending;
};

static void
on_pending(void *arg, const struct bx_tool_response *r)
{
	struct pend *p = arg;

	if (r->status != BX_STATUS_PENDING_APPROVAL)
		return;
	p->calls++;
	p->approval = r->approval;
	p->expires = r->expires;
	if (p->stop_on_pending != NULL)
		atomic_store(p->stop_on_pending, 1);
}

/* Makes one call through a BrokerPort on path; returns the answer. */
static struct bx_msg *
call(const char *path, atomic_int *stop, struct pend *p,
    struct bx_error *notice)
{
	struct bx_tool_request req = { "chat-1", "call-1", "read_file",
	    "{\"path\":\"/etc/hosts\"}" };
	struct tool_port port;
	struct bport *bp = NULL;
	struct bx_error err;
	struct bx_msg *m;

	assert_int_equal(bport_new(path, stop, &bp, &err), 0);
	bport_tool_port(bp, &port);
	m = port.tp_call(port.tp_ctx, &req, on_pending, p, NULL, notice);
	bport_free(bp);
	assert_non_null(m);
	assert_int_equal(m->kind, BX_MSG_TOOL_RESPONSE);
	return m;
}

static void
assert_unavailable(struct bx_msg *m, const struct bx_error *notice,
    const char *why)
{
	assert_int_equal(m->tool_response.status, BX_STATUS_FAILED);
	assert_string_equal(m->tool_response.message,
	    "the tool broker is unavailable");
	if (strstr(notice->msg, why) == NULL)
		fail_msg("notice \"%s\" lacks \"%s\"", notice->msg, why);
	assert_non_null(strstr(notice->msg,
	    "see docs/runbook.md#broker-unavailable"));
	bx_msg_free(m);
}

static void
test_result_and_denial(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_RESULT, .fa_text = "127.0.0.1 localhost\n" },
		{ .fa_act = FBD_DENY, .fa_reason = BX_DENY_NO_GRANT },
	};
	struct pend p = { 0 };
	struct bx_error notice;
	struct bx_msg *m;
	const struct bx_tool_request *r;
	char *dir = tu_tmpdir();
	struct fbd *f = fbd_start(dir, steps, 2);

	(void)state;
	m = call(fbd_path(f), NULL, &p, &notice);
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	assert_string_equal(m->tool_response.content, "127.0.0.1 localhost\n");
	assert_int_equal(m->tool_response.class, BX_CLASS_PRIVATE);
	assert_true(m->tool_response.untrusted);
	assert_string_equal(notice.msg, "");
	bx_msg_free(m);
	m = call(fbd_path(f), NULL, &p, &notice);
	assert_int_equal(m->tool_response.status, BX_STATUS_DENIED);
	assert_int_equal(m->tool_response.reason, BX_DENY_NO_GRANT);
	bx_msg_free(m);
	assert_int_equal(p.calls, 0);

	/* One connection per request, each the request as given. */
	assert_int_equal(fbd_count(f), 2);
	r = fbd_request(f, 1);
	assert_string_equal(r->session, "chat-1");
	assert_string_equal(r->call, "call-1");
	assert_string_equal(r->tool, "read_file");
	assert_string_equal(r->arguments, "{\"path\":\"/etc/hosts\"}");
	fbd_stop(f);
	tu_rmtree(dir);
}

static void
test_pending(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_DENY, .fa_approval = 41,
		    .fa_expires = 4102444800000LL,
		    .fa_reason = BX_DENY_APPROVAL_REFUSED },
		{ .fa_act = FBD_PENDING_RESULT, .fa_approval = 42,
		    .fa_text = "approved content" },
	};
	struct pend p = { 0 };
	struct bx_error notice;
	struct bx_msg *m;
	char *dir = tu_tmpdir();
	struct fbd *f = fbd_start(dir, steps, 2);

	(void)state;
	m = call(fbd_path(f), NULL, &p, &notice);
	assert_int_equal(p.calls, 1);
	assert_int_equal(p.approval, 41);
	assert_true(p.expires == 4102444800000LL);
	assert_int_equal(m->tool_response.status, BX_STATUS_DENIED);
	assert_int_equal(m->tool_response.reason, BX_DENY_APPROVAL_REFUSED);
	bx_msg_free(m);
	m = call(fbd_path(f), NULL, &p, &notice);
	assert_int_equal(p.calls, 2);
	assert_int_equal(p.approval, 42);
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	assert_string_equal(m->tool_response.content, "approved content");
	bx_msg_free(m);
	fbd_stop(f);
	tu_rmtree(dir);
}

static void
test_broker_gone(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_CLOSE },
		{ .fa_act = FBD_PENDING_CLOSE, .fa_approval = 7 },
		{ .fa_act = FBD_GARBAGE },
		{ .fa_act = FBD_ERROR },
		{ .fa_act = FBD_TWO_PENDING, .fa_approval = 8 },
	};
	struct pend p = { 0 };
	struct bx_error notice;
	char *dir = tu_tmpdir();
	struct fbd *f = fbd_start(dir, steps, 5);

	(void)state;
	assert_unavailable(call(fbd_path(f), NULL, &p, &notice), &notice,
	    "closed the connection before answering");
	assert_unavailable(call(fbd_path(f), NULL, &p, &notice), &notice,
	    "closed the connection before answering");
	assert_int_equal(p.calls, 1);
	assert_unavailable(call(fbd_path(f), NULL, &p, &notice), &notice,
	    fbd_path(f));
	assert_unavailable(call(fbd_path(f), NULL, &p, &notice), &notice,
	    "error busy: too many calls");
	assert_unavailable(call(fbd_path(f), NULL, &p, &notice), &notice,
	    "second pending_approval");
	assert_int_equal(fbd_count(f), 5);
	fbd_stop(f);
	tu_rmtree(dir);
}

static void
test_unreachable(void **state)
{
	struct pend p = { 0 };
	struct bx_error notice, err;
	struct bport *bp = NULL;
	char *dir = tu_tmpdir(), path[256], longpath[200];

	(void)state;
	snprintf(path, sizeof(path), "%s/nobody.sock", dir);
	assert_unavailable(call(path, NULL, &p, &notice), &notice,
	    "connect: No such file or directory");
	tu_write(dir, "plain", "x", 1);
	snprintf(path, sizeof(path), "%s/plain", dir);
	assert_unavailable(call(path, NULL, &p, &notice), &notice,
	    "connect:");
	memset(longpath, 'a', sizeof(longpath) - 1);
	longpath[0] = '/';
	longpath[sizeof(longpath) - 1] = '\0';
	assert_int_equal(bport_new(longpath, NULL, &bp, &err), -1);
	assert_null(bp);
	tu_rmtree(dir);
}

static void
test_stop_while_pending(void **state)
{
	static const struct fbd_step steps[] = {
		{ .fa_act = FBD_PENDING_SILENT, .fa_approval = 9 },
		{ .fa_act = FBD_PENDING_SILENT, .fa_approval = 10,
		    .fa_expires = 1000 },
	};
	atomic_int stop = 0;
	struct pend p = { .stop_on_pending = &stop };
	struct bx_error notice;
	char *dir = tu_tmpdir();
	struct fbd *f = fbd_start(dir, steps, 2);

	(void)state;
	assert_unavailable(call(fbd_path(f), &stop, &p, &notice), &notice,
	    "loopd is stopping");
	assert_int_equal(p.calls, 1);

	/*
	 * A pending frame whose expiry (plus the grace) has long passed: the
	 * wait is short and ends unavailable instead of hanging.
	 */
	p.stop_on_pending = NULL;
	assert_unavailable(call(fbd_path(f), NULL, &p, &notice), &notice,
	    "no answer in time");
	assert_int_equal(p.approval, 10);
	fbd_stop(f);
	tu_rmtree(dir);
}

static void
test_pending_deadline(void **state)
{
	const int64_t wall = 1758200000000LL, mono = 5000;

	(void)state;
	/* Expiry plus 30 s, measured on the monotonic clock from now. */
	assert_true(bport_pending_deadline(wall + 900000, wall, mono) ==
	    mono + 900000 + 30000);
	assert_true(bport_pending_deadline(wall, wall, mono) == mono + 30000);
	/* An hour away: longer than the wait for the first frame. */
	assert_true(bport_pending_deadline(wall + 3600000, wall, mono) ==
	    mono + 3630000);
	/* An expiry long gone, or clocks apart: a short wait, not none. */
	assert_true(bport_pending_deadline(wall - 29500, wall, mono) ==
	    mono + BPORT_PENDING_MIN_MS);
	assert_true(bport_pending_deadline(1000, wall, mono) ==
	    mono + BPORT_PENDING_MIN_MS);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_result_and_denial),
		cmocka_unit_test(test_pending),
		cmocka_unit_test(test_broker_gone),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_stop_while_pending),
		cmocka_unit_test(test_pending_deadline),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
