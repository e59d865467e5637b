/*
 * hostname.c: the host name and host pattern forms, and the one matching
 * function policy and the egress proxy share (hostname.h).
 */
#include <string.h>

#include "proto/hostname.h"

static bool
label_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
}

/*
 * Whether a name's last label makes it an IPv4 address to a URL parser
 * (WHATWG's "ends in a number"): all digits, or 0x and hex digits, as in
 * 127.0.0.1, 0x7f.1 or 1.2.3.0x4.
 */
static bool
numeric_label(const char *s, size_t len)
{
	size_t i = 0;

	if (len >= 2 && s[0] == '0' && s[1] == 'x') {
		for (i = 2; i < len; i++)
			if (!((s[i] >= '0' && s[i] <= '9') ||
			    (s[i] >= 'a' && s[i] <= 'f')))
				return false;
		return true;
	}
	for (i = 0; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int
bx_host_check(const char *s, size_t len, struct bx_error *err)
{
	size_t i, start, last = 0, labels = 0;

	if (len == 0 || len > BX_HOST_MAX)
		return bx_fail(err, "a host name is 1 to %d bytes",
		    BX_HOST_MAX);
	for (start = 0; start <= len; start = i + 1) {
		last = start;
		for (i = start; i < len && s[i] != '.'; i++)
			if (!label_char(s[i]))
				return bx_fail(err, "a host name has only "
				    "a-z, 0-9, - and . (no uppercase, no IP "
				    "literal, no port)");
		if (i == start || i - start > BX_LABEL_MAX)
			return bx_fail(err, "each label of a host name is "
			    "1 to %d bytes", BX_LABEL_MAX);
		if (s[start] == '-' || s[i - 1] == '-')
			return bx_fail(err, "a label of a host name cannot "
			    "start or end with -");
		labels++;
	}
	if (labels < 2)
		return bx_fail(err, "a host name has at least two labels");
	if (numeric_label(s + last, len - last))
		return bx_fail(err, "an IP address is not a host name");
	return 0;
}

int
bx_host_pattern_check(const char *s, size_t len, struct bx_error *err)
{
	if (len >= 2 && s[0] == '*' && s[1] == '.') {
		s += 2;
		len -= 2;
	}
	if (memchr(s, '*', len) != NULL)
		return bx_fail(err, "a * stands only at the start, as the "
		    "whole first label: *.example.com");
	return bx_host_check(s, len, err);
}

bool
bx_host_matches(const char *pattern, const char *host)
{
	size_t plen, hlen;

	if (pattern[0] != '*')
		return strcmp(pattern, host) == 0;
	/* "*.example.com": host ends in ".example.com" with a label before. */
	plen = strlen(pattern + 1);
	hlen = strlen(host);
	return hlen > plen && strcmp(host + hlen - plen, pattern + 1) == 0;
}
