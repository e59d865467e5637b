/*
 * test-approvals.c: the pending-approval table (design section 6): answers
 * from another thread, expiry, a connection that goes away, unknown and
 * already answered ids.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/approvals.h"

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
	const char *reason = NULL;

	w->got = approvals_wait(w->t, w->a, waiter_gone, w, &reason);
	snprintf(w->reason, sizeof(w->reason), "%s",
	    reason == NULL ? "(none)" : reason);
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
	    "not now", &out, &err), 0);
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
	const char *reason;

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

static void
test_list_copies_pending_oldest_first(void **state)
{
	struct approvals *t = approvals_new();
	struct approvals_item a = item(3, 100), b = item(9, 100), *items;
	struct bx_outcome none = { BX_OUTCOME_DENIED, BX_DENY_APPROVAL_EXPIRED };
	struct approval *ea, *eb;
	struct bx_error err;
	const char *reason;
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
		cmocka_unit_test(test_list_copies_pending_oldest_first),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
