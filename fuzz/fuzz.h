/*
 * fuzz.h: what the harnesses of the untrusted parsers share. check()
 * aborts on a broken promise, which libFuzzer reports and replay.c fails
 * on; fuzz_utf8() is an oracle for RFC 3629 UTF-8 written apart from the
 * code under test, so that a harness never checks a decoder with itself;
 * struct fuzz_in cuts an input into the pieces a harness feeds.
 *
 * Everything is static inline: each harness is one translation unit.
 */
#ifndef FUZZ_FUZZ_H
#define FUZZ_FUZZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The failed check's line is printed, so a finding says which promise. */
#define check(ok)	fuzz_check((ok), __FILE__, __LINE__, #ok)

static inline void
fuzz_check(int ok, const char *file, int line, const char *what)
{
	if (!ok) {
		fprintf(stderr, "%s:%d: check failed: %s\n", file, line, what);
		abort();
	}
}

/*
 * The length of the shortest-form sequence of a scalar value at s, or 0:
 * no overlong form, no surrogate, nothing past U+10FFFF.
 */
static inline size_t
fuzz_utf8_seq(const unsigned char *s, size_t len)
{
	uint32_t cp, min;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc0 && s[0] < 0xe0)
		n = 2, cp = s[0] & 0x1fu, min = 0x80;
	else if (s[0] >= 0xe0 && s[0] < 0xf0)
		n = 3, cp = s[0] & 0x0fu, min = 0x800;
	else if (s[0] >= 0xf0 && s[0] < 0xf8)
		n = 4, cp = s[0] & 0x07u, min = 0x10000;
	else
		return 0;
	if (len < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3fu);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

static inline bool
fuzz_utf8(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, n;

	for (i = 0; i < len; i += n)
		if ((n = fuzz_utf8_seq(u + i, len - i)) == 0)
			return false;
	return true;
}

/* The code point of the valid sequence of n bytes at s. */
static inline uint32_t
fuzz_utf8_cp(const unsigned char *s, size_t n)
{
	static const unsigned char lead[] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	uint32_t cp = s[0] & lead[n];
	size_t i;

	for (i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3fu);
	return cp;
}

/*
 * Whether the owner's terminal must never see code point cp raw: the C0
 * and C1 controls and DEL, and what reorders or hides text (escape.h).
 */
static inline bool
fuzz_forbidden(uint32_t cp)
{
	return cp < 0x20 || (cp >= 0x7f && cp <= 0x9f) || cp == 0x061c ||
	    (cp >= 0x200b && cp <= 0x200f) || cp == 0x2028 || cp == 0x2029 ||
	    (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x2060 && cp <= 0x2064) ||
	    (cp >= 0x2066 && cp <= 0x2069) || cp == 0xfeff;
}

/* Whether s[0..len) is valid UTF-8 the terminal may see as it is. */
static inline bool
fuzz_printable(const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i, n;

	for (i = 0; i < len; i += n)
		if ((n = fuzz_utf8_seq(u + i, len - i)) == 0 ||
		    fuzz_forbidden(fuzz_utf8_cp(u + i, n)))
			return false;
	return true;
}

/* An input being taken apart, front to back. */
struct fuzz_in {
	const uint8_t	*fi_p;
	size_t		 fi_len;
};

/* The next byte, or 0 once the input is used up. */
static inline uint8_t
fuzz_byte(struct fuzz_in *in)
{
	uint8_t b;

	if (in->fi_len == 0)
		return 0;
	b = in->fi_p[0];
	in->fi_p++;
	in->fi_len--;
	return b;
}

/*
 * The next piece: a two-byte little-endian length, then that many bytes
 * (fewer if the input ends first). *ret_len is the piece's length.
 */
static inline const char *
fuzz_piece(struct fuzz_in *in, size_t *ret_len)
{
	const char *p;
	size_t n;

	n = fuzz_byte(in);
	n |= (size_t)fuzz_byte(in) << 8;
	if (n > in->fi_len)
		n = in->fi_len;
	p = (const char *)in->fi_p;
	in->fi_p += n;
	in->fi_len -= n;
	*ret_len = n;
	return p;
}

#endif
