/*
 * bxegress.h: the egress proxy of one http_fetch call, and the parts it is
 * made of. brokerd starts one bxegress per call and ends it when the call
 * ends; it is the only way a byte leaves that call's sandbox, so every
 * byte from the client (the sandbox's curl) and from the servers is
 * treated as hostile.
 *
 *	bxegress --listen-fd N --report-fd N --connect-timeout-ms MS
 *	    --idle-timeout-ms MS --max-bytes N [--allow CIDR]...
 *	    [--seccomp FILE] -- PATTERN...
 *
 * The listen fd is a listening AF_UNIX SOCK_STREAM socket in the call's
 * directory (curl: --proxy socks5h://localhost/<socket>); the report fd a
 * file brokerd opened O_WRONLY|O_APPEND. PATTERNs are the grant's hosts
 * (proto/hostname.h), --allow the [egress] allow_addresses CIDRs
 * (proto/netaddr.h). --seccomp names brokerd's system-call filter
 * (proto/filterfile.h), read while still root and installed last, after
 * root is given up, so that a bxegress taken over by what a server sent
 * still cannot make a namespace, mount, ptrace or reach keyctl and bpf.
 * Exit status: 0 after SIGTERM or SIGINT, 1 for a
 * setup failure (or a report that cannot be written), 2 for bad usage.
 *
 * Protocol: SOCKS5, RFC 1928, CONNECT to a host name on port 443 and
 * nothing else (socks.h has each refusal and its reply). An accepted
 * name is resolved with getaddrinfo, addresses in the refused ranges are
 * dropped (bx_addr_allowed with the --allow list), and those kept are
 * tried in order, never resolving again, the whole attempt bounded by
 * --connect-timeout-ms. Then the reply 05 00 00 01 0.0.0.0:0 and a relay
 * both ways, half-closes passed on with shutdown(SHUT_WR).
 *
 * Report lines, one write() each, always before the reply to the client:
 *
 *	refused HOST:PORT REASON
 *	connected HOST:PORT ADDRESS
 *	closed HOST:PORT ADDRESS UP DOWN WHY
 *	limit TOTAL
 *
 * HOST is the requested name, each byte outside 0x21..0x7e and the
 * backslash written \xHH; an IP literal is its text (IPv6 in brackets);
 * "-:0" until the request was read whole. ADDRESS is the address
 * connected to, "1.2.3.4:443" or "[2001:db8::1]:443", and "-" for a
 * connection stopped before it had one. UP counts the bytes taken from
 * the client for the server, DOWN those taken from the server for the
 * client. REASON is one of: not in the grant's hosts | not a host name |
 * an IP literal | port is not 443 | resolves only to private addresses |
 * does not resolve | connect failed | byte limit reached | too many
 * connections | bad request: WHAT, WHAT one of no acceptable method,
 * version N, command N, address type N, reserved byte, timed out, hung
 * up. WHY is one of done | idle | byte limit reached | stopped. limit
 * comes once, when the bytes relayed by every connection together reach
 * --max-bytes: then every relay is closed and later requests refused.
 * Every accepted connection gets at least one line; on SIGTERM one still
 * in its handshake is reported "closed HOST:PORT - 0 0 stopped".
 *
 * Single-threaded: one poll loop (loop.c) over fixed buffers, sized by
 * the limits below.
 */
#ifndef BXE_BXEGRESS_H
#define BXE_BXEGRESS_H

#include <sys/socket.h>
#include <sys/types.h>
#include <netinet/in.h>

#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bxegress/socks.h"
#include "proto/filterfile.h"
#include "proto/netaddr.h"

/* Connections relayed or in their handshake at once. */
#define EGRESS_MAX_CLIENTS	16
/* Connections accepted over the proxy's life; the next is refused. */
#define EGRESS_MAX_CONNECTIONS	64
/* Each direction of each connection buffers at most this much. */
#define EGRESS_BUF_SIZE		16384
/* Addresses kept of one name's resolution; the rest are not tried. */
#define EGRESS_MAX_ADDRS	16
/* The grant's host patterns (brokerd's GRANTS_MAX_CONSTRAINTS). */
#define EGRESS_MAX_PATTERNS	256
/* A report line: "closed", a name of 255 bytes escaped, two counts. */
#define EGRESS_REPORT_MAX	2048
/* "HOST:PORT" with every byte of the name escaped as \xHH. */
#define EGRESS_TARGET_MAX	(SOCKS_NAME_MAX * 4 + 8)
/* "[IPv6]:443". */
#define EGRESS_ADDR_TEXT_MAX	(INET6_ADDRSTRLEN + 8)

/* The ranges of the command line's numbers. */
#define EGRESS_CONNECT_MIN	100
#define EGRESS_CONNECT_MAX	60000
#define EGRESS_IDLE_MIN		100
#define EGRESS_IDLE_MAX		3600000
#define EGRESS_BYTES_MIN	1024
#define EGRESS_BYTES_MAX	1073741824

/* Who bxegress runs as once set up, when started as root. */
#define EGRESS_NOBODY		65534

#define EXIT_SETUP		1
#define EXIT_USAGE		2

