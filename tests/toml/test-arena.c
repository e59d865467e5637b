/*
 * test-arena.c: what the parser held goes back to the allocator
 * overwritten. A secret file's value is a string of the document: it
 * lives in the arena (arena.c) and, while it is decoded, in the lexer's
 * scratch (lex.c), which grows. freecheck.c sees every free(3) and
 * realloc(3) of the parser's and counts the blocks that still hold it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "toml/toml.h"
#include "freecheck.h"

/*
 * Longer than the scratch's first 256 bytes: written twice around an
 * escape, it makes the scratch grow while holding the first half.
 */
#define VALUE_LEN	300

/* A value of VALUE_LEN bytes made of the needle, written into value. */
static void
make_value(char *value)
{
	size_t i;

	for (i = 0; i < VALUE_LEN; i++)
		value[i] = "wipe-me-7Qx"[i % 11];
	value[VALUE_LEN] = '\0';
}

/* A document that parses: the value's string, an escape in its middle. */
static void
test_parsed_document_wiped(void **state)
{
	char value[VALUE_LEN + 1], doc_text[2 * VALUE_LEN + 128];
	struct toml_doc *doc = NULL;
	struct bx_error err;
	const char *s;
	size_t len;

	(void)state;
	make_value(value);
	snprintf(doc_text, sizeof(doc_text), "kind = \"bearer\"\n"
	    "value = \"%s\\u0041%s\"\n", value, value);
	freecheck_watch("wipe-me-7Qx", 11);
	assert_int_equal(toml_parse("s.toml", doc_text, strlen(doc_text), &doc,
	    &err), 0);
	assert_int_equal(toml_table_get_string(toml_doc_root(doc), "value",
	    &s, &len), TOML_FOUND);
	assert_int_equal(len, 2 * VALUE_LEN + 1);
	toml_doc_free(doc);
	assert_int_equal(freecheck_stop(), 0);
}

/* A document that fails after the value: freed by toml_parse() itself. */
static void
test_failed_document_wiped(void **state)
{
	char value[VALUE_LEN + 1], doc_text[VALUE_LEN + 128];
	struct toml_doc *doc = NULL;
	struct bx_error err;

	(void)state;
	make_value(value);
	snprintf(doc_text, sizeof(doc_text), "value = \"%s\"\nvalue = 1\n",
	    value);
	freecheck_watch("wipe-me-7Qx", 11);
	assert_int_equal(toml_parse("s.toml", doc_text, strlen(doc_text), &doc,
	    &err), -1);
	assert_int_equal(freecheck_stop(), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parsed_document_wiped),
		cmocka_unit_test(test_failed_document_wiped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
