/*
 * redact_decode.c: the decoded copy of a response, mapped back to it (see
 * redact_decode.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/redact_decode.h"
#include "proto/wipe.h"

/* The value of hex digit c, or -1. */
static int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Whether the n bytes at p are all hex digits. */
static int
all_hex(const unsigned char *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (hex_value(p[i]) == -1)
			return 0;
	return 1;
}

/* The byte a JSON short escape \c stands for, or -1. */
static int
json_short(unsigned char c)
{
	switch (c) {
	case '"':
	case '\\':
	case '/':
		return c;
	case 'b':
		return '\b';
	case 'f':
		return '\f';
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	case 't':
		return '\t';
	default:
		return -1;
	}
}

/*
 * The escape at p (left bytes of input): its byte in *ret_byte and its
 * length, or 0 when p starts none. *ret_cut is set when p starts an escape
 * the input's end cut short.
 */
static size_t
escape_at(const unsigned char *p, size_t left, unsigned char *ret_byte,
    int *ret_cut)
{
	int v;

	*ret_cut = 0;
	if (p[0] == '%') {
		if (left >= 3 && all_hex(p + 1, 2)) {
			*ret_byte = (unsigned char)(hex_value(p[1]) << 4 |
			    hex_value(p[2]));
			return 3;
		}
		*ret_cut = left < 3 && all_hex(p + 1, left - 1);
		return 0;
	}
	if (p[0] != '\\')
		return 0;
	if (left < 2) {
		*ret_cut = 1;
		return 0;
	}
	if ((v = json_short(p[1])) != -1) {
		*ret_byte = (unsigned char)v;
		return 2;
	}
	if (p[1] != 'u')
		return 0;
	if (left < 6) {
		*ret_cut = all_hex(p + 2, left - 2);
		return 0;
	}
	if (!all_hex(p + 2, 4) || p[2] != '0' || p[3] != '0' ||
	    hex_value(p[4]) > 7)
		return 0;
	*ret_byte = (unsigned char)(hex_value(p[4]) << 4 | hex_value(p[5]));
	return 6;
}

int
redact_decode(const char *in, size_t len, struct redact_decoded *ret,
    struct bx_error *err)
{
	const unsigned char *u = (const unsigned char *)in;
	struct redact_decoded dec;
	unsigned char byte;
	size_t i = 0, n;
	int cut;

	if (len >= UINT32_MAX)
		return bx_fail(err, "redaction: input of %zu bytes too long",
		    len);
	memset(&dec, 0, sizeof(dec));
	dec.rd_partial = SIZE_MAX;
	/* One spare byte: malloc(0) may return NULL. */
	dec.rd_text = malloc(len + 1);
	dec.rd_map = calloc(len + 1, sizeof(*dec.rd_map));
	if (dec.rd_text == NULL || dec.rd_map == NULL) {
		redact_decoded_free(&dec);
		return bx_fail(err, "redaction: out of memory");
	}
	while (i < len) {
		dec.rd_map[dec.rd_len] = (uint32_t)i;
		if ((n = escape_at(u + i, len - i, &byte, &cut)) > 0) {
			dec.rd_text[dec.rd_len++] = (char)byte;
			dec.rd_changed = 1;
			i += n;
			continue;
		}
		if (cut && dec.rd_partial == SIZE_MAX) {
			dec.rd_partial = dec.rd_len;
			dec.rd_changed = 1;
		}
		dec.rd_text[dec.rd_len++] = in[i++];
	}
	dec.rd_map[dec.rd_len] = (uint32_t)len;
	if (dec.rd_partial == SIZE_MAX)
		dec.rd_partial = dec.rd_len;
	*ret = dec;
	return 0;
}

/* The decoded text may hold the secret an escape hid: overwritten. */
void
redact_decoded_free(struct redact_decoded *dec)
{
	bx_wipe_free(dec->rd_text, dec->rd_len);
	free(dec->rd_map);
	dec->rd_text = NULL;
	dec->rd_map = NULL;
}
