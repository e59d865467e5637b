/*
 * test-args.c: strict argument parsing and the path, host and URL form
 * checks of src/brokerd/args.h.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/args.h"
#include "proto/json.h"

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

static int
parse(enum bx_tool tool, const char *text, struct tool_args **ret,
    struct bx_error *err)
{
	err->msg[0] = '\0';
	return args_parse(tool, text, strlen(text), ret, err);
}

/* Parsing must fail, and the message must contain want. */
static void
refused(enum bx_tool tool, const char *text, const char *want)
{
	struct tool_args *a = NULL;
	struct bx_error err;

	if (parse(tool, text, &a, &err) != -1)
		fail_msg("accepted %s", text);
	assert_null(a);
	if (strstr(err.msg, want) == NULL)
		fail_msg("%s: message \"%s\" lacks \"%s\"", text, err.msg,
		    want);
}

static void
test_read_file(void **state)
{
	struct tool_args *a = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(parse(BX_TOOL_READ_FILE,
	    "{\"path\":\"/home/kyle/notes/a.md\"}", &a, &err), 0);
	assert_int_equal(a->ta_tool, BX_TOOL_READ_FILE);
	assert_string_equal(a->ta_path, "/home/kyle/notes/a.md");
	assert_null(a->ta_content);
	args_free(a);
	refused(BX_TOOL_READ_FILE, "{}", "missing field \"path\"");
	refused(BX_TOOL_READ_FILE, "{\"path\":\"/a\",\"mode\":1}",
	    "unknown field \"mode\"");
	refused(BX_TOOL_READ_FILE, "{\"path\":7}", "must be a string");
	refused(BX_TOOL_READ_FILE, "{\"path\":null}", "must be a string");
	refused(BX_TOOL_READ_FILE, "{\"path\":\"/a\",\"path\":\"/b\"}",
	    "not valid JSON");
	refused(BX_TOOL_READ_FILE, "[\"/a\"]", "must be a JSON object");
	refused(BX_TOOL_READ_FILE, "{\"path\":\"/a\"", "not valid JSON");
	refused(BX_TOOL_READ_FILE, "{\"path\":\"/a\"} {}", "not valid JSON");
	refused(BX_TOOL_READ_FILE, "{\"path\":\"/a\\u0000b\"}",
	    "field \"path\" contains a NUL byte");
	refused(BX_TOOL_READ_FILE, "{\"path\\u0000\":\"/a\"}",
	    "not valid JSON");
	refused(BX_TOOL_READ_FILE, "{\"path\":\"notes/a.md\"}",
	    "field \"path\": not an absolute path");
}

static void
test_write_file(void **state)
{
	struct tool_args *a = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(parse(BX_TOOL_WRITE_FILE,
	    "{\"content\":\"x\\ny\",\"path\":\"/tmp/a\"}", &a, &err), 0);
	assert_string_equal(a->ta_path, "/tmp/a");
	assert_string_equal(a->ta_content, "x\ny");
	args_free(a);
	refused(BX_TOOL_WRITE_FILE, "{\"path\":\"/tmp/a\"}",
	    "missing field \"content\"");
	refused(BX_TOOL_WRITE_FILE, "{\"path\":\"/tmp/a\",\"content\":[]}",
	    "field \"content\" must be a string");
	refused(BX_TOOL_WRITE_FILE,
	    "{\"path\":\"/tmp/a\",\"content\":\"\",\"append\":true}",
	    "unknown field \"append\"");
	/* Content is not inspected, but a C string cannot carry a NUL. */
	refused(BX_TOOL_WRITE_FILE,
	    "{\"path\":\"/tmp/a\",\"content\":\"a\\u0000b\"}",
	    "field \"content\" contains a NUL byte");
}

