/*
 * test-hostname.c: the host name and pattern forms (the design's "Hosts"),
 * and the one matching function that policy and bxegress share.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/hostname.h"

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

static void
test_hosts(void **state)
{
	static const char *good[] = {
		"example.com", "www.example.com", "a.b.example.com", "a-b.c0",
		"0a.example", "x.y", "1.2.3.com", "a.0xg", "a.x0", "0x.com",
	};
	static const struct {
		const char	*host;
		const char	*why;
	} bad[] = {
		{ "", "1 to 253" },
		{ "example", "two labels" },
		{ "Example.com", "no uppercase" },
		{ "example..com", "1 to 63" },
		{ ".example.com", "1 to 63" },
		{ "example.com.", "1 to 63" },
		{ "-a.com", "start or end with -" },
		{ "a-.com", "start or end with -" },
		{ "a_b.com", "only a-z" },
		{ "127.0.0.1", "IP address" },
		{ "0x7f.1", "IP address" },
		{ "1.2.3.0x4", "IP address" },
		{ "a.0x", "IP address" },
		{ "example.0xff", "IP address" },
		{ "[::1]", "only a-z" },
		{ "example.com:443", "only a-z" },
		{ "*.example.com", "only a-z" },
	};
	struct bx_error err;
	char buf[300];
	size_t i;

	(void)state;
	for (i = 0; i < LEN(good); i++)
		if (bx_host_check(good[i], strlen(good[i]), &err) != 0)
			fail_msg("%s: %s", good[i], err.msg);
	for (i = 0; i < LEN(bad); i++) {
		if (bx_host_check(bad[i].host, strlen(bad[i].host),
		    &err) != -1)
			fail_msg("accepted %s", bad[i].host);
		if (strstr(err.msg, bad[i].why) == NULL)
			fail_msg("%s: %s", bad[i].host, err.msg);
	}
	/* A 63-byte label is fine, 64 is not; 253 bytes in all, not 254. */
	memset(buf, 'a', 64);
	memcpy(buf + 64, ".com", 5);
	assert_int_equal(bx_host_check(buf + 1, 67, &err), 0);
	assert_int_equal(bx_host_check(buf, 68, &err), -1);
	for (i = 0; i < 253; i++)
		buf[i] = i % 2 == 0 ? 'a' : '.';
	assert_int_equal(bx_host_check(buf, 253, &err), 0);
	buf[253] = '.';
	buf[254] = 'a';
	assert_int_equal(bx_host_check(buf, 255, &err), -1);
	assert_int_equal(bx_host_pattern_check("*.example.com", 13, &err), 0);
	assert_int_equal(bx_host_pattern_check("example.com", 11, &err), 0);
	assert_int_equal(bx_host_pattern_check("*example.com", 12, &err), -1);
	assert_int_equal(bx_host_pattern_check("*.*.example.com", 15, &err),
	    -1);
	assert_non_null(strstr(err.msg, "as the whole first label"));
	assert_int_equal(bx_host_pattern_check("*", 1, &err), -1);
	assert_non_null(strstr(err.msg, "as the whole first label"));
	assert_int_equal(bx_host_pattern_check("*.0x7f.1", 8, &err), -1);
	assert_non_null(strstr(err.msg, "IP address"));
	assert_int_equal(bx_host_pattern_check("*.com", 5, &err), -1);
	assert_int_equal(bx_host_pattern_check("a.*.com", 7, &err), -1);
}

/* The rows of the design's Hosts table. */
static void
test_host_matches(void **state)
{
	(void)state;
	assert_true(bx_host_matches("example.com", "example.com"));
	assert_false(bx_host_matches("example.com", "www.example.com"));
	assert_true(bx_host_matches("*.example.com", "www.example.com"));
	assert_true(bx_host_matches("*.example.com", "a.b.example.com"));
	assert_false(bx_host_matches("*.example.com", "example.com"));
	assert_false(bx_host_matches("*.example.com", "badexample.com"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_host_matches),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
