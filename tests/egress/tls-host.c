/*
 * tls-host.c: the HTTPS server of the egress test network (testnet.sh).
 * It answers the fixed routes the http_fetch and bxegress tests need:
 * plain answers, any status, redirects, big, endless and non-UTF-8
 * bodies, and peers that never answer. Each connection gets its own
 * child, so a route that never ends does not hold up the next test, and
 * every answer closes its connection.
 *
 *   tls-host --addr IPV4 --port N --cert FILE --key FILE --log FILE
 *
 * The log gets "accept PEERADDR" at each TCP accept, before the
 * handshake, so a test can tell a host was never contacted at all, and
 * "request SNI METHOD PATH" once a request head has been read (SNI "-"
 * when the client sent none), then "header SNI LINE" for each header line
 * of that head, in the order sent: the line as received without its CR
 * LF, so "Authorization: Bearer abc" for curl's headers, each byte
 * outside 0x20..0x7e written \xNN (lower-case hex) so that a line stays a
 * line, every other byte (a backslash too) as it is. PEERADDR is the bare
 * IPv4 address. SIGTERM ends the children and the server.
 *
 * Routes (a query string is ignored, except that redirects carry it on):
 *   / and /ok                  200 "hello from SNI\n"
 *   /status/NNN[/big]          status NNN (100..599), "status NNN\n" or
 *                              4096 bytes "status NNN xxx..."
 *   /redirect/HOST/REST        302 to https://HOST/REST
 *   /redirect-port/HOST/PORT/REST  302 to https://HOST:PORT/REST
 *   /chain/K                   302 to /chain/K-1; K = 0: "end of chain\n"
 *   /loop                      302 to /loop
 *   /latin1                    200 "caf\xe9\n"
 *   /big/N                     200, N bytes of 'a' (N <= 1 GiB)
 *   /forever                   200, lines of 'a' with no Content-Length
 *   /silent                    no answer until the client closes
 *   /slowloris                 a status line, then a header byte a second
 *   /forged                    404 "forged" (chunked) with a header and a
 *                              trailer that each look like "HTTP/1.1 200"
 *   /echo/NAME                 200, the value of the request's header NAME
 *                              (any case; the first such header) in each
 *                              form a redaction must find, one labelled
 *                              line a form (echo-forms.h); no such header:
 *                              200 "no NAME header\n"
 *   /echo-gzip/NAME            the same body gzip-compressed, with
 *                              Content-Encoding: gzip
 *   /echo-big/NAME/N           200, N bytes of 'x' (N <= 1 GiB), the raw
 *                              value of header NAME, 1024 bytes of 'x'; no
 *                              such header: 200 "no NAME header\n"
 *   anything else              404 "not found\n"; a head that is not
 *                              HTTP/1.x, over 16 KiB or of more than 128
 *                              header lines: 400 "bad request\n"
 * So /redirect/other.test/echo/authorization sends a client that follows
 * it to another host's echo.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <zlib.h>

#include "echo-forms.h"

#define HEAD_MAX	(16 * 1024)	/* a request head, request line included */
#define FIELDS_MAX	128		/* header lines in a request head */
#define CHILDREN_MAX	32		/* connections served at once */
#define BIG_MAX		1073741824ULL	/* the largest /big/N */
#define CHAIN_MAX	20		/* the longest /chain/K */
#define STATUS_BIG_LEN	4096		/* the body of /status/NNN/big */
#define CHUNK_LEN	(64 * 1024)	/* one write of a big or endless body */
#define SNI_MAX		255
#define METHOD_MAX	32
#define ECHO_BIG_TAIL	1024		/* the 'x' after the value of /echo-big */
/* A header line with every byte written \xNN, and the words before it. */
#define LOG_LINE_MAX	(4 * HEAD_MAX + 512)
/* A client that never finishes its handshake or head does not keep a child. */
#define HEAD_TIMEOUT_S	60
/* How long a finished answer waits for the client to close first. */
#define LINGER_TIMEOUT_S 2

struct request {
	char		 rq_sni[SNI_MAX + 1];
	char		*rq_method;
	char		*rq_path;	/* as sent, query included */
	char		*rq_route;	/* a copy of the path without the query */
	const char	*rq_query;	/* "?..." or "" */
	char		*rq_fields[FIELDS_MAX];	/* header lines, no CR LF */
	size_t		 rq_nfields;
	bool		 rq_head_only;
};

