/*
 * socks.h: the server side of a SOCKS5 handshake (RFC 1928), as a pure
 * incremental parser. bxegress feeds it the bytes a client sent, in
 * whatever pieces they arrived, and it answers with one event:
 *
 *	SOCKS_MORE	every byte given was used; feed more
 *	SOCKS_METHOD	the greeting offered method 0x00: send sr_reply
 *			(05 00), then feed the bytes after sr_used
 *	SOCKS_REQUEST	a CONNECT to a host name that passed every check
 *			this file can make (the form, the grant's patterns,
 *			port 443); bytes after sr_used are the client's data,
 *			to be relayed once connected
 *	SOCKS_REFUSE	send sr_reply (sr_replylen bytes, 0 for "close
 *			without a reply"), report sr_reason and close
 *
 * After SOCKS_REQUEST or SOCKS_REFUSE the parser is finished: feeding it
 * again uses nothing and repeats that event. The parser does no I/O and
 * holds no pointer into the caller's buffers, so it can be fuzzed and
 * tested alone; the patterns it matches against are the caller's and
 * must outlive it.
 *
 * What it accepts, and what each refusal replies:
 *
 *	greeting	VER 5 (else close, no reply), NMETHODS >= 1 and
 *			method 0x00 among them (else 05 FF)
 *	request		VER 5 (else close, no reply), CMD 1 CONNECT (else
 *			0x07), RSV 0 (else 0x01), ATYP 3 (0x01 and 0x04 are
 *			read whole, then 0x08 "an IP literal"; any other
 *			ATYP is 0x08 at once)
 *	the name	1 to 255 bytes of anything on the wire; it must be a
 *			host name (proto/hostname.h), else 0x02 "not a host
 *			name", or "an IP literal" when it is an IP address
 *			in text; then match one of the patterns (0x02 "not
 *			in the grant's hosts"); then port 443 (0x02 "port is
 *			not 443")
 */
#ifndef BXE_SOCKS_H
#define BXE_SOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SOCKS_VERSION		5
#define SOCKS_METHOD_NONE	0x00
#define SOCKS_METHOD_REFUSED	0xff
#define SOCKS_CMD_CONNECT	1
#define SOCKS_ATYP_IPV4		0x01
#define SOCKS_ATYP_NAME		0x03
#define SOCKS_ATYP_IPV6		0x04
/* The one port a sandbox may reach. */
#define SOCKS_PORT		443

/* A name's length is one byte on the wire. */
#define SOCKS_NAME_MAX		255
/* The longest reply: VER REP RSV ATYP, an IPv4 address and a port. */
#define SOCKS_REPLY_LEN		10
/* The longest reason: "bad request: address type 255". */
#define SOCKS_REASON_MAX	48

/* RFC 1928's REP codes, those bxegress sends. */
enum socks_rep {
	SOCKS_REP_OK = 0x00,
	SOCKS_REP_FAILURE = 0x01,
	SOCKS_REP_NOT_ALLOWED = 0x02,
	SOCKS_REP_HOST_UNREACHABLE = 0x04,
	SOCKS_REP_CONN_REFUSED = 0x05,
	SOCKS_REP_COMMAND = 0x07,
	SOCKS_REP_ADDRESS_TYPE = 0x08,
};

enum socks_event {
	SOCKS_MORE,
	SOCKS_METHOD,
	SOCKS_REQUEST,
	SOCKS_REFUSE,
	SOCKS_EVENT_MAX
};

enum socks_state {
	SOCKS_S_VER,
	SOCKS_S_NMETHODS,
	SOCKS_S_METHODS,
	SOCKS_S_REQ_VER,
	SOCKS_S_CMD,
	SOCKS_S_RSV,
	SOCKS_S_ATYP,
	SOCKS_S_ADDR,
	SOCKS_S_NAMELEN,
	SOCKS_S_NAME,
	SOCKS_S_PORT,
	SOCKS_S_DONE,
	SOCKS_S_MAX
};

struct socks_result {
	enum socks_event sr_event;
	size_t		 sr_used;		/* bytes of this input used */
	unsigned char	 sr_reply[SOCKS_REPLY_LEN];
	size_t		 sr_replylen;
	char		 sr_reason[SOCKS_REASON_MAX];	/* SOCKS_REFUSE */
};

struct socks_parser {
	enum socks_state	 sp_state;
	const char *const	*sp_patterns;
	size_t			 sp_npatterns;
	size_t			 sp_left;	/* bytes left of this field */
	bool			 sp_noauth;	/* method 0x00 offered */
	/* The target, once the whole request was read (sp_known). */
	bool			 sp_known;
	unsigned		 sp_atyp;
	unsigned char		 sp_addr[16];	/* ATYP 1 and 4 */
	char			 sp_name[SOCKS_NAME_MAX + 1]; /* NUL-ended */
	size_t			 sp_namelen;	/* may hold NULs */
	uint16_t		 sp_port;
	struct socks_result	 sp_final;	/* repeated once done */
};

/* A parser for one connection, matching names against patterns. */
void	socks_init(struct socks_parser *p, const char *const *patterns,
	    size_t npatterns);

/*
 * Feeds len bytes; fills ret and returns its event. sr_used says how many
 * of the bytes were taken: all of them for SOCKS_MORE, up to the end of
 * the greeting or the request otherwise.
 */
enum socks_event socks_feed(struct socks_parser *p, const unsigned char *buf,
	    size_t len, struct socks_result *ret);

/* A reply to a request: VER, rep, RSV, ATYP 1, 0.0.0.0 and port 0. */
void	socks_reply(enum socks_rep rep, unsigned char out[SOCKS_REPLY_LEN]);

/* Whether name (len bytes) is an IP address written as text. */
bool	socks_ip_text(const char *name, size_t len);

#endif
