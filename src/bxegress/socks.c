/*
 * socks.c: the SOCKS5 greeting and request, one byte at a time (socks.h).
 * Working byte by byte makes every split of the input the same to the
 * parser: a request sent whole, in pieces or one byte per read gives the
 * same answer, and the bytes after it are never touched.
 */
#include <arpa/inet.h>

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "bxegress/socks.h"
#include "proto/hostname.h"

void
socks_init(struct socks_parser *p, const char *const *patterns,
    size_t npatterns)
{
	memset(p, 0, sizeof(*p));
	p->sp_state = SOCKS_S_VER;
	p->sp_patterns = patterns;
	p->sp_npatterns = npatterns;
}

void
socks_reply(enum socks_rep rep, unsigned char out[SOCKS_REPLY_LEN])
{
	memset(out, 0, SOCKS_REPLY_LEN);
	out[0] = SOCKS_VERSION;
	out[1] = (unsigned char)rep;
	out[3] = SOCKS_ATYP_IPV4;
}

static enum socks_event
refuse(struct socks_result *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* A refusal closed without a reply: the peer does not speak SOCKS5. */
static enum socks_event
refuse(struct socks_result *r, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(r->sr_reason, sizeof(r->sr_reason), fmt, ap);
	va_end(ap);
	r->sr_replylen = 0;
	return SOCKS_REFUSE;
}

static enum socks_event
refuse_method(struct socks_result *r)
{
	r->sr_reply[0] = SOCKS_VERSION;
	r->sr_reply[1] = SOCKS_METHOD_REFUSED;
	r->sr_replylen = 2;
	(void)snprintf(r->sr_reason, sizeof(r->sr_reason),
	    "bad request: no acceptable method");
	return SOCKS_REFUSE;
}

static enum socks_event
refuse_rep(struct socks_result *r, enum socks_rep rep, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A refusal answered with a reply to the request. */
static enum socks_event
refuse_rep(struct socks_result *r, enum socks_rep rep, const char *fmt, ...)
{
	va_list ap;

	socks_reply(rep, r->sr_reply);
	r->sr_replylen = SOCKS_REPLY_LEN;
	va_start(ap, fmt);
	(void)vsnprintf(r->sr_reason, sizeof(r->sr_reason), fmt, ap);
	va_end(ap);
	return SOCKS_REFUSE;
}

/* Letters, digits, "-" and ".": what a URL parser reads as a host. */
static bool
host_chars(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= 'A' && s[i] <= 'Z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-' ||
		    s[i] == '.'))
			return false;
	return true;
}

static bool
hex_digit(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	    (c >= 'A' && c <= 'F');
}

/*
 * WHATWG's "ends in a number": the last label (a trailing "." set aside)
 * is decimal digits, or 0x and hex digits, as in 127.0.0.1, 2130706433,
 * 0x7f.1 or 1.2.3.0x4. A URL parser reads such a host as IPv4, which is
 * also why proto/hostname.c refuses it.
 */
