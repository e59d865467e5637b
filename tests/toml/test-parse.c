/*
 * test-parse.c: the parser's errors: each names the file, the exact line
 * and the key or table it is about. toml-test checks which documents are
 * accepted; these tests pin what a person is told when one is not.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "toml-test-util.h"

static void
test_duplicate_key_names_key_and_both_lines(void **state)
{
	(void)state;
	parse_fails("tool = \"shell\"\nmode = \"ask\"\n\n# again\nmode = \"deny\"\n",
	    "t.toml:5: key \"mode\": \"mode\" is already defined as a string "
	    "on line 2");
}

static void
test_duplicate_key_after_quoting_is_the_same_key(void **state)
{
	(void)state;
	parse_fails("a = 1\n'a' = 2\n",
	    "t.toml:2: key \"a\": \"a\" is already defined as an integer on "
	    "line 1");
	parse_fails("\"a b\" = 1\n'a b' = 2\n",
	    "t.toml:2: key \"a b\": \"a b\" is already defined as an integer "
	    "on line 1");
}

static void
test_duplicate_dotted_key(void **state)
{
	(void)state;
	parse_fails("[server]\nhost.name = \"a\"\nport = 1\nhost.name = \"b\"\n",
	    "t.toml:4: key \"host.name\": \"name\" is already defined as a "
	    "string on line 2");
}

static void
test_table_defined_twice(void **state)
{
	(void)state;
	parse_fails("[a]\nx = 1\n\n[b]\n[a]\n",
	    "t.toml:5: table [a]: \"a\" is already defined by a [table] "
	    "header on line 1");
}

static void
test_implied_table_may_be_defined_once(void **state)
{
	(void)state;
	toml_doc_free(parse_ok("[a.b]\n[a]\n"));
	parse_fails("[a.b]\n[a]\n[a]\n",
	    "t.toml:3: table [a]: \"a\" is already defined by a [table] "
	    "header on line 2");
}

static void
test_header_over_dotted_table(void **state)
{
	(void)state;
	parse_fails("[t1]\nt2.t3.v = 0\n[t1.t2]\n",
	    "t.toml:3: table [t1.t2]: \"t2\" is already defined by dotted "
	    "keys on line 2");
}

static void
test_dotted_keys_cannot_extend_header_tables(void **state)
{
	(void)state;
	parse_fails("[a.b.c]\nz = 9\n[a]\nb.c.t = 1\n",
	    "t.toml:4: key \"b.c.t\": \"c\" is already defined by a [table] "
	    "header on line 1; dotted keys cannot extend it");
	parse_fails("[a]\nx = 1\n[b]\nx = 2\n[b]\n",
	    "t.toml:5: table [b]: \"b\" is already defined by a [table] "
	    "header on line 3");
}

static void
test_dotted_keys_define_implied_tables(void **state)
{
	(void)state;
	/* [a.b.c] implies a.b; dotted keys in [a] may define it, once. */
	toml_doc_free(parse_ok("[a.b.c]\n[a]\nb.x = 1\n[a.b.e]\n"));
	parse_fails("[a.b.c]\n[a]\n\nb.x = 1\n[a.b]\n",
	    "t.toml:5: table [a.b]: \"b\" is already defined by dotted keys "
	    "on line 4");
}

static void
test_inline_tables_are_sealed(void **state)
{
	(void)state;
	parse_fails("a = {b = 1}\n\na.c = 2\n",
	    "t.toml:3: key \"a.c\": \"a\" is already defined as an inline "
	    "table on line 1; dotted keys cannot extend it");
	parse_fails("a = {b = 1}\n[a.c]\n",
	    "t.toml:2: table [a.c]: \"a\" is already defined as an inline "
	    "table on line 1; inline tables cannot be extended");
	parse_fails("a = {b = {c = 1}, b.d = 2}\n",
	    "t.toml:1: key \"a.b.d\": \"b\" is already defined as an inline "
	    "table on line 1; dotted keys cannot extend it");
}

static void
test_static_array_is_not_an_array_of_tables(void **state)
{
	(void)state;
	parse_fails("a = []\n[[a]]\n",
	    "t.toml:2: array of tables [[a]]: \"a\" is already defined as an "
	    "array on line 1");
	parse_fails("[[a]]\n[a]\n",
	    "t.toml:2: table [a]: \"a\" is already defined as an array of "
	    "tables on line 1");
}

