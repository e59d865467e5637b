/*
 * hostname.h: host names and host patterns as the design defines them
 * (docs/design.md, "Hosts"), for the three places that must agree
 * exactly: a URL's host (brokerd's args), a grant's host patterns, and
 * the name a sandbox asks the egress proxy for (bxegress). There is no
 * normalisation anywhere: "Good.example.com" and "good.example.com." are
 * not host names, so they match nothing.
 *
 *	a host name	1 to 253 bytes, at least two labels separated by ".",
 *			each label 1 to 63 bytes of a-z, 0-9 and "-", not
 *			starting or ending with "-"; a last label that a URL
 *			parser reads as a number (127.0.0.1, 0x7f.1) is not
 *	a pattern	a host name, or "*." followed by one
 *
 * Nothing here allocates.
 */
#ifndef BX_HOSTNAME_H
#define BX_HOSTNAME_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

#define BX_HOST_MAX	253
#define BX_LABEL_MAX	63

/*
 * Each returns 0 when s (len bytes, which may hold a NUL) has the form, or
 * -1 with the reason in err; the value itself is not quoted, since callers
 * name the field and the value.
 */
int	bx_host_check(const char *s, size_t len, struct bx_error *err);
int	bx_host_pattern_check(const char *s, size_t len, struct bx_error *err);

/*
 * On a pattern and a host name that passed the checks: "*.example.com"
 * matches any name ending in ".example.com" with a label before, never
 * "example.com" itself; any other pattern matches only itself.
 */
bool	bx_host_matches(const char *pattern, const char *host);

#endif