static volatile sig_atomic_t got_term;
static volatile sig_atomic_t got_child;
static int log_fd = -1;

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: tls-host --addr IPV4 --port N --cert FILE "
	    "--key FILE --log FILE\n");
	exit(1);
}

/* One write per line, so lines of the parent and children never mix. */
static void __attribute__((format(printf, 1, 2)))
log_line(const char *fmt, ...)
{
	char line[LOG_LINE_MAX];
	va_list ap;
	size_t len, off = 0;
	ssize_t n;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (r < 0)
		return;
	len = (size_t)r < sizeof(line) - 2 ? (size_t)r : sizeof(line) - 2;
	line[len++] = '\n';
	while (off < len) {
		n = write(log_fd, line + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			warn("log");
			return;
		}
		off += (size_t)n;
	}
}

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_child = 1;
	else
		got_term = 1;
}

/* Decimal digits only, the whole string, at most max. */
static int
parse_number(const char *s, unsigned long long max, unsigned long long *ret)
{
	unsigned long long v = 0;

	if (*s == '\0' || strlen(s) > 20)
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		v = v * 10 + (unsigned long long)(*s - '0');
		if (v > max)
			return -1;
	}
	*ret = v;
	return 0;
}

static const char *
reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 204: return "No Content";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 303: return "See Other";
	case 304: return "Not Modified";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "Status";
	}
}