static void
test_shell(void **state)
{
	struct tool_args *a = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(parse(BX_TOOL_SHELL, "{\"command\":\"ls -l\"}", &a,
	    &err), 0);
	assert_string_equal(a->ta_command, "ls -l");
	assert_null(a->ta_cwd);
	args_free(a);
	assert_int_equal(parse(BX_TOOL_SHELL,
	    "{\"command\":\"ls\",\"cwd\":null}", &a, &err), 0);
	assert_null(a->ta_cwd);
	args_free(a);
	assert_int_equal(parse(BX_TOOL_SHELL,
	    "{\"command\":\"make\",\"cwd\":\"/home/kyle/scratch\"}", &a,
	    &err), 0);
	assert_string_equal(a->ta_cwd, "/home/kyle/scratch");
	args_free(a);
	refused(BX_TOOL_SHELL, "{\"cwd\":\"/a\"}", "missing field \"command\"");
	refused(BX_TOOL_SHELL, "{\"command\":\"ls\",\"cwd\":\"a/b\"}",
	    "field \"cwd\"");
	refused(BX_TOOL_SHELL, "{\"command\":\"ls\",\"cwd\":false}",
	    "field \"cwd\" must be a string");
	refused(BX_TOOL_SHELL, "{\"command\":\"ls\",\"env\":{}}",
	    "unknown field \"env\"");
	refused(BX_TOOL_SHELL, "{\"command\":\"ls\\u0000; rm\"}",
	    "field \"command\" contains a NUL byte");
}

static void
test_http_fetch(void **state)
{
	struct tool_args *a = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(parse(BX_TOOL_HTTP_FETCH,
	    "{\"url\":\"https://www.example.com:443/a?b=c#d\"}", &a, &err), 0);
	assert_string_equal(a->ta_url, "https://www.example.com:443/a?b=c#d");
	assert_string_equal(a->ta_host, "www.example.com");
	args_free(a);
	refused(BX_TOOL_HTTP_FETCH, "{\"url\":\"http://example.com/\"}",
	    "field \"url\": must start with https://");
	refused(BX_TOOL_HTTP_FETCH, "{\"uri\":\"https://example.com/\"}",
	    "unknown field \"uri\"");
}

static void
test_no_tool(void **state)
{
	struct tool_args *a = NULL;
	struct bx_error err;

	(void)state;
	assert_int_equal(args_parse(BX_TOOL_MAX, "{}", 2, &a, &err), -1);
	assert_null(a);
}

static void
test_too_long(void **state)
{
	struct tool_args *a = NULL;
	struct bx_error err;
	size_t len = ARGS_TEXT_MAX + 1;
	char *text;

	(void)state;
	text = malloc(len);
	assert_non_null(text);
	memset(text, ' ', len);
	text[0] = '{';
	text[len - 1] = '}';
	assert_int_equal(args_parse(BX_TOOL_READ_FILE, text, len, &a, &err),
	    -1);
	assert_non_null(strstr(err.msg, "longer than"));
	free(text);
}

/* {"path": with arrays nested so that the whole is depth deep, into text. */
static size_t
nested(char *text, int depth)
{
	size_t n = (size_t)sprintf(text, "{\"path\":");
	int i;

	for (i = 1; i < depth; i++)
		text[n++] = '[';
	for (i = 1; i < depth; i++)
		text[n++] = ']';
	text[n++] = '}';
	return n;
}

/* Arguments nest no deeper than any other JSON a peer sends. */
static void
test_too_deep(void **state)
{
	char text[2 * BX_JSON_MAX_DEPTH + 16];
	struct tool_args *a = NULL;
	struct bx_error err;
	size_t n;

	(void)state;
	/* At the limit it is parsed, and refused only for its type. */
	n = nested(text, BX_JSON_MAX_DEPTH);
	assert_int_equal(args_parse(BX_TOOL_READ_FILE, text, n, &a, &err), -1);
	assert_non_null(strstr(err.msg, "must be a string"));
	n = nested(text, BX_JSON_MAX_DEPTH + 1);
	assert_int_equal(args_parse(BX_TOOL_READ_FILE, text, n, &a, &err), -1);
	assert_null(a);
	assert_non_null(strstr(err.msg, "nested deeper than"));
}

