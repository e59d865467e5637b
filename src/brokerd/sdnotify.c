/*
 * sdnotify.c: sd_notify(3)'s protocol for brokerd's readiness
 * (sdnotify.h): one datagram, "READY=1", to the unit's notify socket.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/sdnotify.h"

int
sdnotify_take(struct sdnotify *ret, struct bx_error *err)
{
	const char *value = getenv("NOTIFY_SOCKET");
	struct sdnotify n;
	size_t len;

	memset(&n, 0, sizeof(n));
	if (value == NULL || value[0] == '\0') {
		*ret = n;
		return 0;
	}
	len = strlen(value);
	if ((value[0] != '/' && value[0] != '@') ||
	    len >= sizeof(n.sn_addr.sun_path))
		return bx_fail(err, "NOTIFY_SOCKET is not a socket address: "
		    "%.100s", value);
	n.sn_addr.sun_family = AF_UNIX;
	memcpy(n.sn_addr.sun_path, value, len);
	if (value[0] == '@')
		n.sn_addr.sun_path[0] = '\0';	/* an abstract name */
	n.sn_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len +
	    (value[0] == '/'));
	n.sn_set = true;
	if (unsetenv("NOTIFY_SOCKET") == -1)
		return bx_fail(err, "cannot remove NOTIFY_SOCKET: %s",
		    strerror(errno));
	*ret = n;
	return 0;
}

int
sdnotify_send(const struct sdnotify *n, const char *state,
    struct bx_error *err)
{
	ssize_t sent;
	int fd, saved;

	if (!n->sn_set)
		return 0;
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1)
		return bx_fail(err, "cannot tell systemd %s: socket: %s", state,
		    strerror(errno));
	do
		sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL,
		    (const struct sockaddr *)&n->sn_addr, n->sn_len);
	while (sent == -1 && errno == EINTR);
	saved = errno;
	close(fd);
	if (sent != (ssize_t)strlen(state))
		return bx_fail(err, "cannot tell systemd %s: %s", state,
		    sent == -1 ? strerror(saved) : "a short datagram");
	return 0;
}
