/*
 * report.c: the lines bxegress tells brokerd (their format is in
 * bxegress.h). Each line is one write() to the report file, looped only
 * on a partial write, so that lines of an O_APPEND file never interleave;
 * it happens before the client hears the answer, so that brokerd knows
 * the cause of whatever the client then fails with. A line that cannot
 * be written ends bxegress: relaying what brokerd cannot learn of is not
 * an option.
 */
#include <arpa/inet.h>

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxegress/bxegress.h"

/* Appends name (len bytes, any bytes) with the escapes bxegress.h gives. */
static size_t
escape(const char *name, size_t len, char *out, size_t size)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;
	unsigned char b;

	for (i = 0; i < len && o + 5 < size; i++) {
		b = (unsigned char)name[i];
		if (b >= 0x21 && b <= 0x7e && b != '\\') {
			out[o++] = (char)b;
			continue;
		}
		out[o++] = '\\';
		out[o++] = 'x';
		out[o++] = hex[b >> 4];
		out[o++] = hex[b & 0xf];
	}
	out[o] = '\0';
	return o;
}

void
report_target(const struct socks_parser *p, char *out, size_t size)
{
	char text[INET6_ADDRSTRLEN];
	size_t n;

	if (!p->sp_known) {
		(void)snprintf(out, size, "-:0");
		return;
	}
	switch (p->sp_atyp) {
	case SOCKS_ATYP_IPV4:
		(void)inet_ntop(AF_INET, p->sp_addr, text, sizeof(text));
		(void)snprintf(out, size, "%s:%u", text, p->sp_port);
		break;
	case SOCKS_ATYP_IPV6:
		(void)inet_ntop(AF_INET6, p->sp_addr, text, sizeof(text));
		(void)snprintf(out, size, "[%s]:%u", text, p->sp_port);
		break;
	default:
		n = escape(p->sp_name, p->sp_namelen, out, size);
		(void)snprintf(out + n, size - n, ":%u", p->sp_port);
		break;
	}
}

void
report_address(const struct sockaddr *sa, char *out, size_t size)
{
	const struct sockaddr_in6 *s6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *s4 = (const struct sockaddr_in *)sa;
	char text[INET6_ADDRSTRLEN];

	if (sa->sa_family == AF_INET6) {
		(void)inet_ntop(AF_INET6, &s6->sin6_addr, text, sizeof(text));
		(void)snprintf(out, size, "[%s]:%u", text,
		    ntohs(s6->sin6_port));
	} else {
		(void)inet_ntop(AF_INET, &s4->sin_addr, text, sizeof(text));
		(void)snprintf(out, size, "%s:%u", text, ntohs(s4->sin_port));
	}
}

void
report(const struct egress *e, const char *fmt, ...)
{
	char line[EGRESS_REPORT_MAX];
	size_t len, done = 0;
	va_list ap;
	ssize_t n;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	/* The sizes in bxegress.h make every line fit; never cut one. */
	if (r < 0 || (size_t)r >= sizeof(line) - 1)
		fatal("a report line does not fit %d bytes", EGRESS_REPORT_MAX);
	len = (size_t)r;
	line[len++] = '\n';
	while (done < len) {
		n = write(e->e_cfg.ec_report_fd, line + done, len - done);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			fatal("cannot write a report: %s",
			    n == 0 ? "nothing written" : strerror(errno));
		done += (size_t)n;
	}
}
