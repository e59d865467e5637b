/*
 * test-admin.c: the admin requests (design section 6): approvals, approve,
 * refuse and check_grants, answered in-process; no_such_approval for an
 * unknown or answered approval; a kind that is not an admin request.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "grants-fixture.h"

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
test_admin_kinds(void **state)
{
	int k;

	(void)state;
	for (k = 0; k < BX_MSG_MAX; k++)
		assert_int_equal(admin_kind((enum bx_msg_kind)k),
		    k == BX_MSG_APPROVALS || k == BX_MSG_APPROVE ||
		    k == BX_MSG_REFUSE || k == BX_MSG_CHECK_GRANTS ||
		    k == BX_MSG_SESSIONS || k == BX_MSG_EXPLAIN ||
		    k == BX_MSG_STATUS || k == BX_MSG_LIST_GRANTS);
}

static void
test_no_approvals_is_an_empty_list(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m = bfix_admin(f, bx_msg_new(BX_MSG_APPROVALS));

	assert_int_equal(m->kind, BX_MSG_APPROVAL_LIST);
	assert_int_equal(m->approval_list.nitems, 0);
	bx_msg_free(m);
}

static void
test_check_grants_reports_each_problem(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;
	size_t i;
	bool line_seen = false, stem_seen = false;

	bfix_grant(f, "notes", "read_file", "auto", "secret", "private", false,
	    "paths = [\"/notes\"]");
	m = bfix_admin(f, bx_msg_new(BX_MSG_CHECK_GRANTS));
	assert_int_equal(m->kind, BX_MSG_GRANTS_REPORT);
	assert_int_equal(m->grants_report.nproblems, 0);
	bx_msg_free(m);

	fixture_text(f->grants, "typo.toml", "tool = \"read_file\"\n"
	    "mode = \"auto\"\nmax_taint = \"secret\"\n"
	    "result_class = \"private\"\nexpires = \"2027-01-01T00:00:00.000Z\"\n"
	    "colour = \"red\"\n\n[constraints]\npaths = [\"/notes\"]\n");
	fixture_text(f->grants, "Upper.toml", "tool = \"read_file\"\n");
	m = bfix_admin(f, bx_msg_new(BX_MSG_CHECK_GRANTS));
	assert_int_equal(m->kind, BX_MSG_GRANTS_REPORT);
	assert_true(m->grants_report.nproblems >= 2);
	for (i = 0; i < m->grants_report.nproblems; i++) {
		const struct bx_grant_problem *p = &m->grants_report.problems[i];

		assert_non_null(p->problem);
		if (strstr(p->file, "typo.toml") != NULL && p->has_line &&
		    p->line == 6 && strstr(p->problem, "colour") != NULL)
			line_seen = true;
		if (strstr(p->file, "Upper.toml") != NULL)
			stem_seen = true;
	}
	assert_true(line_seen);
	assert_true(stem_seen);
	bx_msg_free(m);
}

static void
test_unknown_approvals_are_no_such_approval(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;

	m = bfix_admin(f, bx_msg_approve(0));
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_NO_SUCH_APPROVAL);
	bx_msg_free(m);
	m = bfix_admin(f, bx_msg_refuse(41, "no"));
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_NO_SUCH_APPROVAL);
	bx_msg_free(m);
}

static void
test_other_kinds_are_bad_requests(void **state)
{
	struct bfix *f = *state;
	struct bx_msg *m;

	m = bfix_admin(f, bx_msg_tool_request("s1", "c1", "read_file", "{}"));
	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_BAD_REQUEST);
	bx_msg_free(m);
	/* Nothing was decided or written for it. */
	assert_int_equal(recording_count(&f->rec), 0);
	assert_false(bfix_audit_contains(f, "read_file"));
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_admin_kinds),
		T(test_no_approvals_is_an_empty_list),
		T(test_check_grants_reports_each_problem),
		T(test_unknown_approvals_are_no_such_approval),
		T(test_other_kinds_are_bad_requests),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
