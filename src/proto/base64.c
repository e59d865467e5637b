/*
 * base64.c: the RFC 4648 base64 encoder (see base64.h).
 */
#include <string.h>

#include "proto/base64.h"

const char bx_base64_std[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
const char bx_base64_url[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

size_t
bx_base64_encode_with(const void *in, size_t n, const char *alphabet,
    char *out)
{
	const unsigned char *p = in;
	unsigned long group;
	size_t i, o = 0;

	/* Whole groups of three bytes become four characters. */
	for (i = 0; i + 3 <= n; i += 3) {
		group = (unsigned long)p[i] << 16 |
		    (unsigned long)p[i + 1] << 8 | p[i + 2];
		out[o++] = alphabet[group >> 18 & 0x3f];
		out[o++] = alphabet[group >> 12 & 0x3f];
		out[o++] = alphabet[group >> 6 & 0x3f];
		out[o++] = alphabet[group & 0x3f];
	}
	/* One or two bytes left: two or three characters and padding. */
	if (n - i == 1) {
		group = (unsigned long)p[i] << 16;
		out[o++] = alphabet[group >> 18 & 0x3f];
		out[o++] = alphabet[group >> 12 & 0x3f];
		out[o++] = '=';
		out[o++] = '=';
	} else if (n - i == 2) {
		group = (unsigned long)p[i] << 16 | (unsigned long)p[i + 1] << 8;
		out[o++] = alphabet[group >> 18 & 0x3f];
		out[o++] = alphabet[group >> 12 & 0x3f];
		out[o++] = alphabet[group >> 6 & 0x3f];
		out[o++] = '=';
	}
	out[o] = '\0';
	return o;
}

size_t
bx_base64_encode(const void *in, size_t n, char *out)
{
	return bx_base64_encode_with(in, n, bx_base64_std, out);
}

int
bx_base64_value(const char *alphabet, unsigned char c)
{
	const char *p;

	if (c == '\0' || (p = strchr(alphabet, c)) == NULL)
		return -1;
	return (int)(p - alphabet);
}
