/*
 * serve_socket.c: serve's descriptor budget. Split from serve.c so that
 * file keeps to the poll loop and the threads; the socket files themselves
 * are libboxproto's (proto/unixsock.h).
 */
#include <sys/resource.h>

#include "brokerd/serve_socket.h"

size_t
serve_socket_fit(size_t want)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)want + SERVE_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return want;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max > need ? need : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return want;
	return rl.rlim_cur > SERVE_FD_RESERVE + 1 ?
	    (size_t)(rl.rlim_cur - SERVE_FD_RESERVE) : 1;
}

bool
serve_socket_room(size_t broker_open, size_t admin_open, size_t max,
    bool for_broker)
{
	size_t reserve = max / 2 < SERVE_ADMIN_RESERVE ? max / 2 :
	    SERVE_ADMIN_RESERVE;

	if (for_broker)
		max -= reserve;
	return broker_open + admin_open < max;
}
