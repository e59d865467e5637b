/* test-error.c: struct bx_error formatting and prefixing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "proto/error.h"

static void
test_fail_formats_and_returns_minus_one(void **state)
{
	struct bx_error err;

	(void)state;
	assert_int_equal(bx_fail(&err, "bad %s at line %d", "key", 3), -1);
	assert_string_equal(err.msg, "bad key at line 3");
}

static void
test_prefix_keeps_the_old_message(void **state)
{
	struct bx_error err;

	(void)state;
	bx_fail(&err, "missing field \"tool\"");
	assert_int_equal(bx_error_prefix(&err, "grants/a.toml:%d", 7), -1);
	assert_string_equal(err.msg, "grants/a.toml:7: missing field \"tool\"");
}

static void
test_null_error_is_allowed(void **state)
{
	(void)state;
	assert_int_equal(bx_fail(NULL, "x"), -1);
	assert_int_equal(bx_error_prefix(NULL, "y"), -1);
}

static void
test_long_messages_are_cut_not_overflowed(void **state)
{
	struct bx_error err;
	char big[3000];

	(void)state;
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	bx_fail(&err, "%s", big);
	assert_int_equal(strlen(err.msg), BX_ERROR_MAX - 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fail_formats_and_returns_minus_one),
		cmocka_unit_test(test_prefix_keeps_the_old_message),
		cmocka_unit_test(test_null_error_is_allowed),
		cmocka_unit_test(test_long_messages_are_cut_not_overflowed),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
