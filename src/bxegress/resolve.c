/*
 * resolve.c: the addresses of a requested name (bxegress.h). getaddrinfo
 * runs once per request, and only the addresses outside the refused
 * ranges (proto/netaddr.h, with the --allow list) are kept; dial.c tries
 * those and never resolves again, so a name cannot be made to point
 * elsewhere between the check and the connect.
 *
 * getaddrinfo blocks, and bxegress is one thread: while it waits on a
 * stalled resolver no other connection of this call moves. That wait is
 * bounded by the resolver's own timeouts (resolv.conf) and, above them,
 * by the call's timeout, when brokerd ends bxegress. One call's proxy
 * serves one sandbox, so the stall harms only the call that caused it.
 */
#include <sys/socket.h>

#include <netdb.h>
#include <string.h>

#include "bxegress/bxegress.h"

const char *
resolve(const struct egress_config *cfg, struct conn *c,
    enum socks_rep *ret_rep)
{
	struct addrinfo hints, *res, *ai;
	const char *why;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	if (getaddrinfo(c->c_socks.sp_name, "443", &hints, &res) != 0) {
		*ret_rep = SOCKS_REP_HOST_UNREACHABLE;
		return "does not resolve";
	}
	c->c_naddrs = 0;
	for (ai = res; ai != NULL && c->c_naddrs < EGRESS_MAX_ADDRS;
	    ai = ai->ai_next) {
		if (ai->ai_addrlen > sizeof(c->c_addrs[0]) ||
		    !bx_addr_allowed(ai->ai_addr, cfg->ec_allow,
		    cfg->ec_nallow, &why))
			continue;
		memcpy(&c->c_addrs[c->c_naddrs], ai->ai_addr, ai->ai_addrlen);
		c->c_addrlens[c->c_naddrs] = ai->ai_addrlen;
		c->c_naddrs++;
	}
	freeaddrinfo(res);
	if (c->c_naddrs == 0) {
		*ret_rep = SOCKS_REP_NOT_ALLOWED;
		return "resolves only to private addresses";
	}
	return NULL;
}
