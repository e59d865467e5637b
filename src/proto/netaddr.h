/*
 * netaddr.h: which addresses the egress proxy may connect to. A name
 * resolved for http_fetch is kept only for addresses outside the refused
 * ranges (loopback, private, link-local, shared, documentation, multicast
 * and reserved, in IPv4 and IPv6); the IPv4 inside an IPv4-mapped
 * (::ffff:0:0/96), NAT64 (64:ff9b::/96, 64:ff9b:1::/48) or 6to4
 * (2002::/16) address is checked as IPv4.
 *
 * [egress] allow_addresses lists CIDRs exempt from the refusal, for the
 * project's own test hosts. bx_cidr_parse refuses at load a range that
 * covers loopback, one wider than /8 (IPv4) or /16 (IPv6), one with bits
 * set past its prefix, and an IPv6 range inside one of the forms that
 * carry IPv4 (list the IPv4 range instead: it covers those forms too).
 *
 * brokerd checks the configuration with bx_cidr_parse; bxegress parses
 * the same text again and decides with bx_addr_allowed. Nothing here
 * allocates.
 */
#ifndef BX_NETADDR_H
#define BX_NETADDR_H

#include <sys/socket.h>

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

/* A CIDR in text: an IPv6 address, "/" and up to three digits. */
#define BX_CIDR_TEXT_MAX	64
/* The ranges [egress] allow_addresses may list. */
#define BX_CIDR_MAX_ALLOW	16

struct bx_cidr {
	int		c_family;	/* AF_INET or AF_INET6 */
	unsigned char	c_addr[16];	/* 4 bytes used for AF_INET */
	unsigned	c_prefix;
};

/* "10.200.0.0/29" or "fd00:1::/64"; see above for what is refused. */
int	bx_cidr_parse(const char *text, struct bx_cidr *ret,
	    struct bx_error *err);

/*
 * Whether an address (AF_INET or AF_INET6; anything else is refused) may
 * be connected to: outside every refused range, or inside one of allow.
 * On false, *ret_why says which range refused it (a static string).
 */
bool	bx_addr_allowed(const struct sockaddr *sa, const struct bx_cidr *allow,
	    size_t nallow, const char **ret_why);

#endif
