/*
 * netaddr.c: the refused address ranges of the egress proxy and the CIDRs
 * that exempt test hosts from them (netaddr.h).
 */
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/netaddr.h"

struct range {
	unsigned char	 r_addr[16];
	unsigned	 r_prefix;
	const char	*r_name;
};

static const struct range refused_v4[] = {
	{ { 0, 0, 0, 0 }, 8, "0.0.0.0/8 (this network)" },
	{ { 10, 0, 0, 0 }, 8, "10.0.0.0/8 (private)" },
	{ { 100, 64, 0, 0 }, 10, "100.64.0.0/10 (shared address space)" },
	{ { 127, 0, 0, 0 }, 8, "127.0.0.0/8 (loopback)" },
	{ { 169, 254, 0, 0 }, 16, "169.254.0.0/16 (link-local)" },
	{ { 172, 16, 0, 0 }, 12, "172.16.0.0/12 (private)" },
	{ { 192, 0, 0, 0 }, 24, "192.0.0.0/24 (IETF protocol assignments)" },
	{ { 192, 0, 2, 0 }, 24, "192.0.2.0/24 (documentation)" },
	{ { 192, 88, 99, 0 }, 24, "192.88.99.0/24 (6to4 relay anycast)" },
	{ { 192, 168, 0, 0 }, 16, "192.168.0.0/16 (private)" },
	{ { 198, 18, 0, 0 }, 15, "198.18.0.0/15 (benchmarking)" },
	{ { 198, 51, 100, 0 }, 24, "198.51.100.0/24 (documentation)" },
	{ { 203, 0, 113, 0 }, 24, "203.0.113.0/24 (documentation)" },
	{ { 224, 0, 0, 0 }, 4, "224.0.0.0/4 (multicast)" },
	{ { 240, 0, 0, 0 }, 4, "240.0.0.0/4 (reserved)" },
};

static const struct range refused_v6[] = {
	{ { 0 }, 128, "::/128 (unspecified)" },
	{ { [15] = 1 }, 128, "::1 (loopback)" },
	{ { 0 }, 96, "::/96 (IPv4-compatible)" },
	{ { 0xfe, 0x80 }, 10, "fe80::/10 (link-local)" },
	{ { 0xfe, 0xc0 }, 10, "fec0::/10 (site-local)" },
	{ { 0xfc }, 7, "fc00::/7 (unique local)" },
	{ { 0xff }, 8, "ff00::/8 (multicast)" },
	{ { 0x20, 0x01, 0x0d, 0xb8 }, 32, "2001:db8::/32 (documentation)" },
	{ { 0x20, 0x01 }, 32, "2001::/32 (Teredo)" },
	{ { 0x01, 0x00 }, 64, "100::/64 (discard)" },
};

/* The IPv6 forms that carry an IPv4 address, checked as that address. */
enum v4_form { FORM_MAPPED, FORM_NAT64, FORM_NAT64_LOCAL, FORM_6TO4 };

static const struct range carriers[] = {
	[FORM_MAPPED] = { { [10] = 0xff, [11] = 0xff }, 96,
	    "::ffff:0:0/96 (IPv4-mapped)" },
	[FORM_NAT64] = { { 0x00, 0x64, 0xff, 0x9b }, 96,
	    "64:ff9b::/96 (NAT64)" },
	[FORM_NAT64_LOCAL] = { { 0x00, 0x64, 0xff, 0x9b, 0x00, 0x01 }, 48,
	    "64:ff9b:1::/48 (local NAT64)" },
	[FORM_6TO4] = { { 0x20, 0x02 }, 16, "2002::/16 (6to4)" },
};

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

static bool
prefix_equal(const unsigned char *a, const unsigned char *b, unsigned bits)
{
	unsigned whole = bits / 8, rest = bits % 8;
	unsigned char mask;

	if (memcmp(a, b, whole) != 0)
		return false;
	if (rest == 0)
		return true;
	mask = (unsigned char)(0xff << (8 - rest));
	return (a[whole] & mask) == (b[whole] & mask);
}

/* The range of table (n rows) holding addr, or NULL. */
static const struct range *
find(const struct range *table, size_t n, const unsigned char *addr)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (prefix_equal(addr, table[i].r_addr, table[i].r_prefix))
			return &table[i];
	return NULL;
}

/* The IPv4 address an IPv6 one carries, by RFC 4291, 6052 and 3056. */
static bool
carried_v4(const unsigned char *a6, unsigned char v4[4])
{
	const struct range *r = find(carriers, LEN(carriers), a6);

	if (r == NULL)
		return false;
	switch ((enum v4_form)(r - carriers)) {
	case FORM_MAPPED:
	case FORM_NAT64:
		memcpy(v4, a6 + 12, 4);
		break;
	case FORM_NAT64_LOCAL:
		/* A /48 prefix: bits 64 to 71 are the "u" octet, skipped. */
		v4[0] = a6[6];
		v4[1] = a6[7];
		v4[2] = a6[9];
		v4[3] = a6[10];
		break;
	case FORM_6TO4:
		memcpy(v4, a6 + 2, 4);
		break;
	}
	return true;
}

static bool
in_allow(int family, const unsigned char *addr, const struct bx_cidr *allow,
    size_t nallow)
{
	size_t i;

	for (i = 0; i < nallow; i++)
		if (allow[i].c_family == family &&
		    prefix_equal(addr, allow[i].c_addr, allow[i].c_prefix))
			return true;
	return false;
}