/* SSL_write of a blocking socket writes all or fails; -1 when the peer is gone. */
static int
tls_write(SSL *ssl, const void *buf, size_t len)
{
	const char *p = buf;
	int n;

	while (len > 0) {
		n = SSL_write(ssl, p, len > CHUNK_LEN ? CHUNK_LEN : (int)len);
		if (n <= 0)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/*
 * The status line and headers; fields is NULL or more header lines, each
 * ending in CR LF; length -1 means no Content-Length.
 */
static int
send_head(SSL *ssl, int status, const char *fields, long long length)
{
	char head[2 * HEAD_MAX], clen[64] = "";
	int n;

	if (length >= 0)
		snprintf(clen, sizeof(clen), "Content-Length: %lld\r\n", length);
	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n"
	    "Content-Type: text/plain\r\n%s%sConnection: close\r\n\r\n",
	    status, reason(status), clen, fields != NULL ? fields : "");
	if (n < 0 || (size_t)n >= sizeof(head))
		return -1;
	return tls_write(ssl, head, (size_t)n);
}

static int
answer_with(SSL *ssl, struct request *rq, int status, const char *fields,
    const char *body, size_t len)
{
	if (send_head(ssl, status, fields, (long long)len) == -1)
		return -1;
	if (rq->rq_head_only)
		return 0;
	return tls_write(ssl, body, len);
}

static int
answer(SSL *ssl, struct request *rq, int status, const char *body, size_t len)
{
	return answer_with(ssl, rq, status, NULL, body, len);
}

static int
redirect(SSL *ssl, int status, const char *location)
{
	char field[HEAD_MAX + 128];
	int n;

	n = snprintf(field, sizeof(field), "Location: %s\r\n", location);
	if (n < 0 || (size_t)n >= sizeof(field))
		return -1;
	return send_head(ssl, status, field, 0);
}

static int
send_status(SSL *ssl, struct request *rq, int status, bool big)
{
	char body[STATUS_BIG_LEN];
	int n;

	n = snprintf(body, sizeof(body), big ? "status %d " : "status %d\n",
	    status);
	if (!big)
		return answer(ssl, rq, status, body, (size_t)n);
	memset(body + n, 'x', sizeof(body) - (size_t)n);
	return answer(ssl, rq, status, body, sizeof(body));
}

/* len bytes of c, written until done or the client is gone. */
static int
write_repeated(SSL *ssl, char c, unsigned long long len)
{
	static char chunk[CHUNK_LEN];
	size_t n;

	memset(chunk, c, sizeof(chunk));
	while (len > 0) {
		n = len > sizeof(chunk) ? sizeof(chunk) : (size_t)len;
		if (tls_write(ssl, chunk, n) == -1)
			return -1;
		len -= n;
	}
	return 0;
}

/* Content-Length bytes of 'a'. */
static int
send_big(SSL *ssl, struct request *rq, unsigned long long len)
{
	if (send_head(ssl, 200, NULL, (long long)len) == -1)
		return -1;
	if (rq->rq_head_only)
		return 0;
	return write_repeated(ssl, 'a', len);
}

/* Lines of 'a' with no Content-Length, until the client goes away. */
static int
send_forever(SSL *ssl, struct request *rq)
{
	static char chunk[CHUNK_LEN];
	size_t i;

	if (send_head(ssl, 200, NULL, -1) == -1)
		return -1;
	if (rq->rq_head_only)
		return 0;
	memset(chunk, 'a', sizeof(chunk));
	for (i = 63; i < sizeof(chunk); i += 64)
		chunk[i] = '\n';
	while (tls_write(ssl, chunk, sizeof(chunk)) == 0)
		;
	return -1;
}

/*
 * A 404 whose head and trailer each hold a line that reads as a 200
 * status line, as a hostile server would send to pass its error off as a
 * page.
 */
static int
send_forged(SSL *ssl)
{
	static const char response[] = "HTTP/1.1 404 Not Found\r\n"
	    "HTTP/1.1 200 OK: x\r\nContent-Type: text/plain\r\n"
	    "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
	    "6\r\nforged\r\n0\r\nHTTP/1.1 200 OK: y\r\n\r\n";

	return tls_write(ssl, response, sizeof(response) - 1);
}

/* A status line, then one byte of a header a second, never finishing. */
static int
send_slowloris(SSL *ssl)
{
	static const char status[] = "HTTP/1.1 200 OK\r\n";
	static const char name[] = "X-Slowloris: ";
	size_t i;

	if (tls_write(ssl, status, sizeof(status) - 1) == -1)
		return -1;
	for (i = 0;; i++) {
		if (tls_write(ssl, i < sizeof(name) - 1 ? &name[i] : "a",
		    1) == -1)
			return -1;
		sleep(1);
	}
}

/* Reads and drops whatever comes until the client closes. */
static int
stay_silent(SSL *ssl)
{
	char buf[4096];

	while (SSL_read(ssl, buf, sizeof(buf)) > 0)
		;
	return -1;
}

/* /redirect/HOST/REST and /redirect-port/HOST/PORT/REST. */
static int
send_redirect_to(SSL *ssl, struct request *rq, char *rest, bool with_port)
{
	char location[HEAD_MAX + 64], *host = rest, *port = NULL, *slash;
	unsigned long long n;

	if ((slash = strchr(host, '/')) != NULL)
		*slash++ = '\0';
	if (with_port) {
		port = slash;
		if (port == NULL)
			return -2;
		if ((slash = strchr(port, '/')) != NULL)
			*slash++ = '\0';
		if (parse_number(port, 65535, &n) == -1 || n == 0)
			return -2;
	}
	if (*host == '\0')
		return -2;
	snprintf(location, sizeof(location), "https://%s%s%s/%s%s", host,
	    port != NULL ? ":" : "", port != NULL ? port : "",
	    slash != NULL ? slash : "", rq->rq_query);
	return redirect(ssl, 302, location);
}

/* An RFC 9110 token: what a header's name is made of. */
static bool
header_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!((*s >= 'A' && *s <= 'Z') || (*s >= 'a' && *s <= 'z') ||
		    (*s >= '0' && *s <= '9') ||
		    strchr("!#$%&'*+-.^_`|~", *s) != NULL))
			return false;
	return true;
}

/*
 * The value of the first header named name (any case), spaces and tabs
 * at either end removed; false when the request has none.
 */
