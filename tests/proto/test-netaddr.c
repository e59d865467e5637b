/*
 * test-netaddr.c: the egress proxy's refused ranges, the IPv4 carried in
 * IPv6 forms, and the allow_addresses CIDRs with what load refuses.
 */
#include <netinet/in.h>
#include <arpa/inet.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "proto/netaddr.h"

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Whether text (an IPv4 or IPv6 address) may be connected to. */
static bool
allowed(const char *text, const struct bx_cidr *allow, size_t nallow,
    const char **why)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, text, &s4->sin_addr) == 1)
		s4->sin_family = AF_INET;
	else if (inet_pton(AF_INET6, text, &s6->sin6_addr) == 1)
		s6->sin6_family = AF_INET6;
	else
		fail_msg("bad test address %s", text);
	*why = NULL;
	return bx_addr_allowed((struct sockaddr *)&ss, allow, nallow, why);
}

static void
test_refused(void **state)
{
	static const char *const refused[] = {
		"0.0.0.0", "0.1.2.3", "10.0.0.1", "10.200.0.2", "100.64.0.1",
		"100.127.255.255", "127.0.0.1", "127.255.0.9",
		"169.254.169.254", "172.16.0.1", "172.31.255.255",
		"192.0.0.8", "192.0.2.1", "192.88.99.1", "192.168.1.1",
		"198.18.0.1", "198.19.255.255", "198.51.100.7",
		"203.0.113.9", "224.0.0.1", "239.255.255.250",
		"240.0.0.1", "255.255.255.255",
		"::", "::1", "::7f00:1", "fe80::1", "febf::1", "fec0::1",
		"fc00::1", "fd12:3456::1", "ff02::1", "2001:db8::1",
		"2001::1", "100::1",
		/* The IPv4 inside, checked as IPv4. */
		"::ffff:127.0.0.1", "::ffff:10.1.2.3", "64:ff9b::7f00:1",
		"64:ff9b::a00:1", "64:ff9b:1:7f00:0001::", "2002:7f00:1::",
		"2002:a9fe:a9fe::1",
	};
	static const char *const kept[] = {
		"1.1.1.1", "8.8.8.8", "100.63.255.255", "100.128.0.0",
		"172.15.255.255", "172.32.0.0", "192.0.1.1", "192.167.0.1",
		"198.17.255.255", "198.20.0.0", "223.255.255.255",
		"2606:4700::1111", "2a00:1450::1", "2001:4860::8888",
		"::ffff:8.8.8.8", "64:ff9b::808:808", "2002:808:808::1",
		"64:ff9b:1:0808:0008:08::",
	};
	const char *why;
	size_t i;

	(void)state;
	for (i = 0; i < LEN(refused); i++) {
		if (allowed(refused[i], NULL, 0, &why))
			fail_msg("kept %s", refused[i]);
		assert_non_null(why);
	}
	for (i = 0; i < LEN(kept); i++)
		if (!allowed(kept[i], NULL, 0, &why))
			fail_msg("refused %s: %s", kept[i], why);
	assert_false(allowed("::ffff:127.0.0.1", NULL, 0, &why));
	assert_non_null(strstr(why, "loopback"));
}

static void
test_allow(void **state)
{
	struct bx_cidr allow[2];
	struct bx_error err;
	const char *why;

	(void)state;
	assert_int_equal(bx_cidr_parse("10.200.0.0/29", &allow[0], &err), 0);
	assert_int_equal(bx_cidr_parse("fd00:1::/64", &allow[1], &err), 0);
	assert_true(allowed("10.200.0.2", allow, 2, &why));
	assert_true(allowed("10.200.0.7", allow, 2, &why));
	assert_false(allowed("10.200.0.10", allow, 2, &why));
	assert_non_null(strstr(why, "10.0.0.0/8"));
	/* Also for the IPv4 inside a mapped form. */
	assert_true(allowed("::ffff:10.200.0.2", allow, 2, &why));
	assert_false(allowed("::ffff:10.200.0.9", allow, 2, &why));
	assert_true(allowed("fd00:1::5", allow, 2, &why));
	assert_false(allowed("fd00:2::5", allow, 2, &why));
	/* Loopback stays refused whatever is listed. */
	assert_false(allowed("127.0.0.1", allow, 2, &why));
}

static void
test_cidr_parse(void **state)
{
	static const struct {
		const char	*text;
		const char	*why;
	} bad[] = {
		{ "10.200.0.0", "not a CIDR" },
		{ "/8", "not a CIDR" },
		{ "10.200.0.0/", "prefix length" },
		{ "10.200.0.0/33", "prefix length" },
		{ "10.200.0.0/08", "prefix length" },
		{ "10.200.0.0/2x", "prefix length" },
		{ "10.200.0.0/-1", "prefix length" },
		{ "10.200.0.1/29", "bits set past" },
		{ "10.0.0.0/7", "wider than /8" },
		{ "0.0.0.0/0", "wider than /8" },
		{ "127.0.0.0/8", "loopback" },
		{ "127.1.0.0/16", "loopback" },
		{ "0.0.0.0/8", "covers this host" },
		{ "0.0.0.0/32", "covers this host" },
		{ "0.1.2.0/24", "covers this host" },
		{ "::/128", "unspecified" },
		{ "fd00::/15", "wider than /16" },
		{ "::1/128", "loopback" },
		{ "::/16", "loopback" },
		{ "::ffff:0:0/96", "IPv4-mapped" },
		{ "::ffff:a00:0/104", "IPv4-mapped" },
		{ "64:ff9b::/96", "NAT64" },
		{ "2002:a00::/24", "6to4" },
		{ "2002::/16", "6to4" },
		{ "example.com/8", "no IPv4 or IPv6" },
		{ "10.200.0.0 /29", "no IPv4 or IPv6" },
	};
	struct bx_cidr c;
	struct bx_error err;
	size_t i;

	(void)state;
	for (i = 0; i < LEN(bad); i++) {
		memset(&c, 0x5a, sizeof(c));
		if (bx_cidr_parse(bad[i].text, &c, &err) != -1)
			fail_msg("accepted %s", bad[i].text);
		if (strstr(err.msg, bad[i].why) == NULL)
			fail_msg("%s: %s", bad[i].text, err.msg);
		/* Written only on success. */
		assert_int_equal(c.c_prefix, 0x5a5a5a5a);
	}
	assert_int_equal(bx_cidr_parse("10.200.0.8/29", &c, &err), 0);
	assert_int_equal(c.c_family, AF_INET);
	assert_int_equal(c.c_prefix, 29);
	assert_int_equal(bx_cidr_parse("10.0.0.0/8", &c, &err), 0);
	assert_int_equal(bx_cidr_parse("10.200.0.2/32", &c, &err), 0);
	assert_int_equal(bx_cidr_parse("fd00::/16", &c, &err), 0);
	assert_int_equal(c.c_family, AF_INET6);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_allow),
		cmocka_unit_test(test_cidr_parse),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
