/*
 * test-json.c: the strict JSON helpers of src/proto/json.h: parsing limits,
 * field checks, typed getters whose errors name the key, and the exact
 * bytes of the compact encoding.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/json.h"

static json_t *
parse(const char *s)
{
	struct bx_error err = { "" };
	json_t *v = NULL;

	if (bx_json_parse(s, strlen(s), &v, &err) == -1)
		fail_msg("%s: %s", s, err.msg);
	return v;
}

static void
assert_refused(const char *s, const char *needle)
{
	struct bx_error err = { "" };
	json_t *v = NULL;

	assert_int_equal(bx_json_parse(s, strlen(s), &v, &err), -1);
	assert_null(v);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("%s: error \"%s\" lacks \"%s\"", s, err.msg, needle);
}

static void
test_parse_refuses(void **state)
{
	(void)state;
	assert_refused("{\"a\":1,\"bb\":2,\"bb\":3}", "\"bb\"");
	assert_refused("[1]", "not a JSON object");
	assert_refused("{\"a\":1} x", "not valid JSON");
	assert_refused("{\"a\":\"\\u0000\"}", "not valid JSON");
	assert_refused("{\"a\":\"\xff\"}", "not valid JSON");
	assert_refused("", "not valid JSON");
}

/* Every getter: missing key, wrong type, and bad form each name the key. */
static void
test_getters(void **state)
{
	json_t *o = parse("{\"s\":\"x\",\"n\":null,\"u\":7,\"neg\":-3,"
	    "\"b\":true,\"t\":\"2026-09-18T12:00:00.000Z\","
	    "\"h\":\"000102030405060708090a0b0c0d0e0f"
	    "101112131415161718191a1b1c1d1e1f\",\"c\":\"secret\","
	    "\"d\":\"no_grant\",\"o\":{\"outcome\":\"ask\"},\"a\":[],"
	    "\"r\":1.5,\"bad_t\":\"2026-09-18T12:00:00Z\",\"bad_h\":\"AB\"}");
	struct bx_error err = { "" };
	struct bx_outcome out;
	struct bx_hash h;
	enum bx_class c;
	enum bx_deny d;
	const char *s;
	uint64_t u = 99;
	int64_t i;
	json_t *v;
	bool b;

	(void)state;
	assert_int_equal(bx_json_string(o, "s", &s, &err), 0);
	assert_string_equal(s, "x");
	/* Optional fields: null and absent are the same value. */
	assert_int_equal(bx_json_string_or_null(o, "n", &s, &err), 0);
	assert_null(s);
	s = "untouched";
	assert_int_equal(bx_json_string_or_null(o, "missing", &s, &err), 0);
	assert_null(s);
	assert_int_equal(bx_json_string_or_null(o, "s", &s, &err), 0);
	assert_string_equal(s, "x");
	b = true;
	assert_int_equal(bx_json_u64_or_null(o, "n", &b, &u, &err), 0);
	assert_false(b);
	b = true;
	assert_int_equal(bx_json_u64_or_null(o, "missing", &b, &u, &err), 0);
	assert_false(b);
	assert_int_equal(u, 99);
	assert_int_equal(bx_json_u64_or_null(o, "u", &b, &u, &err), 0);
	assert_true(b);
	assert_int_equal(u, 7);
	b = true;
	assert_int_equal(bx_json_hash_or_null(o, "missing", &b, &h, &err), 0);
	assert_false(b);
	assert_int_equal(bx_json_hash_or_null(o, "h", &b, &h, &err), 0);
	assert_true(b);
	assert_int_equal(h.bytes[31], 0x1f);
	assert_int_equal(bx_json_u64(o, "u", &u, &err), 0);
	assert_int_equal(u, 7);
	assert_int_equal(bx_json_i64(o, "neg", &i, &err), 0);
	assert_int_equal(i, -3);
	assert_int_equal(bx_json_bool(o, "b", &b, &err), 0);
	assert_true(b);
	assert_int_equal(bx_json_time(o, "t", &i, &err), 0);
	assert_true(i == 1789732800000LL);
	assert_int_equal(bx_json_hash(o, "h", &h, &err), 0);
	assert_int_equal(h.bytes[31], 0x1f);
	assert_int_equal(bx_json_class(o, "c", &c, &err), 0);
	assert_int_equal(c, BX_CLASS_SECRET);
	assert_int_equal(bx_json_deny(o, "d", &d, &err), 0);
	assert_int_equal(d, BX_DENY_NO_GRANT);
	assert_int_equal(bx_json_outcome(o, "o", &out, &err), 0);
	assert_int_equal(out.kind, BX_OUTCOME_ASK);
	assert_int_equal(bx_json_object(o, "o", &v, &err), 0);
	assert_int_equal(bx_json_array(o, "a", &v, &err), 0);

#define REFUSE(call, needle) do {					\
	err.msg[0] = '\0';						\
	assert_int_equal((call), -1);					\
	if (strstr(err.msg, (needle)) == NULL)				\
		fail_msg("%s: \"%s\" lacks \"%s\"", #call, err.msg,	\
		    (needle));						\
} while (0)
	REFUSE(bx_json_string(o, "missing", &s, &err),
	    "missing field \"missing\"");
	REFUSE(bx_json_string(o, "u", &s, &err),
	    "field \"u\": expected a string");
	REFUSE(bx_json_string(o, "n", &s, &err), "field \"n\"");
	REFUSE(bx_json_string_or_null(o, "u", &s, &err), "field \"u\"");
	REFUSE(bx_json_u64_or_null(o, "neg", &b, &u, &err), "field \"neg\"");
	REFUSE(bx_json_u64_or_null(o, "s", &b, &u, &err), "field \"s\"");
	REFUSE(bx_json_hash_or_null(o, "bad_h", &b, &h, &err),
	    "field \"bad_h\"");
	REFUSE(bx_json_hash_or_null(o, "u", &b, &h, &err), "field \"u\"");
	REFUSE(bx_json_u64(o, "neg", &u, &err), "field \"neg\"");
	REFUSE(bx_json_u64(o, "r", &u, &err), "field \"r\"");
	REFUSE(bx_json_u64(o, "b", &u, &err), "field \"b\"");
	REFUSE(bx_json_i64(o, "s", &i, &err), "field \"s\"");
	REFUSE(bx_json_bool(o, "u", &b, &err), "field \"u\"");
	REFUSE(bx_json_time(o, "bad_t", &i, &err), "field \"bad_t\"");
	REFUSE(bx_json_time(o, "u", &i, &err), "field \"u\"");
	REFUSE(bx_json_time(o, "missing", &i, &err),
	    "missing field \"missing\"");
	REFUSE(bx_json_hash(o, "bad_h", &h, &err), "field \"bad_h\"");
	REFUSE(bx_json_hash(o, "missing", &h, &err),
	    "missing field \"missing\"");
	REFUSE(bx_json_class(o, "s", &c, &err), "field \"s\"");
	REFUSE(bx_json_deny(o, "s", &d, &err), "field \"s\"");
	REFUSE(bx_json_outcome(o, "s", &out, &err), "field \"s\"");
	REFUSE(bx_json_object(o, "a", &v, &err), "field \"a\"");
	REFUSE(bx_json_array(o, "o", &v, &err), "field \"o\"");