static bool
find_field(struct request *rq, const char *name, const char **value,
    size_t *len)
{
	size_t i, n = strlen(name);
	const char *v, *end;

	for (i = 0; i < rq->rq_nfields; i++) {
		if (strncasecmp(rq->rq_fields[i], name, n) != 0 ||
		    rq->rq_fields[i][n] != ':')
			continue;
		v = rq->rq_fields[i] + n + 1;
		v += strspn(v, " \t");
		end = v + strlen(v);
		while (end > v && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		*value = v;
		*len = (size_t)(end - v);
		return true;
	}
	return false;
}

/* The gzip file of in (len bytes), in out. */
static void
gzip_into(const char *in, size_t len, struct echo_body *out)
{
	z_stream zs;
	uLong bound;

	memset(&zs, 0, sizeof(zs));
	/* 16 + 15: a gzip header and trailer around a 32 KiB window. */
	if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 16 + 15, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		errx(1, "deflateInit2 failed");
	bound = deflateBound(&zs, (uLong)len);
	if ((out->eb_data = malloc(bound)) == NULL)
		err(1, "gzip body of %lu bytes", bound);
	out->eb_cap = bound;
	zs.next_in = (Bytef *)(uintptr_t)in;
	zs.avail_in = (uInt)len;
	zs.next_out = (Bytef *)out->eb_data;
	zs.avail_out = (uInt)bound;
	if (deflate(&zs, Z_FINISH) != Z_STREAM_END)
		errx(1, "deflate of %zu bytes failed", len);
	out->eb_len = (size_t)zs.total_out;
	deflateEnd(&zs);
}

/* /echo/NAME and /echo-gzip/NAME. */
static int
send_echo(SSL *ssl, struct request *rq, const char *name, bool gzip)
{
	struct echo_body body = { 0 }, packed = { 0 };
	const char *value;
	size_t len;
	int r;

	if (!header_name(name))
		return -2;
	if (find_field(rq, name, &value, &len))
		echo_forms(&body, value, len);
	else {
		echo_append(&body, "no ", 3);
		echo_append(&body, name, strlen(name));
		echo_append(&body, " header\n", 8);
	}
	if (!gzip)
		r = answer(ssl, rq, 200, body.eb_data, body.eb_len);
	else {
		gzip_into(body.eb_data, body.eb_len, &packed);
		r = answer_with(ssl, rq, 200, "Content-Encoding: gzip\r\n",
		    packed.eb_data, packed.eb_len);
	}
	free(packed.eb_data);
	free(body.eb_data);
	return r;
}

/* /echo-big/NAME/N: N bytes of 'x', the value, ECHO_BIG_TAIL of 'x'. */
static int
send_echo_big(SSL *ssl, struct request *rq, char *rest)
{
	char absent[HEAD_MAX + 32], *count;
	unsigned long long n;
	const char *value;
	size_t len;

	if ((count = strchr(rest, '/')) == NULL)
		return -2;
	*count++ = '\0';
	if (!header_name(rest) || parse_number(count, BIG_MAX, &n) == -1)
		return -2;
	if (!find_field(rq, rest, &value, &len)) {
		snprintf(absent, sizeof(absent), "no %s header\n", rest);
		return answer(ssl, rq, 200, absent, strlen(absent));
	}
	if (send_head(ssl, 200, NULL, (long long)(n + len + ECHO_BIG_TAIL)) ==
	    -1)
		return -1;
	if (rq->rq_head_only)
		return 0;
	if (write_repeated(ssl, 'x', n) == -1 ||
	    tls_write(ssl, value, len) == -1)
		return -1;
	return write_repeated(ssl, 'x', ECHO_BIG_TAIL);
}

/* -2 means no route matched: the caller answers 404. */
static int
route(SSL *ssl, struct request *rq)
{
	char body[SNI_MAX + 32], location[64], *r = rq->rq_route, *p;
	unsigned long long n;

	if (strcmp(r, "/") == 0 || strcmp(r, "/ok") == 0) {
		snprintf(body, sizeof(body), "hello from %s\n", rq->rq_sni);
		return answer(ssl, rq, 200, body, strlen(body));
	}
	if (strncmp(r, "/status/", 8) == 0) {
		p = r + 8;
		if (strspn(p, "0123456789") != 3 ||
		    (p[3] != '\0' && strcmp(p + 3, "/big") != 0))
			return -2;
		n = (unsigned long long)(p[0] - '0') * 100 +
		    (unsigned long long)(p[1] - '0') * 10 +
		    (unsigned long long)(p[2] - '0');
		if (n < 100 || n > 599)
			return -2;
		return send_status(ssl, rq, (int)n, p[3] != '\0');
	}
	if (strncmp(r, "/redirect/", 10) == 0)
		return send_redirect_to(ssl, rq, r + 10, false);
	if (strncmp(r, "/redirect-port/", 15) == 0)
		return send_redirect_to(ssl, rq, r + 15, true);
	if (strncmp(r, "/chain/", 7) == 0) {
		if (parse_number(r + 7, CHAIN_MAX, &n) == -1)
			return -2;
		if (n == 0)
			return answer(ssl, rq, 200, "end of chain\n", 13);
		snprintf(location, sizeof(location), "/chain/%llu", n - 1);
		return redirect(ssl, 302, location);
	}
	if (strcmp(r, "/loop") == 0)
		return redirect(ssl, 302, "/loop");
	if (strcmp(r, "/latin1") == 0)
		return answer(ssl, rq, 200, "caf\xe9\n", 5);
	if (strncmp(r, "/big/", 5) == 0) {
		if (parse_number(r + 5, BIG_MAX, &n) == -1)
			return -2;
		return send_big(ssl, rq, n);
	}
	if (strcmp(r, "/forever") == 0)
		return send_forever(ssl, rq);
	if (strcmp(r, "/silent") == 0)
		return stay_silent(ssl);
	if (strcmp(r, "/slowloris") == 0)
		return send_slowloris(ssl);
	if (strcmp(r, "/forged") == 0)
		return send_forged(ssl);
	if (strncmp(r, "/echo/", 6) == 0)
		return send_echo(ssl, rq, r + 6, false);
	if (strncmp(r, "/echo-gzip/", 11) == 0)
		return send_echo(ssl, rq, r + 11, true);
	if (strncmp(r, "/echo-big/", 10) == 0)
		return send_echo_big(ssl, rq, r + 10);
	return -2;
}

/* Visible ASCII: no space, no control byte, nothing above 0x7e. */
static bool
visible(char c)
{
	return c > 0x20 && c < 0x7f;
}

static bool
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if (!visible(*s))
			return false;
	return true;
}

