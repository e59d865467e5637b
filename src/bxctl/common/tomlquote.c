/*
 * tomlquote.c: TOML basic strings (tomlquote.h). One function escapes one
 * character; the buffer and the stream writers only place what it gives.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "bxctl/common/tomlquote.h"
#include "proto/utf8.h"

/* Room for the longest escape, "\UXXXXXXXX", and its NUL. */
#define UNIT_MAX	11

/* The code point of the valid UTF-8 sequence of n bytes at p. */
static uint32_t
code_point(const unsigned char *p, size_t n)
{
	static const unsigned char lead_mask[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = p[0] & lead_mask[n];
	size_t i;

	for (i = 1; i < n; i++)
		cp = (cp << 6) | (p[i] & 0x3f);
	return cp;
}

/*
 * The character at p (avail bytes left) as it is written, into out
 * (UNIT_MAX bytes); returns how many input bytes it took.
 */
static size_t
unit(const unsigned char *p, size_t avail, char *out)
{
	size_t n = bx_utf8_len(p, avail);
	uint32_t cp;

	if (n == 0) {
		/* Not UTF-8: kept, so that the loader says so. */
		out[0] = (char)*p;
		out[1] = '\0';
		return 1;
	}
	if (n > 1) {
		cp = code_point(p, n);
		if (cp > 0xffff)
			snprintf(out, UNIT_MAX, "\\U%08" PRIX32, cp);
		else
			snprintf(out, UNIT_MAX, "\\u%04" PRIX32, cp);
	} else if (*p == '"' || *p == '\\')
		snprintf(out, UNIT_MAX, "\\%c", *p);
	else if (*p == '\n')
		snprintf(out, UNIT_MAX, "\\n");
	else if (*p == '\t')
		snprintf(out, UNIT_MAX, "\\t");
	else if (*p < 0x20 || *p == 0x7f)
		snprintf(out, UNIT_MAX, "\\u%04X", *p);
	else {
		out[0] = (char)*p;
		out[1] = '\0';
	}
	return n;
}

/* Appends text to buf as snprintf would, at *used. */
static void
place(char *buf, size_t size, size_t *used, const char *text, size_t len)
{
	size_t room;

	if (*used + 1 < size) {
		room = size - 1 - *used;
		memcpy(buf + *used, text, len < room ? len : room);
	}
	*used += len;
}

size_t
tomlquote(char *buf, size_t size, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t avail = strlen(s), used = 0, n;
	char out[UNIT_MAX];

	place(buf, size, &used, "\"", 1);
	while (avail > 0) {
		n = unit(p, avail, out);
		place(buf, size, &used, out, strlen(out));
		p += n;
		avail -= n;
	}
	place(buf, size, &used, "\"", 1);
	if (size > 0)
		buf[used < size ? used : size - 1] = '\0';
	/* The last character of a value was on the stack: gone now. */
	explicit_bzero(out, sizeof(out));
	return used;
}

void
tomlquote_file(FILE *f, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t avail = strlen(s), n;
	char out[UNIT_MAX];

	fputc('"', f);
	while (avail > 0) {
		n = unit(p, avail, out);
		fputs(out, f);
		p += n;
		avail -= n;
	}
	fputc('"', f);
}
