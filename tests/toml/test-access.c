/*
 * test-access.c: the API decoders use: typed lookups that tell absent from
 * wrong type, key walking in document order, positions of keys and
 * values, arrays, datetimes with their kind and original text, and
 * toml_fail_at() messages.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <cmocka.h>

#include "toml-test-util.h"

static const char grant[] =
    "# grants/notes-read.toml\n"
    "tool = \"read_file\"\n"
    "mode = \"auto\"\n"
    "max_taint = 3\n"
    "expires = 2026-01-01T00:00:00Z\n"
    "ratio = 0.5\n"
    "untrusted = false\n"
    "\n"
    "[constraints]\n"
    "paths = [\"/home/a\", \"/tmp\"]\n"
    "  hosts = []\n";

static void
test_typed_lookup_found(void **state)
{
	struct toml_doc *doc = parse_ok(grant);
	const struct toml_table *root = toml_doc_root(doc), *c;
	const struct toml_array *paths;
	const char *s;
	size_t len;
	int64_t n;
	double d;
	int b;

	(void)state;
	assert_int_equal(toml_table_get_string(root, "tool", &s, &len),
	    TOML_FOUND);
	assert_string_equal(s, "read_file");
	assert_int_equal(len, 9);
	assert_int_equal(toml_table_get_integer(root, "max_taint", &n),
	    TOML_FOUND);
	assert_int_equal(n, 3);
	assert_int_equal(toml_table_get_float(root, "ratio", &d), TOML_FOUND);
	assert_true(d == 0.5);
	assert_int_equal(toml_table_get_bool(root, "untrusted", &b),
	    TOML_FOUND);
	assert_int_equal(b, 0);
	assert_int_equal(toml_table_get_table(root, "constraints", &c),
	    TOML_FOUND);
	assert_int_equal(toml_table_get_array(c, "paths", &paths), TOML_FOUND);
	assert_int_equal(toml_array_len(paths), 2);
	assert_int_equal(toml_value_string(toml_array_at(paths, 1), &s, NULL),
	    0);
	assert_string_equal(s, "/tmp");
	assert_null(toml_array_at(paths, 2));
	toml_doc_free(doc);
}

static void
test_absent_and_wrong_type_differ(void **state)
{
	struct toml_doc *doc = parse_ok(grant);
	const struct toml_table *root = toml_doc_root(doc);
	const struct toml_value *v;
	const char *s = "untouched";
	int64_t n = 42;

	(void)state;
	assert_int_equal(toml_table_get_string(root, "secret", &s, NULL),
	    TOML_ABSENT);
	assert_int_equal(toml_table_get_string(root, "max_taint", &s, NULL),
	    TOML_WRONG_TYPE);
	assert_string_equal(s, "untouched");
	assert_int_equal(toml_table_get_integer(root, "tool", &n),
	    TOML_WRONG_TYPE);
	assert_int_equal(n, 42);
	assert_int_equal(toml_table_get(root, "mode", TOML_STRING, &v),
	    TOML_FOUND);
	assert_int_equal(toml_table_get(root, "mode", TOML_TABLE, &v),
	    TOML_WRONG_TYPE);
	assert_null(toml_table_find(root, "nope"));
	toml_doc_free(doc);
}

static void
test_bare_datetime_is_not_a_string(void **state)
{
	struct toml_doc *doc = parse_ok(grant);
	const struct toml_table *root = toml_doc_root(doc);
	const struct toml_value *v;
	struct toml_datetime dt;
	struct bx_error err;
	const char *s;

	(void)state;
	/* What the grants decoder does to say "quote it". */
	assert_int_equal(toml_table_get_string(root, "expires", &s, NULL),
	    TOML_WRONG_TYPE);
	v = toml_table_find(root, "expires");
	assert_non_null(v);
	assert_true(toml_type_is_datetime(toml_value_type(v)));
	assert_int_equal(toml_value_datetime(v, &dt), 0);
	assert_int_equal(toml_fail_at(&err, doc, toml_value_line(v),
	    "field \"expires\" must be a quoted string, not a bare %s: "
	    "write \"%s\"", toml_type_name(dt.dt_kind), dt.dt_text), -1);
	assert_string_equal(err.msg, "t.toml:5: field \"expires\" must be a "
	    "quoted string, not a bare offset datetime: write "
	    "\"2026-01-01T00:00:00Z\"");
	toml_doc_free(doc);
}

