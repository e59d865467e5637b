/*
 * sdnotify.h: telling systemd that brokerd serves, for the brokerd unit's
 * Type=notify, so that `systemctl --user start brokerd` (and loopd, which
 * is After= it) returns only once both sockets listen. It speaks
 * sd_notify(3)'s datagram protocol to the socket NOTIFY_SOCKET names.
 *
 * The variable is taken out of brokerd's environment at once, before any
 * runtime starts: podman passes a NOTIFY_SOCKET it inherits into the
 * container, and a sandbox must reach nothing of the host. libsystemd's
 * sd_notify reads only the environment, which is why this is written here.
 *
 * Nothing here allocates; the address lives in the caller's struct.
 */
#ifndef BROKERD_SDNOTIFY_H
#define BROKERD_SDNOTIFY_H

#include <sys/socket.h>
#include <sys/un.h>

#include <stdbool.h>

#include "proto/error.h"

struct sdnotify {
	bool			sn_set;		/* NOTIFY_SOCKET was there */
	struct sockaddr_un	sn_addr;
	socklen_t		sn_len;
};

/*
 * Reads NOTIFY_SOCKET (a path, or '@' and an abstract name) into *ret and
 * removes it from the environment. Unset is fine (sn_set false); a value
 * that is no socket address fails, naming it.
 */
int	sdnotify_take(struct sdnotify *ret, struct bx_error *err);

/* Sends state ("READY=1") when NOTIFY_SOCKET was set; else does nothing. */
int	sdnotify_send(const struct sdnotify *, const char *state,
	    struct bx_error *err);

#endif