/*
 * The header lines from p up to the blank line that ends the head, each
 * cut at its LF (and a CR before it) into rq's fields; -2 when there are
 * more than FIELDS_MAX.
 */
static int
split_fields(char *p, struct request *rq)
{
	char *nl;

	for (;;) {
		/* The head holds a blank line: each line before it ends in LF. */
		nl = strchr(p, '\n');
		*nl = '\0';
		if (nl > p && nl[-1] == '\r')
			nl[-1] = '\0';
		if (*p == '\0')
			return 0;
		if (rq->rq_nfields == FIELDS_MAX)
			return -2;
		rq->rq_fields[rq->rq_nfields++] = p;
		p = nl + 1;
	}
}

/*
 * Reads up to the blank line that ends the head; 0 with the request line
 * split in rq and the header lines in its fields, -1 when the client went
 * away, -2 when the head is too long, of too many lines or not HTTP/1.x.
 */
static int
read_head(SSL *ssl, char *head, struct request *rq)
{
	char *eol, *version, *q;
	size_t len = 0;
	int n;

	for (;;) {
		if (len == HEAD_MAX)
			return -2;
		if ((n = SSL_read(ssl, head + len, (int)(HEAD_MAX - len))) <= 0)
			return -1;
		len += (size_t)n;
		head[len] = '\0';
		if (strstr(head, "\r\n\r\n") != NULL ||
		    strstr(head, "\n\n") != NULL)
			break;
	}
	if (strlen(head) != len)
		return -2;
	eol = strchr(head, '\n');
	*eol = '\0';
	if (eol > head && eol[-1] == '\r')
		eol[-1] = '\0';
	if (split_fields(eol + 1, rq) == -2)
		return -2;
	rq->rq_method = head;
	if ((rq->rq_path = strchr(head, ' ')) == NULL)
		return -2;
	*rq->rq_path++ = '\0';
	if ((version = strchr(rq->rq_path, ' ')) == NULL)
		return -2;
	*version++ = '\0';
	if (strncmp(version, "HTTP/1.", 7) != 0 || *rq->rq_path != '/' ||
	    strlen(rq->rq_method) > METHOD_MAX || *rq->rq_method == '\0' ||
	    !printable(rq->rq_method) || !printable(rq->rq_path))
		return -2;
	if ((rq->rq_route = strdup(rq->rq_path)) == NULL)
		return -1;
	rq->rq_query = "";
	if ((q = strchr(rq->rq_route, '?')) != NULL) {
		*q = '\0';
		rq->rq_query = rq->rq_path + (q - rq->rq_route);
	}
	rq->rq_head_only = strcmp(rq->rq_method, "HEAD") == 0;
	return 0;
}