struct egress_config {
	int		 ec_listen_fd;
	int		 ec_report_fd;
	int		 ec_connect_ms;
	int		 ec_idle_ms;
	uint64_t	 ec_max_bytes;
	struct bx_cidr	 ec_allow[BX_CIDR_MAX_ALLOW];
	size_t		 ec_nallow;
	const char	*const *ec_patterns;	/* into argv */
	size_t		 ec_npatterns;
	const char	*ec_seccomp;	/* into argv; NULL: no filter */
};

/* Bytes waiting to go one way: b_data[b_start .. b_end). */
struct buf {
	unsigned char	 b_data[EGRESS_BUF_SIZE];
	size_t		 b_start;
	size_t		 b_end;
};

enum conn_state {
	CONN_FREE,
	CONN_HANDSHAKE,		/* reading the greeting and the request */
	CONN_DIALING,		/* connecting to c_addrs[c_next] */
	CONN_RELAY,
	CONN_REFUSING,		/* reported; the reply drains, then close */
	CONN_STATE_MAX
};

struct conn {
	enum conn_state		 c_state;
	int			 c_client;
	int			 c_server;	/* -1 until dialing */
	struct socks_parser	 c_socks;
	struct sockaddr_storage	 c_addrs[EGRESS_MAX_ADDRS];
	socklen_t		 c_addrlens[EGRESS_MAX_ADDRS];
	size_t			 c_naddrs;
	size_t			 c_next;	/* the address being tried */
	char			 c_address[EGRESS_ADDR_TEXT_MAX];
	int64_t			 c_deadline;	/* of the state, or idle */
	struct buf		 c_up;		/* client to server */
	struct buf		 c_down;	/* server to client */
	uint64_t		 c_upbytes;
	uint64_t		 c_downbytes;
	bool			 c_client_eof;
	bool			 c_server_eof;
	bool			 c_server_shut;	/* SHUT_WR sent */
	bool			 c_client_shut;
};

struct egress {
	struct egress_config	 e_cfg;
	int			 e_listen;	/* -1 once no longer accepting */
	size_t			 e_accepted;
	uint64_t		 e_total;	/* bytes relayed, all of them */
	bool			 e_limited;	/* e_total reached the cap */
	struct conn		 e_conns[EGRESS_MAX_CLIENTS];
};

/* Set by the SIGTERM and SIGINT handler, read by the loop. */
extern volatile sig_atomic_t egress_stop;

/* options.c: exits with EXIT_USAGE on anything wrong. */
void	options_parse(int argc, char *argv[], struct egress_config *cfg);

/* setup.c: each exits with EXIT_SETUP when it cannot do its part. */
void	setup_descriptors(const struct egress_config *cfg);
void	setup_signals(sigset_t *ret_poll_mask);
void	setup_resolver(void);
void	setup_drop_privileges(void);
void	setup_parent_death(pid_t parent);
void	setup_filter_read(const struct egress_config *cfg,
	    struct bx_filter_prog *ret);
void	setup_filter_install(const struct egress_config *cfg,
	    const struct bx_filter_prog *prog);
/*
 * "bxegress: " and the message on stderr, then after (NULL: nothing), then
 * exit(status).
 */
void	die(int status, const char *after, const char *fmt, va_list ap)
	    __attribute__((noreturn));
void	fatal(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2), noreturn));

/* loop.c: runs until stopped; returns the exit status. */
int	loop_run(struct egress *e, const sigset_t *poll_mask);

/* conn.c: a connection's life, whatever its state. */
struct conn *conn_new(struct egress *e, int client, int64_t now);
void	conn_refuse(struct egress *e, struct conn *c, enum socks_rep rep,
	    const char *reason);
void	conn_refuse_reply(struct egress *e, struct conn *c,
	    const unsigned char *reply, size_t len, const char *reason);
void	conn_close(struct conn *c);
void	conn_finish(struct egress *e, struct conn *c, const char *why);
void	conn_stop(struct egress *e, struct conn *c);

/* handshake.c */
void	handshake_io(struct egress *e, struct conn *c);

/* resolve.c: fills c_addrs; NULL, or the refusal's reason with *ret_rep. */
const char *resolve(const struct egress_config *cfg, struct conn *c,
	    enum socks_rep *ret_rep);

/* dial.c */
void	dial_start(struct egress *e, struct conn *c);
void	dial_io(struct egress *e, struct conn *c, short client_revents,
	    short server_revents);
void	dial_expired(struct egress *e, struct conn *c);

/* relay.c */
void	relay_start(struct egress *e, struct conn *c);
void	relay_events(const struct conn *c, short *ret_client,
	    short *ret_server);
void	relay_io(struct egress *e, struct conn *c);
void	relay_limit(struct egress *e);

/* buf.c */
size_t	buf_len(const struct buf *b);
size_t	buf_room(struct buf *b);
void	buf_drop(struct buf *b, size_t n);
void	buf_put(struct buf *b, const void *data, size_t n);
ssize_t	buf_send(int fd, struct buf *b);

/* report.c */
void	report_target(const struct socks_parser *p, char *out, size_t size);
void	report_address(const struct sockaddr *sa, char *out, size_t size);
void	report(const struct egress *e, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