static bool
v4_allowed(const unsigned char *a4, const struct bx_cidr *allow,
    size_t nallow, const char **ret_why)
{
	const struct range *r = find(refused_v4, LEN(refused_v4), a4);

	if (r == NULL || in_allow(AF_INET, a4, allow, nallow))
		return true;
	*ret_why = r->r_name;
	return false;
}

bool
bx_addr_allowed(const struct sockaddr *sa, const struct bx_cidr *allow,
    size_t nallow, const char **ret_why)
{
	const unsigned char *a6;
	const struct range *r;
	unsigned char v4[4];

	if (sa->sa_family == AF_INET)
		return v4_allowed((const unsigned char *)
		    &((const struct sockaddr_in *)sa)->sin_addr, allow, nallow,
		    ret_why);
	if (sa->sa_family != AF_INET6) {
		*ret_why = "not an IP address";
		return false;
	}
	a6 = ((const struct sockaddr_in6 *)sa)->sin6_addr.s6_addr;
	if (carried_v4(a6, v4))
		return v4_allowed(v4, allow, nallow, ret_why);
	r = find(refused_v6, LEN(refused_v6), a6);
	if (r == NULL || in_allow(AF_INET6, a6, allow, nallow))
		return true;
	*ret_why = r->r_name;
	return false;
}

/* The prefix length after "/": one to three digits, at most max. */
static int
parse_prefix(const char *s, unsigned max, unsigned *ret)
{
	unsigned v = 0;
	size_t i;

	for (i = 0; s[i] != '\0'; i++) {
		if (i == 3 || s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned)(s[i] - '0');
	}
	if (i == 0 || (i > 1 && s[0] == '0') || v > max)
		return -1;
	*ret = v;
	return 0;
}

/* 0.0.0.0 and :: (a connect to either reaches this host's loopback). */
static const unsigned char zero_addr[16];

/* Whether any bit past the prefix is set. */
static bool
host_bits(const unsigned char *addr, size_t len, unsigned prefix)
{
	unsigned char masked[16];
	unsigned bit;

	memcpy(masked, addr, len);
	for (bit = 0; bit < prefix; bit++)
		masked[bit / 8] &= (unsigned char)~(0x80 >> (bit % 8));
	return memcmp(masked, zero_addr, len) != 0;
}

static int
check_range(const struct bx_cidr *c, struct bx_error *err)
{
	static const unsigned char loop4[4] = { 127 };
	static const unsigned char loop6[16] = { [15] = 1 };
	size_t len = c->c_family == AF_INET ? 4 : 16;
	size_t i;

	if (host_bits(c->c_addr, len, c->c_prefix))
		return bx_fail(err, "has bits set past its /%u prefix",
		    c->c_prefix);
	if (c->c_family == AF_INET) {
		if (c->c_prefix < 8)
			return bx_fail(err, "is wider than /8");
		if (prefix_equal(c->c_addr, loop4, 8))
			return bx_fail(err, "covers loopback (127.0.0.0/8)");
		if (prefix_equal(c->c_addr, zero_addr, 8))
			return bx_fail(err, "covers this host (0.0.0.0/8), "
			    "which a connect reaches as loopback");
		return 0;
	}
	if (c->c_prefix < 16)
		return bx_fail(err, "is wider than /16");
	if (prefix_equal(loop6, c->c_addr, c->c_prefix))
		return bx_fail(err, "covers loopback (::1)");
	if (prefix_equal(zero_addr, c->c_addr, c->c_prefix))
		return bx_fail(err, "covers the unspecified address (::), "
		    "which a connect reaches as loopback");
	/* Two ranges overlap when they agree on the shorter prefix. */
	for (i = 0; i < LEN(carriers); i++)
		if (prefix_equal(c->c_addr, carriers[i].r_addr,
		    c->c_prefix < carriers[i].r_prefix ? c->c_prefix :
		    carriers[i].r_prefix))
			return bx_fail(err, "overlaps %s: list the IPv4 "
			    "range instead", carriers[i].r_name);
	return 0;
}

int
bx_cidr_parse(const char *text, struct bx_cidr *ret, struct bx_error *err)
{
	char addr[BX_CIDR_TEXT_MAX];
	const char *slash = strchr(text, '/');
	struct bx_cidr c;
	size_t alen;

	memset(&c, 0, sizeof(c));
	if (slash == NULL)
		return bx_fail(err, "is not a CIDR (ADDRESS/PREFIX)");
	alen = (size_t)(slash - text);
	if (alen == 0 || alen >= sizeof(addr))
		return bx_fail(err, "is not a CIDR (ADDRESS/PREFIX)");
	memcpy(addr, text, alen);
	addr[alen] = '\0';
	if (inet_pton(AF_INET, addr, c.c_addr) == 1)
		c.c_family = AF_INET;
	else if (inet_pton(AF_INET6, addr, c.c_addr) == 1)
		c.c_family = AF_INET6;
	else
		return bx_fail(err, "has no IPv4 or IPv6 address before /");
	if (parse_prefix(slash + 1, c.c_family == AF_INET ? 32 : 128,
	    &c.c_prefix) == -1)
		return bx_fail(err, "has no prefix length of 0 to %d after /",
		    c.c_family == AF_INET ? 32 : 128);
	if (check_range(&c, err) == -1)
		return -1;
	*ret = c;
	return 0;
}
