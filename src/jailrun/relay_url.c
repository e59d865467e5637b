/*
 * relay_url.c: where a relay connects, from its URL (see relay.h). Only
 * the scheme, host and port are read; the path after them is the jailed
 * program's business. A host name is kept to the characters a DNS name
 * or an IPv4 address has, an IPv6 literal must parse as one, so what
 * reaches getaddrinfo is never anything else.
 */
#include <arpa/inet.h>

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "jailrun/relay.h"

static bool
host_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '-' || c == '.' || c == '_';
}

/* Decimal, 1 to 65535, no sign, no leading zeros beyond a lone digit. */
static int
parse_port(const char *s, size_t len, char *ret, size_t retsize)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 5 || (s[0] == '0' && len > 1))
		return -1;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	if (v < 1 || v > 65535)
		return -1;
	snprintf(ret, retsize, "%lu", v);
	return 0;
}

/* The authority's host (brackets taken off) and where its port starts. */
static int
parse_host(const char *auth, size_t len, struct relay_target *t,
    const char **ret_rest, struct bx_error *err, const char *name,
    const char *url)
{
	struct in6_addr a6;
	const char *end;
	size_t hlen, i;

	if (len > 0 && auth[0] == '[') {
		if ((end = memchr(auth, ']', len)) == NULL)
			return bx_fail(err, "%s url \"%s\": an IPv6 address "
			    "needs its closing ]", name, url);
		hlen = (size_t)(end - auth) - 1;
		if (hlen == 0 || hlen > RELAY_HOST_MAX)
			return bx_fail(err, "%s url \"%s\": bad IPv6 "
			    "address", name, url);
		memcpy(t->rt_host, auth + 1, hlen);
		t->rt_host[hlen] = '\0';
		if (inet_pton(AF_INET6, t->rt_host, &a6) != 1)
			return bx_fail(err, "%s url \"%s\": %s is not an "
			    "IPv6 address", name, url, t->rt_host);
		*ret_rest = end + 1;
		return 0;
	}
	for (hlen = 0; hlen < len && auth[hlen] != ':'; hlen++)
		continue;
	if (hlen == 0)
		return bx_fail(err, "%s url \"%s\" has no host", name, url);
	if (hlen > RELAY_HOST_MAX)
		return bx_fail(err, "%s url \"%s\": the host is longer "
		    "than %d bytes", name, url, RELAY_HOST_MAX);
	for (i = 0; i < hlen; i++)
		if (!host_char(auth[i]))
			return bx_fail(err, "%s url \"%s\": the host may "
			    "hold only letters, digits, '-', '.' and '_' (an "
			    "IPv6 address goes in [])", name, url);
	memcpy(t->rt_host, auth, hlen);
	t->rt_host[hlen] = '\0';
	*ret_rest = auth + hlen;
	return 0;
}

int
relay_parse_url(const char *name, const char *url,
    struct relay_target *ret, struct bx_error *err)
{
	struct relay_target t;
	const char *auth, *rest = NULL, *port;
	size_t len;

	if (strlen(url) > RELAY_URL_MAX)
		return bx_fail(err, "%s url is longer than %d bytes",
		    name, RELAY_URL_MAX);
	if (strncmp(url, "http://", 7) == 0) {
		auth = url + 7;
		port = "80";
	} else if (strncmp(url, "https://", 8) == 0) {
		auth = url + 8;
		port = "443";
	} else
		return bx_fail(err, "%s url \"%s\" must start with "
		    "http:// or https://", name, url);
	len = strcspn(auth, "/?#");
	if (memchr(auth, '@', len) != NULL)
		return bx_fail(err, "%s url \"%s\": user information "
		    "(user@) is not supported", name, url);
	if (parse_host(auth, len, &t, &rest, err, name, url) == -1)
		return -1;
	len -= (size_t)(rest - auth);
	if (len == 0)
		snprintf(t.rt_port, sizeof(t.rt_port), "%s", port);
	else if (rest[0] != ':' || parse_port(rest + 1, len - 1, t.rt_port,
	    sizeof(t.rt_port)) == -1)
		return bx_fail(err, "%s url \"%s\": the port must be a "
		    "number from 1 to 65535", name, url);
	*ret = t;
	return 0;
}
