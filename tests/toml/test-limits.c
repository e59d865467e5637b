/*
 * test-limits.c: the named limits: documents of TOML_MAX_DOCUMENT bytes
 * parse and one byte more is refused; tables and arrays nest
 * TOML_MAX_DEPTH deep however they are written, and one level more is
 * refused with a message saying which limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "toml-test-util.h"

static const char depth_msg[] = "tables and arrays nest deeper than the "
    "limit of 64 (TOML_MAX_DEPTH)";

/* A document of exactly len bytes: a key/value then a long comment. */
static char *
document_of(size_t len)
{
	char *buf = malloc(len + 1);

	assert_non_null(buf);
	memset(buf, 'x', len);
	memcpy(buf, "a = 1\n#", 7);
	buf[len - 1] = '\n';
	buf[len] = '\0';
	return buf;
}

static void
test_document_at_the_limit_parses(void **state)
{
	char *buf = document_of(TOML_MAX_DOCUMENT);
	struct toml_doc *doc = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(toml_parse("big.toml", buf, TOML_MAX_DOCUMENT, &doc,
	    &err), 0);
	toml_doc_free(doc);
	free(buf);
}

static void
test_document_over_the_limit_is_refused(void **state)
{
	char *buf = document_of(TOML_MAX_DOCUMENT + 1);
	struct toml_doc *doc = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(toml_parse("big.toml", buf, TOML_MAX_DOCUMENT + 1,
	    &doc, &err), -1);
	assert_null(doc);
	assert_string_equal(err.msg, "big.toml: document is 1048577 bytes, "
	    "more than the limit of 1048576 (TOML_MAX_DOCUMENT)");
	free(buf);
}

/* prefix, then open repeated n times, then middle, close n times, suffix */
static char *
nested(const char *prefix, const char *open, int n, const char *middle,
    const char *close, const char *suffix)
{
	size_t cap = strlen(prefix) + strlen(middle) + strlen(suffix) +
	    (size_t)n * (strlen(open) + strlen(close)) + 1;
	char *buf = malloc(cap);
	int i;

	assert_non_null(buf);
	strcpy(buf, prefix);
	for (i = 0; i < n; i++)
		strcat(buf, open);
	strcat(buf, middle);
	for (i = 0; i < n; i++)
		strcat(buf, close);
	strcat(buf, suffix);
	return buf;
}

static void
check_depth(const char *prefix, const char *open, const char *middle,
    const char *close, const char *suffix, int deepest, const char *want)
{
	struct toml_doc *doc;
	char *s;

	s = nested(prefix, open, deepest, middle, close, suffix);
	doc = parse_ok(s);
	toml_doc_free(doc);
	free(s);
	s = nested(prefix, open, deepest + 1, middle, close, suffix);
	parse_fails(s, want);
	free(s);
}

static void
test_array_depth(void **state)
{
	char want[256];

	(void)state;
	snprintf(want, sizeof(want), "t.toml:2: key \"a\": %s", depth_msg);
	check_depth("x = 1\na = ", "[", "1", "]", "\n", 64, want);
}

static void
test_inline_table_depth(void **state)
{
	char want[BX_ERROR_MAX], key[1024];
	int i;

	(void)state;
	/* "a" is the first table; the 65th is the value of the 64th "k". */
	strcpy(key, "a");
	for (i = 0; i < 64; i++)
		strcat(key, ".k");
	snprintf(want, sizeof(want), "t.toml:1: key \"%s\": %s", key,
	    depth_msg);
	check_depth("a = ", "{k = ", "1", "}", "\n", 64, want);
}

static void
test_header_depth(void **state)
{
	char want[BX_ERROR_MAX], *key;

	(void)state;
	key = nested("t", ".t", 64, "", "", "");
	snprintf(want, sizeof(want), "t.toml:2: table [%s]: %s", key,
	    depth_msg);
	check_depth("a = 1\n[t", ".t", "", "", "]\nb = 2\n", 63, want);
	free(key);
}

static void
test_dotted_key_depth(void **state)
{
	char want[BX_ERROR_MAX], *key;

	(void)state;
	/*
	 * At the root, 65 parts make 64 tables and the value; a 66th part
	 * is refused as it is read.
	 */
	check_depth("k", ".k", "", "", " = 1\n", 64, "t.toml:1: key has "
	    "more than 65 dotted parts, nesting deeper than the limit of 64 "
	    "(TOML_MAX_DEPTH)");
	/* Below [a.b.c] (depth 3), 61 more tables fit and 62 do not. */
	key = nested("k", ".k", 62, "", "", "");
	snprintf(want, sizeof(want), "t.toml:2: key \"%s\": %s", key,
	    depth_msg);
	check_depth("[a.b.c]\nk", ".k", "", "", " = 1\n", 61, want);
	free(key);
}

static void
test_array_of_tables_counts_the_array_and_its_tables(void **state)
{
	struct toml_doc *doc;
	char *s;

	(void)state;
	/* [[t...]] at 31 dotted parts: 30 tables, an array, its table. */
	s = nested("[[t", ".t", 30, "", "", "]]\n");
	doc = parse_ok(s);
	toml_doc_free(doc);
	free(s);
	/* 63 parts: 62 tables, the array at 63, its table at 64. */
	s = nested("[[t", ".t", 62, "", "", "]]\n");
	doc = parse_ok(s);
	toml_doc_free(doc);
	free(s);
	s = nested("[[t", ".t", 63, "", "", "]]\n");
	parse_fails_containing(s, depth_msg);
	free(s);
}

static void
test_mixed_nesting_adds_up(void **state)
{
	char want[BX_ERROR_MAX], *key;

	(void)state;
	/* [a.b] is depth 2, so 62 more levels of arrays fit, 63 do not. */
	snprintf(want, sizeof(want), "t.toml:2: key \"c\": %s", depth_msg);
	check_depth("[a.b]\nc = ", "[", "", "]", "\n", 62, want);
	/* Inline tables in arrays of tables: [[x]] is 2, {} adds one each. */
	key = nested("c", ".k", 62, "", "", "");
	snprintf(want, sizeof(want), "t.toml:2: key \"%s\": %s", key,
	    depth_msg);
	free(key);
	check_depth("[[x]]\nc = ", "{k = ", "1", "}", "\n", 62, want);
}

static void
test_a_megabyte_of_brackets_stops_at_the_limit(void **state)
{
	char *buf = malloc(TOML_MAX_DOCUMENT);
	struct toml_doc *doc = NULL;
	struct bx_error err;

	(void)state;
	assert_non_null(buf);
	memcpy(buf, "a=", 2);
	memset(buf + 2, '[', TOML_MAX_DOCUMENT - 2);
	assert_int_equal(toml_parse("t.toml", buf, TOML_MAX_DOCUMENT, &doc,
	    &err), -1);
	assert_non_null(strstr(err.msg, depth_msg));
	memset(buf, '{', TOML_MAX_DOCUMENT);
	assert_int_equal(toml_parse("t.toml", buf, TOML_MAX_DOCUMENT, &doc,
	    &err), -1);
	free(buf);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_document_at_the_limit_parses),
		cmocka_unit_test(test_document_over_the_limit_is_refused),
		cmocka_unit_test(test_array_depth),
		cmocka_unit_test(test_inline_table_depth),
		cmocka_unit_test(test_header_depth),
		cmocka_unit_test(test_dotted_key_depth),
		cmocka_unit_test(test_array_of_tables_counts_the_array_and_its_tables),
		cmocka_unit_test(test_mixed_nesting_adds_up),
		cmocka_unit_test(test_a_megabyte_of_brackets_stops_at_the_limit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