static void
test_datetime_kinds_and_components(void **state)
{
	struct toml_doc *doc = parse_ok(
	    "odt = 1979-05-27 07:32:00.999999999999-07:30\n"
	    "ldt = 1979-05-27t07:32:00.5\n"
	    "ld = 2000-02-29\n"
	    "lt = 23:59:60\n");
	const struct toml_table *root = toml_doc_root(doc);
	struct toml_datetime dt;

	(void)state;
	assert_int_equal(toml_table_get_datetime(root, "odt", &dt),
	    TOML_FOUND);
	assert_int_equal(dt.dt_kind, TOML_OFFSET_DATETIME);
	assert_int_equal(dt.dt_year, 1979);
	assert_int_equal(dt.dt_month, 5);
	assert_int_equal(dt.dt_day, 27);
	assert_int_equal(dt.dt_hour, 7);
	assert_int_equal(dt.dt_minute, 32);
	assert_int_equal(dt.dt_second, 0);
	assert_int_equal(dt.dt_nanosecond, 999999999);
	assert_int_equal(dt.dt_offset_min, -(7 * 60 + 30));
	assert_string_equal(dt.dt_text,
	    "1979-05-27 07:32:00.999999999999-07:30");

	assert_int_equal(toml_table_get_datetime(root, "ldt", &dt),
	    TOML_FOUND);
	assert_int_equal(dt.dt_kind, TOML_LOCAL_DATETIME);
	assert_int_equal(dt.dt_nanosecond, 500000000);
	assert_int_equal(dt.dt_offset_min, 0);

	assert_int_equal(toml_table_get_datetime(root, "ld", &dt), TOML_FOUND);
	assert_int_equal(dt.dt_kind, TOML_LOCAL_DATE);
	assert_int_equal(dt.dt_day, 29);
	assert_int_equal(dt.dt_hour, 0);
	assert_string_equal(dt.dt_text, "2000-02-29");

	assert_int_equal(toml_table_get_datetime(root, "lt", &dt), TOML_FOUND);
	assert_int_equal(dt.dt_kind, TOML_LOCAL_TIME);
	assert_int_equal(dt.dt_year, 0);
	assert_int_equal(dt.dt_second, 60);
	toml_doc_free(doc);
}

static void
test_keys_walk_in_document_order(void **state)
{
	static const char *const want[] = { "zeta", "alpha", "mid", "a b",
	    "srv", "list" };
	struct toml_doc *doc = parse_ok(
	    "zeta = 1\nalpha = 2\nmid.x = 3\n\"a b\" = 4\n"
	    "[srv]\n[[list]]\n");
	const struct toml_table *root = toml_doc_root(doc);
	const char *key;
	size_t i, len;
	int line, column;

	(void)state;
	assert_int_equal(toml_table_len(root), 6);
	for (i = 0; i < 6; i++) {
		key = toml_table_key_at(root, i, &len, &line, &column);
		assert_string_equal(key, want[i]);
		assert_int_equal(len, strlen(want[i]));
		assert_int_equal(line, (int)i + 1);
		assert_int_equal(column, i < 4 ? 1 : i == 4 ? 2 : 3);
		assert_non_null(toml_table_value_at(root, i));
	}
	assert_null(toml_table_key_at(root, 6, NULL, NULL, NULL));
	assert_null(toml_table_value_at(root, 6));
	toml_doc_free(doc);
}

