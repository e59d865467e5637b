/*
 * test-relay-url.c: where a relay connects, from its URL
 * (relay_parse_url): default and explicit ports, IPv6 literals, and the
 * URLs refused, each message naming the URL and what it reaches;
 * relay_new refusing one before it makes anything.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "jailrun/relay.h"
#include "testutil.h"

static void
expect_url(const char *url, const char *host, const char *port)
{
	struct relay_target t;
	struct bx_error err;

	if (relay_parse_url("model", url, &t, &err) == -1)
		fail_msg("%s: %s", url, err.msg);
	assert_string_equal(t.rt_host, host);
	assert_string_equal(t.rt_port, port);
}

static void
refuse_url(const char *url)
{
	struct relay_target t;
	struct bx_error err;
	char quoted[RELAY_URL_MAX + 3];

	memset(&t, 'x', sizeof(t));
	assert_int_equal(relay_parse_url("model", url, &t, &err), -1);
	snprintf(quoted, sizeof(quoted), "\"%s\"", url);
	if (strstr(err.msg, quoted) == NULL)
		fail_msg("the message does not name %s: %s", url, err.msg);
	/* Untouched on failure. */
	assert_int_equal(t.rt_host[0], 'x');
}

static void
test_parse_url(void **state)
{
	struct bx_error err;
	struct relay *r = NULL;
	char *dir, path[PATH_MAX], *long_url;

	(void)state;
	expect_url("http://127.0.0.1:8080", "127.0.0.1", "8080");
	expect_url("http://localhost", "localhost", "80");
	expect_url("http://localhost/", "localhost", "80");
	expect_url("https://model.example.org", "model.example.org", "443");
	expect_url("https://model.example.org:8443/base?x=1",
	    "model.example.org", "8443");
	expect_url("http://[::1]:8080", "::1", "8080");
	expect_url("https://[fe80::1]/v1", "fe80::1", "443");
	expect_url("http://h:65535", "h", "65535");
	expect_url("http://h:1#frag", "h", "1");
	refuse_url("ftp://127.0.0.1");
	refuse_url("127.0.0.1:8080");
	refuse_url("HTTP://127.0.0.1");
	refuse_url("http://");
	refuse_url("http:///v1");
	refuse_url("http://:8080");
	refuse_url("http://h:");
	refuse_url("http://h:0");
	refuse_url("http://h:65536");
	refuse_url("http://h:080");
	refuse_url("http://h:80x");
	refuse_url("http://h:-1");
	refuse_url("http://user:pw@h:80");
	refuse_url("http://::1:8080");
	refuse_url("http://[::1");
	refuse_url("http://[]:80");
	refuse_url("http://[not-v6]:80");
	refuse_url("http://[::1]x");
	refuse_url("http://h%41st");
	refuse_url("http://h st");
	long_url = malloc(RELAY_HOST_MAX + 16);
	assert_non_null(long_url);
	memcpy(long_url, "http://", 7);
	memset(long_url + 7, 'a', RELAY_HOST_MAX + 1);
	long_url[7 + RELAY_HOST_MAX + 1] = '\0';
	refuse_url(long_url);
	free(long_url);
	/* relay_new refuses it before it makes anything. */
	dir = tu_tmpdir();
	snprintf(path, sizeof(path), "%s/relay.sock", dir);
	assert_int_equal(relay_new("model", path, "gopher://h", 0, NULL, NULL, &r,
	    &err), -1);
	assert_null(r);
	assert_non_null(strstr(err.msg, "\"gopher://h\""));
	/* The relay's name says what the URL is. */
	assert_int_equal(relay_new("Mattermost", path, "https://h:0", 0, NULL,
	    NULL, &r, &err), -1);
	assert_string_equal(err.msg, "Mattermost url \"https://h:0\": the "
	    "port must be a number from 1 to 65535");
	assert_int_equal(access(path, F_OK), -1);
	relay_free(NULL);
	tu_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_url),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