#undef REFUSE
	/* Out-parameters are untouched on failure. */
	assert_int_equal(u, 7);
	json_decref(o);
}

static void
test_check_fields(void **state)
{
	static const char *const fields[] = { "a", "b", NULL };
	struct bx_error err;
	json_t *o;

	(void)state;
	o = parse("{\"b\":1,\"a\":2}");
	assert_int_equal(bx_json_check_fields(o, fields, &err), 0);
	json_decref(o);
	o = parse("{\"a\":1,\"c\":2}");
	assert_int_equal(bx_json_check_fields(o, fields, &err), -1);
	assert_string_equal(err.msg, "unknown field \"c\"");
	json_decref(o);
}

static void
test_depth(void **state)
{
	struct bx_error err;
	char buf[256];
	json_t *v;
	int i;

	(void)state;
	/* Exactly the limit is fine; one more is not. */
	memset(buf, 0, sizeof(buf));
	buf[0] = '{';
	strcat(buf, "\"a\":");
	for (i = 1; i < BX_JSON_MAX_DEPTH; i++)
		strcat(buf, "[");
	for (i = 1; i < BX_JSON_MAX_DEPTH; i++)
		strcat(buf, "]");
	strcat(buf, "}");
	assert_int_equal(bx_json_parse(buf, strlen(buf), &v, &err), 0);
	json_decref(v);
	assert_int_equal(bx_json_depth_check(buf, strlen(buf),
	    BX_JSON_MAX_DEPTH - 1, &err), -1);
	/* Brackets inside strings, escaped quotes included, do not count. */
	strcpy(buf, "{\"a\":\"[[[[[[[[[[\\\"{{{{{{{{{{{\"}");
	assert_int_equal(bx_json_depth_check(buf, strlen(buf), 1, &err), 0);
	assert_refused("{\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]"
	    "]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}", "deeper than 32");
}