static void
test_many_keys_keep_order_and_lookup(void **state)
{
	char buf[64 * 1024], key[16];
	const struct toml_table *root;
	struct toml_doc *doc;
	size_t n = 0, i;
	int64_t v;

	(void)state;
	for (i = 0; i < 3000; i++)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "k%zu = %zu\n",
		    i, i);
	doc = parse_ok(buf);
	root = toml_doc_root(doc);
	assert_int_equal(toml_table_len(root), 3000);
	for (i = 0; i < 3000; i += 7) {
		snprintf(key, sizeof(key), "k%zu", i);
		assert_string_equal(toml_table_key_at(root, i, NULL, NULL,
		    NULL), key);
		assert_int_equal(toml_table_get_integer(root, key, &v),
		    TOML_FOUND);
		assert_int_equal(v, (int64_t)i);
	}
	assert_int_equal(toml_table_get_integer(root, "k3000", &v),
	    TOML_ABSENT);
	toml_doc_free(doc);
}

static void
test_positions_of_values_and_tables(void **state)
{
	struct toml_doc *doc = parse_ok(
	    "[a.b]\nx = 1\n[a]\ny =   [\n  1,\n  \"two\",\n]\n"
	    "[a.b.c]\n");
	const struct toml_table *root = toml_doc_root(doc), *a, *b;
	const struct toml_array *arr;
	const struct toml_value *v;
	int line;

	(void)state;
	assert_int_equal(toml_table_line(root), 1);
	assert_int_equal(toml_table_get_table(root, "a", &a), TOML_FOUND);
	/* [a] is defined on line 3, though [a.b] implied it on line 1. */
	assert_int_equal(toml_table_line(a), 3);
	toml_table_key_at(root, 0, NULL, &line, NULL);
	assert_int_equal(line, 1);
	assert_int_equal(toml_table_get_table(a, "b", &b), TOML_FOUND);
	assert_int_equal(toml_table_line(b), 1);
	v = toml_table_find(a, "y");
	assert_int_equal(toml_value_line(v), 4);
	assert_int_equal(toml_value_column(v), 7);
	assert_int_equal(toml_value_array(v, &arr), 0);
	assert_int_equal(toml_value_line(toml_array_at(arr, 0)), 5);
	assert_int_equal(toml_value_type(toml_array_at(arr, 1)), TOML_STRING);
	assert_int_equal(toml_value_line(toml_array_at(arr, 1)), 6);
	assert_int_equal(toml_value_column(toml_array_at(arr, 1)), 3);
	toml_doc_free(doc);
}

static void
test_array_of_tables(void **state)
{
	struct toml_doc *doc = parse_ok(
	    "[[srv]]\nname = \"a\"\n[srv.tls]\non = true\n"
	    "[[srv]]\nname = \"b\"\n");
	const struct toml_table *root = toml_doc_root(doc), *t;
	const struct toml_array *srv;
	const char *s;
	int b;

	(void)state;
	assert_int_equal(toml_table_get_array(root, "srv", &srv), TOML_FOUND);
	assert_int_equal(toml_array_len(srv), 2);
	assert_int_equal(toml_value_table(toml_array_at(srv, 0), &t), 0);
	assert_int_equal(toml_table_line(t), 1);
	assert_int_equal(toml_table_len(t), 2);
	assert_int_equal(toml_table_get_table(t, "tls", &t), TOML_FOUND);
	assert_int_equal(toml_table_get_bool(t, "on", &b), TOML_FOUND);
	assert_int_equal(b, 1);
	assert_int_equal(toml_value_table(toml_array_at(srv, 1), &t), 0);
	assert_int_equal(toml_table_line(t), 5);
	assert_int_equal(toml_table_get_string(t, "name", &s, NULL),
	    TOML_FOUND);
	assert_string_equal(s, "b");
	toml_doc_free(doc);
}