static void
copy_sni(SSL *ssl, char *sni)
{
	const char *name = SSL_get_servername(ssl, TLSEXT_NAMETYPE_host_name);
	size_t i;

	if (name == NULL || *name == '\0') {
		strcpy(sni, "-");
		return;
	}
	/* The name goes into a log line and a body: nothing but name bytes. */
	for (i = 0; i < SNI_MAX && name[i] != '\0'; i++)
		sni[i] = visible(name[i]) ? name[i] : '?';
	sni[i] = '\0';
}

/*
 * "header SNI LINE" for each header line: bytes outside 0x20..0x7e as
 * \xNN, so a line of the log is one line of the head, and the rest as
 * sent, so a test finds a header's value in the log as it was sent.
 */
static void
log_fields(struct request *rq)
{
	static char line[4 * HEAD_MAX + 1];
	const unsigned char *p;
	size_t i, n;

	for (i = 0; i < rq->rq_nfields; i++) {
		n = 0;
		for (p = (const unsigned char *)rq->rq_fields[i]; *p != '\0';
		    p++) {
			if (*p >= 0x20 && *p <= 0x7e)
				line[n++] = (char)*p;
			else
				n += (size_t)snprintf(line + n,
				    sizeof(line) - n, "\\x%02x", *p);
		}
		line[n] = '\0';
		log_line("header %s %s", rq->rq_sni, line);
	}
}

/* The child's whole life: one connection, one answer, then exit. */
static void __attribute__((noreturn))
serve(SSL_CTX *ctx, int fd)
{
	static char head[HEAD_MAX + 1];
	struct request rq;
	char drain[4096];
	SSL *ssl;
	int r;

	memset(&rq, 0, sizeof(rq));
	alarm(HEAD_TIMEOUT_S);
	if ((ssl = SSL_new(ctx)) == NULL || SSL_set_fd(ssl, fd) != 1)
		_exit(1);
	if (SSL_accept(ssl) != 1)
		_exit(0);
	copy_sni(ssl, rq.rq_sni);
	r = read_head(ssl, head, &rq);
	alarm(0);
	if (r == -1)
		_exit(0);
	if (r == -2) {
		rq.rq_head_only = false;
		r = answer(ssl, &rq, 400, "bad request\n", 12);
	} else {
		log_line("request %s %s %s", rq.rq_sni, rq.rq_method,
		    rq.rq_path);
		log_fields(&rq);
		if ((r = route(ssl, &rq)) == -2)
			r = answer(ssl, &rq, 404, "not found\n", 10);
	}
	if (r == -1)
		_exit(0);
	/*
	 * Closing with the client's bytes unread would send a reset that
	 * can destroy the answer in flight; let the client close first.
	 */
	SSL_shutdown(ssl);
	shutdown(fd, SHUT_WR);
	alarm(LINGER_TIMEOUT_S);
	while (read(fd, drain, sizeof(drain)) > 0)
		;
	_exit(0);
}

static SSL_CTX *
tls_context(const char *cert, const char *key)
{
	SSL_CTX *ctx;

	if ((ctx = SSL_CTX_new(TLS_server_method())) == NULL)
		errx(1, "SSL_CTX_new failed");
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1 ||
	    SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		ERR_print_errors_fp(stderr);
		errx(1, "cannot use certificate %s with key %s", cert, key);
	}
	return ctx;
}