static bool
ends_in_number(const char *s, size_t len)
{
	size_t start, i;

	if (len > 0 && s[len - 1] == '.')
		len--;
	for (start = len; start > 0 && s[start - 1] != '.'; start--)
		continue;
	if (start == len)
		return false;
	if (len - start >= 2 && s[start] == '0' &&
	    (s[start + 1] == 'x' || s[start + 1] == 'X')) {
		for (i = start + 2; i < len; i++)
			if (!hex_digit(s[i]))
				return false;
		return true;
	}
	for (i = start; i < len; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

bool
socks_ip_text(const char *name, size_t len)
{
	char text[SOCKS_NAME_MAX + 1];
	unsigned char addr[16];

	if (len == 0 || len > SOCKS_NAME_MAX || memchr(name, '\0', len) != NULL)
		return false;
	memcpy(text, name, len);
	text[len] = '\0';
	/* "[::1]", as a URL writes an IPv6 address. */
	if (len > 2 && text[0] == '[' && text[len - 1] == ']') {
		text[len - 1] = '\0';
		return inet_pton(AF_INET6, text + 1, addr) == 1;
	}
	if (inet_pton(AF_INET6, text, addr) == 1 ||
	    inet_pton(AF_INET, text, addr) == 1)
		return true;
	return host_chars(text, len) && ends_in_number(text, len);
}

/* The whole request is read: the checks, in the order socks.h gives. */
static enum socks_event
decide(struct socks_parser *p, struct socks_result *r)
{
	struct bx_error err;
	size_t i;

	p->sp_known = true;
	if (p->sp_atyp != SOCKS_ATYP_NAME)
		return refuse_rep(r, SOCKS_REP_ADDRESS_TYPE, "an IP literal");
	if (bx_host_check(p->sp_name, p->sp_namelen, &err) == -1)
		return refuse_rep(r, SOCKS_REP_NOT_ALLOWED, "%s",
		    socks_ip_text(p->sp_name, p->sp_namelen) ?
		    "an IP literal" : "not a host name");
	for (i = 0; i < p->sp_npatterns; i++)
		if (bx_host_matches(p->sp_patterns[i], p->sp_name))
			break;
	if (i == p->sp_npatterns)
		return refuse_rep(r, SOCKS_REP_NOT_ALLOWED,
		    "not in the grant's hosts");
	if (p->sp_port != SOCKS_PORT)
		return refuse_rep(r, SOCKS_REP_NOT_ALLOWED, "port is not 443");
	return SOCKS_REQUEST;
}

/* After ATYP: which field comes next, and how long it is. */
static enum socks_event
address_type(struct socks_parser *p, unsigned char c, struct socks_result *r)
{
	p->sp_atyp = c;
	switch (c) {
	case SOCKS_ATYP_IPV4:
		p->sp_left = 4;
		p->sp_state = SOCKS_S_ADDR;
		return SOCKS_MORE;
	case SOCKS_ATYP_IPV6:
		p->sp_left = 16;
		p->sp_state = SOCKS_S_ADDR;
		return SOCKS_MORE;
	case SOCKS_ATYP_NAME:
		p->sp_state = SOCKS_S_NAMELEN;
		return SOCKS_MORE;
	default:
		return refuse_rep(r, SOCKS_REP_ADDRESS_TYPE,
		    "bad request: address type %u", c);
	}
}

static void
expect_port(struct socks_parser *p)
{
	p->sp_left = 2;
	p->sp_state = SOCKS_S_PORT;
}

static enum socks_event
greeting_step(struct socks_parser *p, unsigned char c, struct socks_result *r)
{
	switch (p->sp_state) {
	case SOCKS_S_VER:
		if (c != SOCKS_VERSION)
			return refuse(r, "bad request: version %u", c);
		p->sp_state = SOCKS_S_NMETHODS;
		return SOCKS_MORE;
	case SOCKS_S_NMETHODS:
		if (c == 0)
			return refuse_method(r);
		p->sp_left = c;
		p->sp_state = SOCKS_S_METHODS;
		return SOCKS_MORE;
	default:
		if (c == SOCKS_METHOD_NONE)
			p->sp_noauth = true;
		if (--p->sp_left > 0)
			return SOCKS_MORE;
		if (!p->sp_noauth)
			return refuse_method(r);
		p->sp_state = SOCKS_S_REQ_VER;
		r->sr_reply[0] = SOCKS_VERSION;
		r->sr_reply[1] = SOCKS_METHOD_NONE;
		r->sr_replylen = 2;
		return SOCKS_METHOD;
	}
}

static enum socks_event
request_step(struct socks_parser *p, unsigned char c, struct socks_result *r)
{
	switch (p->sp_state) {
	case SOCKS_S_REQ_VER:
		if (c != SOCKS_VERSION)
			return refuse(r, "bad request: version %u", c);
		p->sp_state = SOCKS_S_CMD;
		return SOCKS_MORE;
	case SOCKS_S_CMD:
		if (c != SOCKS_CMD_CONNECT)
			return refuse_rep(r, SOCKS_REP_COMMAND,
			    "bad request: command %u", c);
		p->sp_state = SOCKS_S_RSV;
		return SOCKS_MORE;
	case SOCKS_S_RSV:
		if (c != 0)
			return refuse_rep(r, SOCKS_REP_FAILURE,
			    "bad request: reserved byte");
		p->sp_state = SOCKS_S_ATYP;
		return SOCKS_MORE;
	case SOCKS_S_ATYP:
		return address_type(p, c, r);
	default:
		break;
	}
	return SOCKS_MORE;
}

/* The target's fields: address or name, then the port. */
static enum socks_event
target_step(struct socks_parser *p, unsigned char c, struct socks_result *r)
{
	size_t addrlen = p->sp_atyp == SOCKS_ATYP_IPV4 ? 4 : 16;

	switch (p->sp_state) {
	case SOCKS_S_ADDR:
		p->sp_addr[addrlen - p->sp_left] = c;
		if (--p->sp_left == 0)
			expect_port(p);
		return SOCKS_MORE;
	case SOCKS_S_NAMELEN:
		/* A zero length is read on to the port, then refused. */
		p->sp_namelen = c;
		p->sp_left = c;
		if (c == 0)
			expect_port(p);
		else
			p->sp_state = SOCKS_S_NAME;
		return SOCKS_MORE;
	case SOCKS_S_NAME:
		p->sp_name[p->sp_namelen - p->sp_left] = (char)c;
		if (--p->sp_left == 0)
			expect_port(p);
		return SOCKS_MORE;
	default:
		p->sp_port = (uint16_t)(p->sp_port << 8 | c);
		if (--p->sp_left > 0)
			return SOCKS_MORE;
		return decide(p, r);
	}
}

static enum socks_event
step(struct socks_parser *p, unsigned char c, struct socks_result *r)
{
	switch (p->sp_state) {
	case SOCKS_S_VER:
	case SOCKS_S_NMETHODS:
	case SOCKS_S_METHODS:
		return greeting_step(p, c, r);
	case SOCKS_S_REQ_VER:
	case SOCKS_S_CMD:
	case SOCKS_S_RSV:
	case SOCKS_S_ATYP:
		return request_step(p, c, r);
	case SOCKS_S_ADDR:
	case SOCKS_S_NAMELEN:
	case SOCKS_S_NAME:
	case SOCKS_S_PORT:
		return target_step(p, c, r);
	case SOCKS_S_DONE:
	case SOCKS_S_MAX:
		break;
	}
	/* Not reached: socks_feed answers a finished parser itself. */
	return refuse(r, "bad request: past its end");
}

enum socks_event
socks_feed(struct socks_parser *p, const unsigned char *buf, size_t len,
    struct socks_result *ret)
{
	struct socks_result r;
	enum socks_event ev;
	size_t i;

	if (p->sp_state == SOCKS_S_DONE) {
		*ret = p->sp_final;
		return ret->sr_event;
	}
	memset(&r, 0, sizeof(r));
	for (i = 0; i < len; i++) {
		if ((ev = step(p, buf[i], &r)) == SOCKS_MORE)
			continue;
		r.sr_event = ev;
		r.sr_used = i + 1;
		if (ev != SOCKS_METHOD) {
			p->sp_state = SOCKS_S_DONE;
			p->sp_final = r;
			p->sp_final.sr_used = 0;
		}
		*ret = r;
		return ev;
	}
	r.sr_event = SOCKS_MORE;
	r.sr_used = len;
	*ret = r;
	return SOCKS_MORE;
}