static void
test_strings_may_hold_nul(void **state)
{
	struct toml_doc *doc = parse_ok("p = \"/etc\\u0000x\"\n");
	const char *s;
	size_t len;

	(void)state;
	assert_int_equal(toml_table_get_string(toml_doc_root(doc), "p", &s,
	    &len), TOML_FOUND);
	assert_int_equal(len, 6);
	assert_int_equal(strlen(s), 4);
	assert_memory_equal(s, "/etc\0x", 6);
	toml_doc_free(doc);
}

/*
 * A key holding a NUL: with its length it is the key itself; walked as a C
 * string it shows the NUL as \u0000, so it never passes for "paths".
 */
static void
test_keys_may_hold_nul(void **state)
{
	struct toml_doc *doc = parse_ok("paths = 1\n\"paths\\u0000x\" = 2\n"
	    "[t]\n\"\\u0000\" = 3\n");
	const struct toml_table *root = toml_doc_root(doc), *t;
	const char *key;
	size_t len;
	int line;

	(void)state;
	key = toml_table_key_at(root, 1, &len, &line, NULL);
	assert_int_equal(len, 7);
	assert_memory_equal(key, "paths\0x", 8);
	assert_int_equal(line, 2);
	key = toml_table_key_at(root, 1, NULL, &line, NULL);
	assert_string_equal(key, "paths\\u0000x");
	assert_int_equal(line, 2);
	assert_string_equal(toml_table_key_at(root, 0, NULL, NULL, NULL),
	    "paths");
	assert_int_equal(toml_table_get_table(root, "t", &t), TOML_FOUND);
	assert_string_equal(toml_table_key_at(t, 0, NULL, NULL, NULL),
	    "\\u0000");
	key = toml_table_key_at(t, 0, &len, NULL, NULL);
	assert_int_equal(len, 1);
	assert_int_equal(key[0], '\0');
	toml_doc_free(doc);
}

static void
test_conversions_refuse_other_types(void **state)
{
	struct toml_doc *doc = parse_ok("n = 1\n");
	const struct toml_value *v = toml_table_find(toml_doc_root(doc), "n");
	const struct toml_table *t = NULL;
	const struct toml_array *a = NULL;
	struct toml_datetime dt;
	const char *s = NULL;
	double d = 7;
	int b = 7;

	(void)state;
	assert_int_equal(toml_value_string(v, &s, NULL), -1);
	assert_int_equal(toml_value_float(v, &d), -1);
	assert_int_equal(toml_value_bool(v, &b), -1);
	assert_int_equal(toml_value_datetime(v, &dt), -1);
	assert_int_equal(toml_value_array(v, &a), -1);
	assert_int_equal(toml_value_table(v, &t), -1);
	assert_null(s);
	assert_null(a);
	assert_null(t);
	assert_true(d == 7);
	assert_int_equal(b, 7);
	toml_doc_free(doc);
}

static void
test_names(void **state)
{
	struct toml_doc *doc = parse_ok("");

	(void)state;
	assert_string_equal(toml_doc_name(doc), "t.toml");
	assert_int_equal(toml_table_len(toml_doc_root(doc)), 0);
	assert_string_equal(toml_type_name(TOML_STRING), "string");
	assert_string_equal(toml_type_name(TOML_LOCAL_DATE), "local date");
	assert_false(toml_type_is_datetime(TOML_STRING));
	toml_doc_free(doc);
	toml_doc_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_typed_lookup_found),
		cmocka_unit_test(test_absent_and_wrong_type_differ),
		cmocka_unit_test(test_bare_datetime_is_not_a_string),
		cmocka_unit_test(test_datetime_kinds_and_components),
		cmocka_unit_test(test_keys_walk_in_document_order),
		cmocka_unit_test(test_many_keys_keep_order_and_lookup),
		cmocka_unit_test(test_positions_of_values_and_tables),
		cmocka_unit_test(test_array_of_tables),
		cmocka_unit_test(test_strings_may_hold_nul),
		cmocka_unit_test(test_keys_may_hold_nul),
		cmocka_unit_test(test_conversions_refuse_other_types),
		cmocka_unit_test(test_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