static void
test_outcome(void **state)
{
	struct bx_outcome in[] = {
		{ BX_OUTCOME_ALLOWED, 0 }, { BX_OUTCOME_ASK, 0 },
		{ BX_OUTCOME_DENIED, BX_DENY_STATE_UNREADABLE },
	};
	const char *want[] = {
		"{\"outcome\":\"allowed\"}\n", "{\"outcome\":\"ask\"}\n",
		"{\"outcome\":\"denied\",\"reason\":\"state_unreadable\"}\n",
	};
	struct bx_outcome bad = { BX_OUTCOME_DENIED, BX_DENY_MAX }, got;
	struct bx_error err;
	json_t *v, *wrap;
	size_t i, len;
	char *line;

	(void)state;
	for (i = 0; i < 3; i++) {
		v = bx_json_outcome_new(&in[i]);
		assert_non_null(v);
		line = bx_json_encode_line(v, &len, &err);
		assert_string_equal(line, want[i]);
		free(line);
		wrap = json_object();
		assert_int_equal(bx_json_set(wrap, "o", v, &err), 0);
		assert_int_equal(bx_json_outcome(wrap, "o", &got, &err), 0);
		assert_int_equal(got.kind, in[i].kind);
		if (got.kind == BX_OUTCOME_DENIED)
			assert_int_equal(got.reason, in[i].reason);
		json_decref(wrap);
	}
	assert_null(bx_json_outcome_new(&bad));
}

/* The exact bytes of the compact form, including what jansson escapes. */
static void
test_encode_bytes(void **state)
{
	struct bx_error err = { "" };
	struct bx_hash h;
	json_t *o;
	size_t len;
	char *line;

	(void)state;
	memset(&h, 0xab, sizeof(h));
	o = json_object();
	assert_int_equal(bx_json_set(o, "z", bx_json_string_new(
	    "a/b\x01\x1f\x7f\xc2\x80\xe2\x80\xa8\"\\\b\f\n\r\t \xc3\xa9"), &err),
	    0);
	assert_int_equal(bx_json_set(o, "a", bx_json_u64_new(INT64_MAX), &err),
	    0);
	assert_int_equal(bx_json_set(o, "n", bx_json_string_new(NULL), &err), 0);
	assert_int_equal(bx_json_set(o, "t", bx_json_time_new(0), &err), 0);
	assert_int_equal(bx_json_set(o, "h", bx_json_hash_new(&h), &err), 0);
	line = bx_json_encode_line(o, &len, &err);
	assert_non_null(line);
	assert_string_equal(line, "{\"z\":\"a/b\\u0001\\u001F\x7f\xc2\x80"
	    "\xe2\x80\xa8\\\"\\\\\\b\\f\\n\\r\\t \xc3\xa9\","
	    "\"a\":9223372036854775807,\"n\":null,"
	    "\"t\":\"1970-01-01T00:00:00.000Z\",\"h\":\"abababababababababab"
	    "abababababababababababababababababababababab\"}\n");
	assert_int_equal(len, strlen(line));
	free(line);
	json_decref(o);

	/* What cannot be encoded is refused, naming the field. */
	assert_null(bx_json_u64_new((uint64_t)INT64_MAX + 1));
	assert_null(bx_json_time_new(BX_TIME_MIN_MS - 1));
	assert_null(bx_json_string_new("\xff"));
	o = json_object();
	assert_int_equal(bx_json_set(o, "bad", bx_json_string_new("\xff"),
	    &err), -1);
	assert_non_null(strstr(err.msg, "field \"bad\""));
	json_decref(o);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_refuses),
		cmocka_unit_test(test_getters),
		cmocka_unit_test(test_check_fields),
		cmocka_unit_test(test_depth),
		cmocka_unit_test(test_outcome),
		cmocka_unit_test(test_encode_bytes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
