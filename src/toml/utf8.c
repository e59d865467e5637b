/*
 * utf8.c: UTF-8 checking and encoding. The whole document is checked
 * before parsing, so the grammar can treat bytes >= 0x80 as parts of
 * valid characters. Overlong forms, surrogates and values above U+10FFFF
 * are invalid (RFC 3629).
 */
#include <stdint.h>
#include <string.h>

#include "toml/toml-internal.h"

/* Length of the valid sequence at s (1-4), or 0 when it is invalid. */
static size_t
sequence_length(const unsigned char *s, size_t avail)
{
	unsigned char c = s[0];
	size_t n, i;
	unsigned long cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
		cp = c & 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		cp = c & 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		cp = c & 0x07;
	} else
		return 0;
	if (avail < n)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

int
toml_utf8_validate(const char *buf, size_t len, size_t *bad_offset)
{
	const unsigned char *s = (const unsigned char *)buf;
	size_t i = 0, n;
	uint64_t word;

	while (i < len) {
		/*
		 * ASCII, nearly all of a typical document, needs no decoding:
		 * eight bytes at a time while none has its top bit set.
		 */
		if (len - i >= 8) {
			memcpy(&word, s + i, 8);
			if ((word & 0x8080808080808080ULL) == 0) {
				i += 8;
				continue;
			}
		}
		if (s[i] < 0x80) {
			i++;
			continue;
		}
		if ((n = sequence_length(s + i, len - i)) == 0) {
			*bad_offset = i;
			return -1;
		}
		i += n;
	}
	return 0;
}

int
toml_is_scalar(unsigned long cp)
{
	return cp <= 0x10ffff && (cp < 0xd800 || cp > 0xdfff);
}

size_t
toml_utf8_encode(unsigned long cp, char out[4])
{
	if (cp < 0x80) {
		out[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		out[0] = (char)(0xc0 | (cp >> 6));
		out[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		out[0] = (char)(0xe0 | (cp >> 12));
		out[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
		out[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	out[0] = (char)(0xf0 | (cp >> 18));
	out[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
	out[2] = (char)(0x80 | ((cp >> 6) & 0x3f));
	out[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}
