/*
 * test-fetch_status.c: what bxtool fetch reads out of curl's header dump
 * and stderr (src/bxtool/fetch_status.c), over the shapes curl writes: a
 * plain response, redirect chains, 100 Continue, headers and trailers
 * that read like status lines (the trailer shapes are curl 7.88's own,
 * from a server that sent them), CRLF and LF, cut and empty dumps,
 * HTTP/2, codes with junk after them; the --write-out line present,
 * absent, repeated, with junk. Every dump is fed whole and a byte at a
 * time, which must agree.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "bxtool/fetch_status.h"

struct dump_case {
	const char	*dump;
	size_t		 len;		/* 0: strlen(dump) */
	int		 want;
};

static int
status_fed(const char *dump, size_t len, size_t step)
{
	struct fetch_head h;
	size_t i, n;

	fetch_head_init(&h);
	for (i = 0; i < len; i += n) {
		n = len - i < step ? len - i : step;
		fetch_head_feed(&h, dump + i, n);
	}
	return fetch_head_status(&h);
}

static void
check_dumps(const struct dump_case *cases, size_t n)
{
	size_t i, len;
	int whole, bytes;

	for (i = 0; i < n; i++) {
		len = cases[i].len != 0 ? cases[i].len : strlen(cases[i].dump);
		whole = status_fed(cases[i].dump, len, len + 1);
		bytes = status_fed(cases[i].dump, len, 1);
		if (whole != cases[i].want || bytes != cases[i].want)
			fail_msg("dump %zu: %d whole, %d a byte at a time, not "
			    "%d", i, whole, bytes, cases[i].want);
	}
}

static void
test_plain_and_chains(void **state)
{
	static const struct dump_case cases[] = {
		{ "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n"
		    "Content-Length: 5\r\n\r\n", 0, 200 },
		{ "HTTP/1.1 301 Moved Permanently\r\n"
		    "Location: https://b.test/\r\nContent-Length: 0\r\n\r\n"
		    "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n", 0, 200 },
		{ "HTTP/1.1 302 Found\r\nLocation: /a\r\n\r\n"
		    "HTTP/1.1 307 Temporary Redirect\r\nLocation: /b\r\n\r\n"
		    "HTTP/1.1 404 Not Found\r\n\r\n", 0, 404 },
		{ "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\n\r\n", 0,
		    200 },
		/* A 3xx curl does not follow is final as well. */
		{ "HTTP/1.1 304 Not Modified\r\n\r\n", 0, 304 },
		{ "HTTP/2 103 \r\nlink: </s.css>\r\n\r\nHTTP/2 404 \r\n"
		    "content-type: text/html\r\n\r\n", 0, 404 },
		{ "HTTP/2 200\r\n\r\n", 0, 200 },
		{ "HTTP/3 503 \r\n\r\n", 0, 503 },
		/* LF alone ends a line as well as CRLF does. */
		{ "HTTP/1.1 301 Moved\nLocation: /x\n\nHTTP/1.1 201 Created\n"
		    "\n", 0, 201 },
		{ "HTTP/1.1 301 Moved\r\nLocation: /x\r\n\nHTTP/1.1 201 C\n"
		    "\r\n", 0, 201 },
	};

	(void)state;
	check_dumps(cases, sizeof(cases) / sizeof(cases[0]));
}

static void
test_lookalikes(void **state)
{
	static const struct dump_case cases[] = {
		/* A header is never a status line. */
		{ "HTTP/1.1 200 OK\r\nHTTP/1.1 500 Internal Server Error\r\n"
		    "\r\n", 0, 200 },
		/* Trailers come after the empty line, with none of their own. */
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n"
		    "Connection: close\r\n\r\nHTTP/1.1 500 x: y\r\n", 0, 200 },
		{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		    "X-T: 1\r\nHTTP/1.1 500 x: y\r\n", 0, 200 },
		{ "HTTP/1.1 200 OK\r\n\r\nHTTP/1.1 500 x: y\r\n\r\n"
		    "HTTP/1.1 502 z\r\n\r\n", 0, 200 },
		/* A redirect body's trailers come before the next block. */
		{ "HTTP/1.1 301 Moved\r\nLocation: /\r\n"
		    "Transfer-Encoding: chunked\r\n\r\nX-R: 2\r\n"
		    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
		    "HTTP/1.1 500 x: y\r\n", 0, 200 },
		/* The one shape the dump cannot tell: the server's word. */
		{ "HTTP/1.1 301 Moved\r\nLocation: /\r\n\r\n"
		    "HTTP/1.1 500 x: y\r\nHTTP/1.1 200 OK\r\n\r\n", 0, 500 },
	};

	(void)state;
	check_dumps(cases, sizeof(cases) / sizeof(cases[0]));
}