static void
test_value_used_as_table(void **state)
{
	(void)state;
	parse_fails("[a]\nb = 1\n\n[a.b]\n",
	    "t.toml:4: table [a.b]: \"b\" is already defined as an integer on "
	    "line 2");
	parse_fails("[a]\nb = 1\n\n[a.b.c]\n",
	    "t.toml:4: table [a.b.c]: \"b\" is already defined as an integer "
	    "on line 2, not a table");
}

static void
test_errors_in_values_name_the_key(void **state)
{
	(void)state;
	parse_fails("a = 1\n[srv]\nport = 0x_1\n",
	    "t.toml:3: key \"port\": invalid hexadecimal integer 0x_1");
	parse_fails("n = 9223372036854775808\n",
	    "t.toml:1: key \"n\": integer 9223372036854775808 is out of the "
	    "64-bit range");
	parse_fails("n = 012\n",
	    "t.toml:1: key \"n\": invalid integer 012: leading zeros are not "
	    "allowed");
	parse_fails("d = 2023-02-29\n",
	    "t.toml:1: key \"d\": invalid date: 2023-02 has no day 29");
	parse_fails("s = \"\\q\"\n",
	    "t.toml:1: key \"s\": invalid escape \\q in a string");
	parse_fails("s = \"\\uD800\"\n",
	    "t.toml:1: key \"s\": \\uD800 is not a Unicode scalar value");
	parse_fails("s = \"\\U00110000\"\n",
	    "t.toml:1: key \"s\": \\U00110000 is not a Unicode scalar value");
}

static void
test_errors_inside_inline_tables_name_the_full_key(void **state)
{
	(void)state;
	parse_fails("x = 1\nsrv = { port = 1, host = { name = tru } }\n",
	    "t.toml:2: key \"srv.host.name\": expected a value, found 't'");
}

static void
test_multiline_string_errors_give_the_line_of_the_fault(void **state)
{
	(void)state;
	parse_fails("s = \"\"\"\none\ntwo \\x\n\"\"\"\n",
	    "t.toml:3: key \"s\": invalid escape \\x in a string");
	parse_fails("s = '''\none\ntwo\n",
	    "t.toml:4: key \"s\": unterminated multi-line literal string");
}

static void
test_unterminated_single_line_string(void **state)
{
	(void)state;
	parse_fails("a = 1\ns = \"abc\nb = 2\n",
	    "t.toml:2: key \"s\": unterminated basic string: it ends at the "
	    "end of the line");
}

static void
test_control_characters(void **state)
{
	(void)state;
	parse_fails("a = 1 # bell \a\n",
	    "t.toml:1: key \"a\": control character U+0007 in a comment");
	parse_fails("a = 1\n# bell \a\n",
	    "t.toml:2: control character U+0007 in a comment");
	parse_fails("a = 1\ns = 'x\x7fy'\n",
	    "t.toml:2: key \"s\": control character U+007F in a literal "
	    "string; escape it");
	parse_fails("a = 1\r\nb = 2\rc = 3\n",
	    "t.toml:2: key \"b\": carriage return without a line feed");
}

static void
test_crlf_counts_lines(void **state)
{
	(void)state;
	parse_fails("a = 1\r\n\r\nb = 2\r\na = 3\r\n",
	    "t.toml:4: key \"a\": \"a\" is already defined as an integer on "
	    "line 1");
}

static void
test_invalid_utf8_gives_its_line(void **state)
{
	(void)state;
	parse_fails("a = 1\nb = \"\xc3\x28\"\n",
	    "t.toml:2: invalid UTF-8 (byte 0xc3 at offset 11)");
	/* An overlong "/" and an encoded surrogate are not UTF-8 either. */
	parse_fails("s = \"\xc0\xaf\"\n",
	    "t.toml:1: invalid UTF-8 (byte 0xc0 at offset 5)");
	parse_fails("\n\ns = \"\xed\xa0\x80\"\n",
	    "t.toml:3: invalid UTF-8 (byte 0xed at offset 7)");
}

