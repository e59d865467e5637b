/* test-types.c: the strict parsers and formatters of src/proto/types.h. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "proto/types.h"

static void
test_time_round_trip(void **state)
{
	static const char *good[] = {
		"1970-01-01T00:00:00.000Z", "2026-12-01T20:40:25.123Z",
		"2024-02-29T23:59:59.999Z", "0001-01-01T00:00:00.000Z",
		"9999-12-31T23:59:59.999Z", "1969-12-31T23:59:59.999Z",
	};
	char buf[BX_TIME_LEN + 1];
	struct bx_error err;
	int64_t ms;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		assert_int_equal(bx_time_parse(good[i], &ms, &err), 0);
		bx_time_format(ms, buf);
		assert_string_equal(buf, good[i]);
	}
	assert_int_equal(bx_time_parse("1970-01-01T00:00:01.500Z", &ms, &err),
	    0);
	assert_int_equal(ms, 1500);
	assert_int_equal(bx_time_parse("0001-01-01T00:00:00.000Z", &ms, &err),
	    0);
	assert_true(ms == BX_TIME_MIN_MS);
	assert_int_equal(bx_time_parse("9999-12-31T23:59:59.999Z", &ms, &err),
	    0);
	assert_true(ms == BX_TIME_MAX_MS);
}

static void
test_time_refuses(void **state)
{
	static const char *bad[] = {
		"2026-02-29T00:00:00.000Z",	/* not a leap year */
		"2026-01-01T24:00:00.000Z",
		"2026-01-01T00:00:00Z",		/* no milliseconds */
		"2026-01-01T00:00:00.000+00:00",
		"2026-01-01T00:00:00.000+01:00",
		"2026-01-01T00:00:00.000z",
		"2026-01-01 00:00:00.000Z",
		"2026-13-01T00:00:00.000Z",
		"2026-04-31T00:00:00.000Z",
		"2026-01-01T00:60:00.000Z",
		"2026-01-01T00:00:60.000Z",
		"0000-01-01T00:00:00.000Z",
		"2026-01-01T00:00:00.00Z",
		"2026-01-01T00:00:00.0000Z",
		"+026-01-01T00:00:00.000Z",
		"",
	};
	struct bx_error err;
	int64_t ms = 42;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err.msg[0] = '\0';
		assert_int_equal(bx_time_parse(bad[i], &ms, &err), -1);
		assert_true(strlen(err.msg) > 0);
		assert_true(ms == 42);
	}
}

static void
test_time_date(void **state)
{
	char buf[11];
	struct bx_error err;
	int64_t ms;

	(void)state;
	assert_int_equal(bx_time_parse("2026-12-31T23:59:59.999Z", &ms, &err),
	    0);
	bx_time_date(ms, buf);
	assert_string_equal(buf, "2026-12-31");
	bx_time_date(ms + 1, buf);
	assert_string_equal(buf, "2027-01-01");
}

static void
test_hash(void **state)
{
	const char *hex = "00ff10a0b1c2d3e4f5061728394a5b6c7d8e9fa0b1c2d3e4f5"
	    "06172839abcdef";
	char buf[BX_HASH_HEX_LEN + 1];
	struct bx_hash h, zero;
	struct bx_error err;

	(void)state;
	assert_int_equal(bx_hash_parse(hex, &h, &err), 0);
	bx_hash_format(&h, buf);
	assert_string_equal(buf, hex);
	assert_false(bx_hash_is_zero(&h));
	memset(&zero, 0, sizeof(zero));
	assert_true(bx_hash_is_zero(&zero));
	assert_int_equal(bx_hash_parse("00FF10a0b1c2d3e4f5061728394a5b6c7d8e9"
	    "fa0b1c2d3e4f506172839abcdef", &h, &err), -1);
	assert_non_null(strstr(err.msg, "character 3"));
	assert_int_equal(bx_hash_parse("abc", &h, &err), -1);
	assert_non_null(strstr(err.msg, "not 3 characters"));
}

static void
test_ids(void **state)
{
	struct bx_error err;
	char long_id[BX_ID_MAX + 2];

	(void)state;
	assert_int_equal(bx_session_id_check("chat-1758000000000", &err), 0);
	assert_int_equal(bx_session_id_check("Chat", &err), -1);
	assert_non_null(strstr(err.msg, "position 1"));
	assert_int_equal(bx_session_id_check("", &err), -1);
	assert_int_equal(bx_session_id_check("a/b", &err), -1);
	assert_int_equal(bx_call_id_check("call_A-1", &err), 0);
	assert_int_equal(bx_call_id_check("call.1", &err), -1);
	assert_int_equal(bx_grant_id_check("notes-read", &err), 0);
	assert_int_equal(bx_grant_id_check("notes_read", &err), -1);
	memset(long_id, 'a', sizeof(long_id) - 1);
	long_id[sizeof(long_id) - 1] = '\0';
	assert_int_equal(bx_grant_id_check(long_id, &err), -1);
	assert_non_null(strstr(err.msg, "not 65"));
	long_id[BX_ID_MAX] = '\0';
	assert_int_equal(bx_grant_id_check(long_id, &err), 0);
	assert_int_equal(bx_secret_name_check(long_id, &err), 0);
	assert_int_equal(bx_secret_name_check("github-2", &err), 0);
	assert_int_equal(bx_secret_name_check("GitHub", &err), -1);
	assert_non_null(strstr(err.msg, "a secret name is made of"));
	assert_int_equal(bx_secret_name_check("../x", &err), -1);
	assert_int_equal(bx_secret_name_check("", &err), -1);
}

static void
test_enums(void **state)
{
	enum bx_class c;
	enum bx_tool t;
	enum bx_deny d;
	enum bx_outcome_kind k;
	struct bx_error err;
	int i;

	(void)state;
	assert_true(BX_CLASS_PUBLIC < BX_CLASS_PRIVATE);
	assert_true(BX_CLASS_PRIVATE < BX_CLASS_SECRET);
	assert_int_equal(bx_class_max(BX_CLASS_SECRET, BX_CLASS_PUBLIC),
	    BX_CLASS_SECRET);
	for (i = 0; i < BX_CLASS_MAX; i++) {
		assert_int_equal(bx_class_parse(bx_class_name(i), &c, &err), 0);
		assert_int_equal(c, i);
	}
	for (i = 0; i < BX_TOOL_MAX; i++) {
		assert_int_equal(bx_tool_parse(bx_tool_name(i), &t, &err), 0);
		assert_int_equal(t, i);
	}
	for (i = 0; i < BX_DENY_MAX; i++) {
		assert_int_equal(bx_deny_parse(bx_deny_name(i), &d, &err), 0);
		assert_int_equal(d, i);
	}
	for (i = 0; i < BX_OUTCOME_MAX; i++) {
		assert_int_equal(bx_outcome_kind_parse(bx_outcome_name(i), &k,
		    &err), 0);
		assert_int_equal(k, i);
	}
	assert_int_equal(bx_class_parse("Secret", &c, &err), -1);
	assert_int_equal(bx_tool_parse("echo", &t, &err), -1);
	assert_non_null(strstr(err.msg, "\"echo\""));
	assert_int_equal(bx_deny_parse("nope", &d, &err), -1);
	assert_string_equal(bx_deny_name(BX_DENY_STATE_UNREADABLE),
	    "state_unreadable");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_time_round_trip),
		cmocka_unit_test(test_time_refuses),
		cmocka_unit_test(test_time_date),
		cmocka_unit_test(test_hash),
		cmocka_unit_test(test_ids),
		cmocka_unit_test(test_enums),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