static void
test_cut_and_junk(void **state)
{
	static const struct dump_case cases[] = {
		{ "", 0, 0 },
		{ "\r\n\r\n", 0, 0 },
		/* curl writes a block before the body, but may be cut. */
		{ "HTTP/1.1 200 OK\r\nContent-Type: te", 0, 200 },
		{ "HTTP/1.1 302 Found\r\nLocation: /x\r\n\r\nHTTP/1.1 404 Not",
		    0, 302 },
		{ "HTTP/1.1 200 OK", 0, 0 },
		{ "HTTP/1.1 20", 0, 0 },
		{ "HTTP/1.1 2000 OK\r\n\r\n", 0, 0 },
		{ "HTTP/1.1 200x\r\n\r\n", 0, 0 },
		{ "HTTP/1.1 200:\r\n\r\n", 0, 0 },
		{ "HTTP/1.1 600 Odd\r\n\r\n", 0, 0 },
		{ "HTTP/1.1 099 Odd\r\n\r\n", 0, 0 },
		{ "HTTP/1.1 2x0 Odd\r\n\r\n", 0, 0 },
		{ "http/1.1 200 OK\r\n\r\n", 0, 0 },
		{ "HTTP/1.1\t200 OK\r\n\r\n", 0, 0 },
		{ "HTTP/1.1  200 OK\r\n\r\n", 0, 0 },
		{ "HTTP/1.1 200\0\r\n\r\n", 18, 0 },
		{ "HTTP/1.1\0 200 OK\r\n\r\n", 20, 200 },
		/* Junk lines before the first status line are passed over. */
		{ "garbage\r\nHTTP/1.1 204 No Content\r\n\r\n", 0, 204 },
		/* A long reason phrase; the code must end within the kept. */
		{ "HTTP/1.1 200 OK and a reason phrase far longer than the "
		    "kept start of a line\r\n\r\n", 0, 200 },
		{ "HTTP/1234567890123456789012 200 OK\r\n\r\n", 0, 200 },
		{ "HTTP/123456789012345678901234 2000\r\n\r\n", 0, 0 },
		{ "HTTP/12345678901234567890123 200\r\n\r\n", 0, 0 },
		{ "HTTP/12345678901234567890123 200\n\n", 0, 200 },
	};

	(void)state;
	check_dumps(cases, sizeof(cases) / sizeof(cases[0]));
}

struct err_case {
	const char	*err;
	size_t		 len;		/* 0: strlen(err) */
	int		 want;
	const char	*left;		/* what is left of err */
};

static void
test_curl_code(void **state)
{
	static const struct err_case cases[] = {
		{ "\nbxtool-curl-code: 200\n", 0, 200, "" },
		{ "curl: (56) Failure when receiving data from the peer\n"
		    "\nbxtool-curl-code: 000\n", 0, 0,
		    "curl: (56) Failure when receiving data from the peer\n" },
		{ "curl: (6) Could not resolve host: x.test\n", 0, 0,
		    "curl: (6) Could not resolve host: x.test\n" },
		{ "", 0, 0, "" },
		/* Repeated: curl writes its own last. */
		{ "\nbxtool-curl-code: 301\nmiddle\nbxtool-curl-code: 404\n", 0,
		    404, "\nbxtool-curl-code: 301\nmiddle" },
		{ "\nbxtool-curl-code: 2000\n", 0, 0, "" },
		{ "\nbxtool-curl-code: 20x\n", 0, 0, "" },
		{ "\nbxtool-curl-code: 200 \nafter", 0, 0, "after" },
		{ "\nbxtool-curl-code: 600\n", 0, 0, "" },
		{ "\nbxtool-curl-code: ", 0, 0, "" },
		{ "\nbxtool-curl-code: 20", 0, 0, "" },
		/* Cut after the code: the end of the text ends the line. */
		{ "x\nbxtool-curl-code: 503", 0, 503, "x" },
		/* Only a line curl starts: the marker follows a newline. */
		{ "bxtool-curl-code: 200\n", 0, 0, "bxtool-curl-code: 200\n" },
		{ "a\nBXTOOL-CURL-CODE: 200\n", 0, 0,
		    "a\nBXTOOL-CURL-CODE: 200\n" },
	};
	char buf[256];
	size_t i, len;
	int code;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		len = cases[i].len != 0 ? cases[i].len : strlen(cases[i].err);
		memcpy(buf, cases[i].err, len);
		code = fetch_curl_code(buf, &len);
		if (code != cases[i].want)
			fail_msg("stderr %zu: code %d, not %d", i, code,
			    cases[i].want);
		assert_int_equal(len, strlen(cases[i].left));
		assert_memory_equal(buf, cases[i].left, len);
	}
	/* A NUL is a byte like any other. */
	memcpy(buf, "a\0b\nbxtool-curl-code: 204\n", 26);
	len = 26;
	assert_int_equal(fetch_curl_code(buf, &len), 204);
	assert_int_equal(len, 3);
}

