/*
 * test-keys.c: the typed-key reader both daemons' configurations use
 * (toml/keys.h): each key type's checks and messages with file and line,
 * sections at an offset, custom keys, "" as unset, and that a key the file
 * leaves out keeps the caller's default.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "toml/keys.h"

struct inner {
	int64_t	 in_big;
	char	*in_path;
};

struct whole {
	char		*w_text;
	char		*w_sock;
	char		*w_opt;
	char		*w_prog;
	int		 w_small;
	int		 w_custom;
	struct inner	 w_inner;
};

/* A custom key: must be the string "yes", stored as 1. */
static int
decode_yes(const struct toml_doc *doc, const struct toml_value *v,
    void *section, struct bx_error *err)
{
	struct whole *w = section;
	const char *s;
	size_t len;

	if (toml_value_string(v, &s, &len) == -1 || strcmp(s, "yes") != 0)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "a.flag must be \"yes\"");
	w->w_custom = 1;
	return 0;
}

static const struct toml_key a_keys[] = {
	{ "text", TOML_KEY_TEXT, offsetof(struct whole, w_text), 0, 8,
	    false, NULL },
	{ "sock", TOML_KEY_SOCKET, offsetof(struct whole, w_sock), 0, 0,
	    false, NULL },
	{ "opt", TOML_KEY_TEXT, offsetof(struct whole, w_opt), 0, 8,
	    true, NULL },
	{ "small", TOML_KEY_INT, offsetof(struct whole, w_small), 1, 10,
	    false, NULL },
	{ "flag", TOML_KEY_CUSTOM, 0, 0, 0, false, decode_yes },
	{ "prog", TOML_KEY_PROGRAM, offsetof(struct whole, w_prog), 0, 8,
	    false, NULL },
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

static const struct toml_key b_keys[] = {
	{ "big", TOML_KEY_INT64, offsetof(struct inner, in_big), -1,
	    INT64_C(1) << 40, false, NULL },
	{ "path", TOML_KEY_PATH, offsetof(struct inner, in_path), 0, 0,
	    false, NULL },
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

static const struct toml_section sections[] = {
	{ "a", a_keys, 0 },
	{ "b", b_keys, offsetof(struct whole, w_inner) },
	{ NULL, NULL, 0 },
};

static void
clear(struct whole *w)
{
	free(w->w_text);
	free(w->w_sock);
	free(w->w_opt);
	free(w->w_prog);
	free(w->w_inner.in_path);
	memset(w, 0, sizeof(*w));
}

/* Decodes text into *w; returns the status, err filled on failure. */
static int
decode(const char *text, struct whole *w, struct bx_error *err)
{
	struct toml_doc *doc;
	int rc;

	memset(w, 0, sizeof(*w));
	w->w_small = 7;
	assert_int_equal(toml_parse("t.toml", text, strlen(text), &doc, err),
	    0);
	rc = toml_keys_decode(doc, sections, w, err);
	toml_doc_free(doc);
	return rc;
}

static void
refused(const char *text, const char *says)
{
	struct bx_error err;
	struct whole w;

	assert_int_equal(decode(text, &w, &err), -1);
	clear(&w);
	if (strcmp(err.msg, says) != 0)
		fail_msg("\"%s\" is not \"%s\"", err.msg, says);
}

static void
test_every_type(void **state)
{
	struct bx_error err;
	struct whole w;

	(void)state;
	assert_int_equal(decode("[a]\ntext = \"12345678\"\nsock = \"/r/s\"\n"
	    "opt = \"\"\nflag = \"yes\"\n[b]\nbig = 1099511627776\n"
	    "path = \"/p/q\"\n", &w, &err), 0);
	assert_string_equal(w.w_text, "12345678");
	assert_string_equal(w.w_sock, "/r/s");
	assert_null(w.w_opt);
	assert_int_equal(w.w_small, 7);
	assert_int_equal(w.w_custom, 1);
	assert_true(w.w_inner.in_big == INT64_C(1) << 40);
	assert_string_equal(w.w_inner.in_path, "/p/q");
	clear(&w);
	assert_int_equal(decode("[a]\nsmall = 10\n[b]\nbig = -1\n", &w, &err),
	    0);
	assert_int_equal(w.w_small, 10);
	assert_true(w.w_inner.in_big == -1);
	clear(&w);
	/* A program: a bare name, or an absolute path of any length. */
	assert_int_equal(decode("[a]\nprog = \"bwrap\"\n", &w, &err), 0);
	assert_string_equal(w.w_prog, "bwrap");
	clear(&w);
	assert_int_equal(decode("[a]\nprog = \"/usr/local/bin/bwrap\"\n",
	    &w, &err), 0);
	assert_string_equal(w.w_prog, "/usr/local/bin/bwrap");
	clear(&w);
	assert_int_equal(decode("", &w, &err), 0);
	assert_int_equal(w.w_small, 7);
	assert_null(w.w_text);
}

static void
test_refusals(void **state)
{
	(void)state;
	refused("[c]\n", "t.toml:1: unknown table or key \"c\"");
	refused("a = 1\n", "t.toml:1: \"a\" must be a table");
	refused("[a]\n\ncolour = 1\n", "t.toml:3: unknown key \"a.colour\"");
	refused("[a]\ntext = 1\n", "t.toml:2: a.text must be a string");
	refused("[a]\ntext = \"\"\n",
	    "t.toml:2: a.text must be 1 to 8 bytes without NUL");
	refused("[a]\ntext = \"123456789\"\n",
	    "t.toml:2: a.text must be 1 to 8 bytes without NUL");
	refused("[a]\ntext = \"a\\u0000b\"\n",
	    "t.toml:2: a.text must be 1 to 8 bytes without NUL");
	refused("[a]\nsmall = 0\n", "t.toml:2: a.small must be 1 to 10");
	refused("[a]\nsmall = \"3\"\n", "t.toml:2: a.small must be an integer");
	refused("[a]\nflag = \"no\"\n", "t.toml:2: a.flag must be \"yes\"");
	refused("[b]\nbig = 1099511627777\n",
	    "t.toml:2: b.big must be -1 to 1099511627776");
	refused("[b]\npath = \"rel\"\n",
	    "t.toml:2: b.path: not an absolute path (must start with /)");
	refused("[a]\nprog = \"bin/bwrap\"\n",
	    "t.toml:2: a.prog: not an absolute path (must start with /)");
	refused("[a]\nprog = \"./x\"\n",
	    "t.toml:2: a.prog: not an absolute path (must start with /)");
	refused("[a]\nprog = \"\"\n",
	    "t.toml:2: a.prog must be 1 to 8 bytes without NUL");
	refused("[b]\npath = \"\"\n",
	    "t.toml:2: b.path: not an absolute path (must start with /)");
	refused("[a]\nsock = \"/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"\n",
	    "t.toml:2: a.sock: a socket path is at most 107 bytes");
}

/* A table whose INT range does not fit an int fails every load. */
static void
test_int_range_must_fit(void **state)
{
	static const struct toml_key wide_keys[] = {
		{ "small", TOML_KEY_INT, offsetof(struct whole, w_small), 1,
		    (int64_t)INT_MAX + 1, false, NULL },
		{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
	};
	static const struct toml_section wide[] = {
		{ "a", wide_keys, 0 },
		{ NULL, NULL, 0 },
	};
	struct toml_doc *doc;
	struct bx_error err;
	struct whole w;

	(void)state;
	memset(&w, 0, sizeof(w));
	assert_int_equal(toml_parse("t.toml", "", 0, &doc, &err), 0);
	assert_int_equal(toml_keys_decode(doc, wide, &w, &err), -1);
	toml_doc_free(doc);
	assert_string_equal(err.msg,
	    "a.small: the range 1 to 2147483648 is not an int's");
	assert_int_equal(w.w_small, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_type),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_int_range_must_fit),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
