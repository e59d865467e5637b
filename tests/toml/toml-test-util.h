/*
 * toml-test-util.h: helpers shared by the TOML unit tests: parse a string
 * and expect success, or expect failure with an exact message.
 */
#ifndef TOML_TEST_UTIL_H
#define TOML_TEST_UTIL_H

#include <string.h>

#include "toml/toml.h"

/* Parses s as "t.toml"; fails the test when it does not parse. */
static inline struct toml_doc *
parse_ok(const char *s)
{
	struct toml_doc *doc = NULL;
	struct bx_error err;

	err.msg[0] = '\0';
	if (toml_parse("t.toml", s, strlen(s), &doc, &err) != 0)
		fail_msg("unexpected parse error: %s", err.msg);
	return doc;
}

/* Parses s as "t.toml" and checks the exact error message. */
static inline void
parse_fails(const char *s, const char *want)
{
	struct toml_doc *doc = NULL;
	struct bx_error err;

	err.msg[0] = '\0';
	assert_int_equal(toml_parse("t.toml", s, strlen(s), &doc, &err), -1);
	assert_null(doc);
	assert_string_equal(err.msg, want);
}

/* Parses s as "t.toml" and checks that the error message contains part. */
static inline void
parse_fails_containing(const char *s, const char *part)
{
	struct toml_doc *doc = NULL;
	struct bx_error err;

	err.msg[0] = '\0';
	assert_int_equal(toml_parse("t.toml", s, strlen(s), &doc, &err), -1);
	assert_null(doc);
	if (strstr(err.msg, part) == NULL)
		fail_msg("\"%s\" does not contain \"%s\"", err.msg, part);
}

#endif
