/*
 * served-fixture.c: a broker served in-process, and the ask calls its
 * clients answer (served-fixture.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "served-fixture.h"

static void *
serve_thread(void *arg)
{
	struct served *x = arg;
	struct bx_error err;

	x->rc = serve_run(x->s, &err);
	return NULL;
}

struct served *
served_start(struct bfix *f, bool jailed, uid_t loop_uid, uid_t bridge_uid)
{
	struct served *x = calloc(1, sizeof(*x));
	struct serve_config sc;
	struct bx_error err;

	assert_non_null(x);
	x->f = f;
	snprintf(x->broker, sizeof(x->broker), "%s/run/loop-broker/broker.sock",
	    f->home);
	snprintf(x->admin, sizeof(x->admin), "%s/run/owner-broker/admin.sock",
	    f->home);
	snprintf(x->bridge, sizeof(x->bridge),
	    "%s/run/bridge-broker/bridge.sock", f->home);
	memset(&sc, 0, sizeof(sc));
	sc.broker_socket = x->broker;
	sc.admin_socket = x->admin;
	sc.bridge_socket = x->bridge;
	sc.broker = f->broker;
	/* Long: a check that waited for the first frame would show. */
	sc.read_timeout_ms = 60000;
	sc.stop_fd = -1;
	sc.has_loop_uid = jailed;
	sc.loop_uid = loop_uid;
	sc.has_bridge_uid = jailed;
	sc.bridge_uid = bridge_uid;
	if ((x->s = serve_new(&sc, &err)) == NULL)
		fail_msg("serve_new: %s", err.msg);
	assert_int_equal(pthread_create(&x->thread, NULL, serve_thread, x), 0);
	return x;
}

void
served_stop(struct served *x)
{
	serve_stop(x->s);
	pthread_join(x->thread, NULL);
	assert_int_equal(x->rc, 0);
	serve_free(x->s);
	bfix_free(x->f);
	free(x);
}

void
asked_start(struct bfix *f, struct asked *a, const char *call,
    const char *tool, const char *args)
{
	struct bx_msg *m;

	bpeer_init(&a->p);
	a->call = bfix_call_async(f, &a->p, "chat-1", call, tool, args);
	bpeer_wait(&a->p, 1);
	m = bpeer_frame(&a->p, 0);
	assert_int_equal(m->tool_response.status, BX_STATUS_PENDING_APPROVAL);
	a->id = m->tool_response.approval;
	bx_msg_free(m);
}

void
asked_done(struct asked *a, enum bx_status st)
{
	struct bx_msg *m;

	bfix_join(a->call);
	m = bpeer_frame(&a->p, a->p.nframes - 1);
	assert_true(bx_msg_is_final(m));
	assert_int_equal(m->tool_response.status, st);
	bx_msg_free(m);
	bpeer_free(&a->p);
}

size_t
approvals_of(struct bfix *f, uint64_t id, enum bx_answer *answer, char *by,
    char *post, char *reason)
{
	struct bx_audit_record *r;
	size_t i, n, found = 0;

	n = bfix_records(f, &r);
	for (i = 0; i < n; i++) {
		if (r[i].event.type != BX_AUDIT_APPROVAL ||
		    r[i].event.approval.decision != id)
			continue;
		found++;
		*answer = r[i].event.approval.answer;
		snprintf(by, 64, "%s", r[i].event.approval.by != NULL ?
		    r[i].event.approval.by : "(null)");
		snprintf(post, 64, "%s", r[i].event.approval.post != NULL ?
		    r[i].event.approval.post : "(null)");
		snprintf(reason, 64, "%s", r[i].event.approval.reason != NULL ?
		    r[i].event.approval.reason : "(null)");
	}
	bfix_records_free(r, n);
	return found;
}

void
expect_record(struct bfix *f, uint64_t id, enum bx_answer want_answer,
    const char *want_by, const char *want_post, const char *want_reason)
{
	char by[64], post[64], reason[64];
	enum bx_answer answer;

	assert_int_equal(approvals_of(f, id, &answer, by, post, reason), 1);
	assert_int_equal(answer, want_answer);
	assert_string_equal(by, want_by);
	assert_string_equal(post, want_post);
	assert_string_equal(reason, want_reason);
}