/* The rows of the design's Paths table, as args_path_inside() sees them. */
static void
test_inside(void **state)
{
	(void)state;
	assert_true(args_path_inside("/home/kyle/notes",
	    "/home/kyle/notes/a.md"));
	assert_true(args_path_inside("/home/kyle/notes", "/home/kyle/notes"));
	assert_false(args_path_inside("/home/kyle/notes",
	    "/home/kyle/notes2/a.md"));
	assert_false(args_path_inside("/home/kyle/notes", "/home/kyle"));
	assert_false(args_path_inside("/home/kyle/notes", "/home/kyle/note"));
	assert_true(args_path_inside("/", "/etc/passwd"));
	assert_true(args_path_inside("/", "/"));
}

static void
test_urls(void **state)
{
	static const struct {
		const char	*url;
		const char	*host;
	} good[] = {
		{ "https://example.com", "example.com" },
		{ "https://example.com/", "example.com" },
		{ "https://example.com:443", "example.com" },
		{ "https://example.com:443/x", "example.com" },
		{ "https://a.example.com/p/q?x=1&y=%20#frag", "a.example.com" },
		{ "https://example.com/~!$&'()*+,;=:@", "example.com" },
	};
	static const struct {
		const char	*url;
		const char	*why;
	} bad[] = {
		{ "http://example.com/", "https://" },
		{ "HTTPS://example.com/", "https://" },
		{ "example.com", "https://" },
		{ "https://", "1 to 253" },
		{ "https:///a", "1 to 253" },
		{ "https://Example.com/", "uppercase" },
		{ "https://127.0.0.1/", "IP address" },
		{ "https://[::1]/", "IP literal" },
		{ "https://[::1]:443/", "IP literal" },
		{ "https://user@example.com/", "userinfo" },
		{ "https://user:pw@example.com/", "userinfo" },
		{ "https://example.com:8443/", "port allowed is 443" },
		{ "https://example.com:/", "port allowed is 443" },
		{ "https://example.com:0443/", "port allowed is 443" },
		{ "https://example.com/a b", "printable ASCII" },
		{ "https://example.com/a\tb", "printable ASCII" },
		{ "https://example.com/\xc3\xa9", "printable ASCII" },
		{ "https://example.com/\x7f", "printable ASCII" },
		{ "https://example", "two labels" },
		{ "https://example.com?q=1", "followed by nothing, :443 or /" },
		{ "https://example.com#f", "followed by nothing, :443 or /" },
		{ "https://example.com?@evil.org/", "followed by nothing" },
		{ "https://example.com:443?q", "followed by nothing" },
		{ "https://0x7f.1/", "IP address" },
		{ "https://1.2.3.0x4/", "IP address" },
	};
	struct bx_error err;
	char *host, *u;
	size_t i;

	(void)state;
	for (i = 0; i < LEN(good); i++) {
		host = NULL;
		if (args_url_check(good[i].url, strlen(good[i].url), &host,
		    &err) != 0)
			fail_msg("%s: %s", good[i].url, err.msg);
		assert_string_equal(host, good[i].host);
		free(host);
	}
	for (i = 0; i < LEN(bad); i++) {
		host = NULL;
		if (args_url_check(bad[i].url, strlen(bad[i].url), &host,
		    &err) != -1)
			fail_msg("accepted %s", bad[i].url);
		assert_null(host);
		if (strstr(err.msg, bad[i].why) == NULL)
			fail_msg("%s: %s", bad[i].url, err.msg);
	}
	u = malloc(ARGS_URL_MAX + 1);
	assert_non_null(u);
	memcpy(u, "https://example.com/", 20);
	memset(u + 20, 'a', ARGS_URL_MAX + 1 - 20);
	host = NULL;
	assert_int_equal(args_url_check(u, ARGS_URL_MAX, &host, &err), 0);
	free(host);
	assert_int_equal(args_url_check(u, ARGS_URL_MAX + 1, &host, &err), -1);
	assert_non_null(strstr(err.msg, "longer than 2048"));
	free(u);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_file),
		cmocka_unit_test(test_write_file),
		cmocka_unit_test(test_shell),
		cmocka_unit_test(test_http_fetch),
		cmocka_unit_test(test_no_tool),
		cmocka_unit_test(test_too_long),
		cmocka_unit_test(test_too_deep),
		cmocka_unit_test(test_inside),
		cmocka_unit_test(test_urls),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