static int
listen_on(const char *addr, const char *port_arg)
{
	struct sockaddr_in sin;
	unsigned long long port;
	int fd, one = 1;

	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	if (inet_pton(AF_INET, addr, &sin.sin_addr) != 1)
		errx(1, "--addr %s is not an IPv4 address", addr);
	if (parse_number(port_arg, 65535, &port) == -1 || port == 0)
		errx(1, "--port %s is not a port", port_arg);
	sin.sin_port = htons((unsigned short)port);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		err(1, "socket");
	if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) == -1)
		err(1, "SO_REUSEADDR");
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		err(1, "bind %s:%llu", addr, port);
	if (listen(fd, 64) == -1)
		err(1, "listen");
	return fd;
}

static void
reap(int *nchildren)
{
	while (waitpid(-1, NULL, WNOHANG) > 0)
		(*nchildren)--;
}

static void
handle(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	if (sigaction(sig, &sa, NULL) == -1)
		err(1, "sigaction");
}

int
main(int argc, char *argv[])
{
	static const struct option opts[] = {
		{ "addr", required_argument, NULL, 'a' },
		{ "port", required_argument, NULL, 'p' },
		{ "cert", required_argument, NULL, 'c' },
		{ "key", required_argument, NULL, 'k' },
		{ "log", required_argument, NULL, 'l' },
		{ NULL, 0, NULL, 0 },
	};
	const char *addr = NULL, *port = NULL, *cert = NULL, *key = NULL;
	const char *log_path = NULL;
	struct sockaddr_in peer;
	struct pollfd pfd;
	sigset_t block, old;
	socklen_t plen;
	char name[INET_ADDRSTRLEN];
	SSL_CTX *ctx;
	pid_t pid;
	int ch, lfd, fd, nchildren = 0;

	while ((ch = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (ch) {
		case 'a': addr = optarg; break;
		case 'p': port = optarg; break;
		case 'c': cert = optarg; break;
		case 'k': key = optarg; break;
		case 'l': log_path = optarg; break;
		default: usage();
		}
	}
	if (optind != argc || addr == NULL || port == NULL || cert == NULL ||
	    key == NULL || log_path == NULL)
		usage();

	log_fd = open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
	    0644);
	if (log_fd == -1)
		err(1, "%s", log_path);
	ctx = tls_context(cert, key);
	lfd = listen_on(addr, port);

	/* Its own process group, so SIGTERM can end every child at once. */
	if (getpgrp() != getpid() && setpgid(0, 0) == -1)
		err(1, "setpgid");
	/* A client that goes away ends a write with EPIPE, not the process. */
	signal(SIGPIPE, SIG_IGN);
	sigemptyset(&block);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGCHLD);
	/* Blocked except inside ppoll, so no signal slips in before it. */
	if (sigprocmask(SIG_BLOCK, &block, &old) == -1)
		err(1, "sigprocmask");
	handle(SIGTERM);
	handle(SIGINT);
	handle(SIGCHLD);

	while (!got_term) {
		got_child = 0;
		reap(&nchildren);
		pfd.fd = lfd;
		pfd.events = POLLIN;
		if (ppoll(&pfd, 1, NULL, &old) == -1) {
			if (errno != EINTR)
				err(1, "ppoll");
			continue;
		}
		plen = sizeof(peer);
		fd = accept4(lfd, (struct sockaddr *)&peer, &plen,
		    SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno != EAGAIN && errno != EINTR &&
			    errno != ECONNABORTED)
				warn("accept");
			continue;
		}
		if (inet_ntop(AF_INET, &peer.sin_addr, name,
		    sizeof(name)) == NULL)
			strcpy(name, "?");
		log_line("accept %s", name);
		if (nchildren >= CHILDREN_MAX) {
			close(fd);
			continue;
		}
		if ((pid = fork()) == -1) {
			warn("fork");
			close(fd);
			continue;
		}
		if (pid == 0) {
			signal(SIGTERM, SIG_DFL);
			signal(SIGINT, SIG_DFL);
			signal(SIGCHLD, SIG_DFL);
			sigprocmask(SIG_SETMASK, &old, NULL);
			close(lfd);
			serve(ctx, fd);
		}
		nchildren++;
		close(fd);
	}

	signal(SIGTERM, SIG_IGN);
	kill(0, SIGTERM);
	while (waitpid(-1, NULL, 0) != -1 || errno == EINTR)
		;
	SSL_CTX_free(ctx);
	return 0;
}