static bool
encoded(const char *dump)
{
	struct fetch_head h;

	fetch_head_init(&h);
	fetch_head_feed(&h, dump, strlen(dump));
	return fetch_head_encoded(&h);
}

/* The final block's Content-Encoding: anything but identity counts. */
static void
test_encoding(void **state)
{
	(void)state;
	assert_false(encoded("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\n"));
	assert_true(encoded("HTTP/1.1 200 OK\r\nContent-Encoding: gzip\r\n\r\n"));
	assert_true(encoded("HTTP/1.1 200 OK\r\ncontent-encoding:br\r\n\r\n"));
	assert_false(encoded("HTTP/1.1 200 OK\r\nContent-Encoding:  "
	    "IDENTITY \r\n\r\n"));
	assert_true(encoded("HTTP/1.1 200 OK\r\nContent-Encoding: "
	    "identity, gzip\r\n\r\n"));
	/* Too long to keep whole: not identity. */
	assert_true(encoded("HTTP/1.1 200 OK\r\nContent-Encoding: "
	    "identity                          \r\n\r\n"));
	/* A 1xx's or a redirect's header is not the final response's. */
	assert_false(encoded("HTTP/1.1 103 Early\r\nContent-Encoding: gzip"
	    "\r\n\r\nHTTP/1.1 200 OK\r\n\r\n"));
}

/* The redirect line: taken out of curl's stderr, its target copied. */
static void
test_curl_redirect(void **state)
{
	char err[256], out[32];
	size_t len;

	(void)state;
	snprintf(err, sizeof(err), "\n" FETCH_CODE_MARK "302\n"
	    FETCH_REDIRECT_MARK "https://a.test/x\n");
	len = strlen(err);
	assert_int_equal(fetch_curl_redirect(err, &len, out, sizeof(out)), 1);
	assert_string_equal(out, "https://a.test/x");
	assert_int_equal(fetch_curl_code(err, &len), 302);
	assert_int_equal(len, 0);
	snprintf(err, sizeof(err), "\n" FETCH_CODE_MARK "200\n"
	    FETCH_REDIRECT_MARK "\n");
	len = strlen(err);
	assert_int_equal(fetch_curl_redirect(err, &len, out, sizeof(out)), 0);
	snprintf(err, sizeof(err), "\n" FETCH_REDIRECT_MARK
	    "https://a.test/a-target-longer-than-the-buffer\n");
	len = strlen(err);
	assert_int_equal(fetch_curl_redirect(err, &len, out, sizeof(out)), -1);
	assert_int_equal(len, 0);
}

/* Only the same host, https, port 443 or none, no user information. */
static void
test_same_host(void **state)
{
	char host[64];

	(void)state;
	assert_true(fetch_same_host("https://good.test/x", "good.test"));
	assert_true(fetch_same_host("https://GOOD.test:443?q", "good.test"));
	assert_true(fetch_same_host("https://good.test", "good.test"));
	assert_false(fetch_same_host("http://good.test/x", "good.test"));
	assert_false(fetch_same_host("https://good.test:8443/", "good.test"));
	assert_false(fetch_same_host("https://good.test.evil/", "good.test"));
	assert_false(fetch_same_host("https://good.testx/", "good.test"));
	assert_false(fetch_same_host("https://u@good.test/", "good.test"));
	assert_false(fetch_same_host("https://good.test@evil/", "good.test"));
	assert_false(fetch_same_host("https://evil/good.test", "good.test"));
	assert_int_equal(fetch_url_host("https://a.test:443/p", host,
	    sizeof(host)), 0);
	assert_string_equal(host, "a.test");
	assert_int_equal(fetch_url_host("https://u@a.test/", host,
	    sizeof(host)), -1);
	assert_int_equal(fetch_url_host("ftp://a.test/", host, sizeof(host)),
	    -1);
}

static void
test_err_line(void **state)
{
	static const char words[] = "curl: (97) Can't complete SOCKS5 "
	    "connection to evil.test. (2)\nmore\n";

	(void)state;
	assert_int_equal(fetch_err_line(words, strlen(words)),
	    strlen("curl: (97) Can't complete SOCKS5 connection to "
	    "evil.test. (2)"));
	assert_int_equal(fetch_err_line("no newline", 10), 10);
	assert_int_equal(fetch_err_line("\nsecond", 7), 0);
	assert_int_equal(fetch_err_line("a\0b", 3), 1);
	assert_int_equal(fetch_err_line("", 0), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_and_chains),
		cmocka_unit_test(test_lookalikes),
		cmocka_unit_test(test_cut_and_junk),
		cmocka_unit_test(test_curl_code),
		cmocka_unit_test(test_err_line),
		cmocka_unit_test(test_encoding),
		cmocka_unit_test(test_curl_redirect),
		cmocka_unit_test(test_same_host),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
