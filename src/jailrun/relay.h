/*
 * relay.h: a jail's one way out (roles.md section 3, "Network"). A jail
 * has no network; the relay runs outside it, in the jailed program's
 * launcher (jailrun/launch.h), listens on a Unix socket the jail can reach
 * and, for each connection from allowed_uid, connects to the host and
 * port of one URL (loopd's [model] url, the bridge's Mattermost url) and
 * copies bytes both ways until both directions have ended. It reads
 * nothing of those bytes: TLS stays end to end inside the jail, and
 * server-sent events pass as they come. The host is resolved for each
 * connection.
 *
 * A peer whose uid (SO_PEERCRED) is not allowed_uid is closed before any
 * byte of it is read, and logged once per uid. When the URL's host
 * cannot be reached within RELAY_CONNECT_TIMEOUT_MS the client's
 * connection is closed, which loopd reports as the model unavailable.
 *
 * Messages name the relay by what it reaches: a relay_new() name of
 * "model" logs "model relay: ..." and refuses "model url ...".
 *
 * Threads: relay_start() starts an accept thread, which hands each
 * connection to a worker thread, starting one when none is idle; a worker
 * stays for the next connection. At most RELAY_MAX_CONNECTIONS are copied
 * at once (so at most that many workers); past it a new connection is
 * closed at once. The relay's threads block every signal. log is called
 * from the accept thread only, never after relay_free() has returned; it
 * must not call back into the relay.
 *
 * Ownership: relay_new() copies what it keeps of its arguments; log_arg
 * stays the caller's and must outlive the relay. The relay owns its
 * listening socket, the socket file it made (relay_free() removes it, if
 * it is still that file) and its threads' descriptors. Each worker keeps
 * its two RELAY_BUF_SIZE buffers until relay_free().
 */
#ifndef JAILRUN_RELAY_H
#define JAILRUN_RELAY_H

#include <sys/types.h>

#include "proto/error.h"

/* The URL, scheme to end; the host part of it. */
#define RELAY_URL_MAX			2048
#define RELAY_HOST_MAX			253
/* Connections copied at once (and workers); one past it is closed. */
#define RELAY_MAX_CONNECTIONS		32
/* Connections the kernel queues before the relay accepts them. */
#define RELAY_BACKLOG			32
/* Resolving aside, all of the host's addresses get this long together. */
#define RELAY_CONNECT_TIMEOUT_MS	10000
/* Bytes held in each direction of a connection. */
#define RELAY_BUF_SIZE			(64 * 1024)
/* Distinct refused uids logged; a refused uid past these is not. */
#define RELAY_MAX_LOGGED_UIDS		16
/* How long relay_free() waits for connections to end (see there). */
#define RELAY_STOP_WAIT_MS		2000

/* Where the URL points: a host name or address, and a port. */
struct relay_target {
	char	rt_host[RELAY_HOST_MAX + 1];	/* IPv6 without [] */
	char	rt_port[6];			/* decimal, 1 to 65535 */
};

struct relay;

/*
 * Parses http://HOST[:PORT][/...] or https://...: the port defaults to
 * 80 and 443; an IPv6 literal is written [::1]. User information, an
 * empty host or port, and a port out of range are refused, the message
 * naming url as "NAME url" (name: "model", say).
 */
int	relay_parse_url(const char *name, const char *url,
	    struct relay_target *ret, struct bx_error *err);

/*
 * Parses url, binds sock_path (bx_unix_listen: missing directories
 * 0700, the socket 0600; a stale socket is replaced) and records
 * allowed_uid. Whatever else allowed_uid needs to reach sock_path (an
 * ACL, a bind mount) is the caller's. name says what url reaches, in
 * messages ("model"); it must outlive the relay. log may be NULL. Starts
 * no thread.
 */
int	relay_new(const char *name, const char *sock_path, const char *url,
	    uid_t allowed_uid, void (*log)(void *arg, const char *line),
	    void *log_arg, struct relay **ret, struct bx_error *err);

/* The socket's path, as given to relay_new(). */
const char *relay_path(const struct relay *);

/* Starts accepting: the accept thread. Once only. */
int	relay_start(struct relay *, struct bx_error *err);

/*
 * Stops accepting, ends every connection (a worker that is resolving a
 * name ends when getaddrinfo returns), closes the listener, removes the
 * socket file and waits for the workers at most RELAY_STOP_WAIT_MS. A
 * worker still in getaddrinfo after that frees what is left when it
 * ends. NULL is allowed.
 */
void	relay_free(struct relay *);

#endif