static void
test_syntax_errors(void **state)
{
	(void)state;
	parse_fails("a = 1\nb\n", "t.toml:2: key \"b\": expected '=' after the "
	    "key, found the end of the line");
	parse_fails("a = 1 2\n", "t.toml:1: key \"a\": expected the end of the "
	    "line after a key/value pair, found '2'");
	parse_fails("[a\n", "t.toml:1: table [a]: expected ']' to close the "
	    "header, found the end of the line");
	parse_fails("\n[[a]\n", "t.toml:2: array of tables [[a]]: expected "
	    "']]' to close the header, found ']'");
	parse_fails("a = [1 2]\n", "t.toml:1: key \"a\": expected ',' or ']' in "
	    "an array, found '2'");
	parse_fails("a = {b = 1,}\n", "t.toml:1: key \"a\": expected a key, "
	    "found '}'");
	parse_fails("a = {b = 1,\nc = 2}\n", "t.toml:1: key \"a\": an inline "
	    "table must fit on one line (no newlines or comments inside the "
	    "braces)");
	parse_fails("a = \"\"\"x\"\"\"\"\"\"\n", "t.toml:1: key \"a\": too many "
	    "quotes (6) at the end of a multi-line string");
	parse_fails("= 1\n", "t.toml:1: expected a key, found '='");
	parse_fails("k = \"\"\"x\"\"\"\n\"\"\"y\"\"\" = 1\n", "t.toml:2: a key "
	    "cannot be a multi-line string");
}

static void
test_messages_escape_control_characters_in_keys(void **state)
{
	(void)state;
	parse_fails("\"\\u001b[31m\" = 1\n\"\\u001b[31m\" = 2\n",
	    "t.toml:2: key \"\\u001B[31m\": \"\\u001B[31m\" is already "
	    "defined as an integer on line 1");
}

static void
test_error_leaves_output_untouched(void **state)
{
	struct toml_doc *doc = (struct toml_doc *)&doc;
	struct bx_error err;

	(void)state;
	assert_int_equal(toml_parse("t.toml", "a = ", 4, &doc, &err), -1);
	assert_ptr_equal(doc, (struct toml_doc *)&doc);
	assert_string_equal(err.msg, "t.toml:1: key \"a\": expected a value, "
	    "found the end of the document");
}

static void
test_buffer_need_not_be_terminated(void **state)
{
	char buf[5] = { 'a', '=', '1', '2', '3' };
	struct toml_doc *doc = NULL;
	struct bx_error err;
	int64_t n;

	(void)state;
	assert_int_equal(toml_parse("t.toml", buf, 4, &doc, &err), 0);
	assert_int_equal(toml_table_get_integer(toml_doc_root(doc), "a", &n),
	    TOML_FOUND);
	assert_int_equal(n, 12);
	toml_doc_free(doc);
}

static void
test_empty_input_may_be_null(void **state)
{
	struct toml_doc *doc = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(toml_parse("t.toml", NULL, 0, &doc, &err), 0);
	assert_int_equal(toml_table_len(toml_doc_root(doc)), 0);
	toml_doc_free(doc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duplicate_key_names_key_and_both_lines),
		cmocka_unit_test(test_duplicate_key_after_quoting_is_the_same_key),
		cmocka_unit_test(test_duplicate_dotted_key),
		cmocka_unit_test(test_table_defined_twice),
		cmocka_unit_test(test_implied_table_may_be_defined_once),
		cmocka_unit_test(test_header_over_dotted_table),
		cmocka_unit_test(test_dotted_keys_cannot_extend_header_tables),
		cmocka_unit_test(test_dotted_keys_define_implied_tables),
		cmocka_unit_test(test_inline_tables_are_sealed),
		cmocka_unit_test(test_static_array_is_not_an_array_of_tables),
		cmocka_unit_test(test_value_used_as_table),
		cmocka_unit_test(test_errors_in_values_name_the_key),
		cmocka_unit_test(test_errors_inside_inline_tables_name_the_full_key),
		cmocka_unit_test(test_multiline_string_errors_give_the_line_of_the_fault),
		cmocka_unit_test(test_unterminated_single_line_string),
		cmocka_unit_test(test_control_characters),
		cmocka_unit_test(test_crlf_counts_lines),
		cmocka_unit_test(test_invalid_utf8_gives_its_line),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_messages_escape_control_characters_in_keys),
		cmocka_unit_test(test_error_leaves_output_untouched),
		cmocka_unit_test(test_buffer_need_not_be_terminated),
		cmocka_unit_test(test_empty_input_may_be_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
