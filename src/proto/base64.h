/*
 * base64.h: RFC 4648 base64, as HTTP Basic authentication sends
 * "user:password" (RFC 7617), in either of the RFC's alphabets: section
 * 4's standard one ("+/") and section 5's URL and file name safe one
 * ("-_"), which the redactor (redact_pattern.c) also searches for. Only
 * the encoder and the value of one character: nothing in Boxmaker decodes
 * a whole base64 text.
 *
 * Nothing here allocates: the caller gives a buffer of
 * BX_BASE64_LEN(n) + 1 bytes.
 */
#ifndef BX_BASE64_H
#define BX_BASE64_H

#include <stddef.h>

/* The encoded length of n bytes, padding included, without the '\0'. */
#define BX_BASE64_LEN(n)	(((n) + 2) / 3 * 4)

/* The 64 characters of each alphabet, in value order, NUL-terminated. */
extern const char bx_base64_std[];
extern const char bx_base64_url[];

/*
 * Encodes n bytes of in into out with the standard alphabet and "="
 * padding; out must hold BX_BASE64_LEN(n) + 1 bytes, and is
 * NUL-terminated. Returns the encoded length.
 */
size_t	bx_base64_encode(const void *in, size_t n, char *out);

/* The same with alphabet (bx_base64_std or bx_base64_url). */
size_t	bx_base64_encode_with(const void *in, size_t n, const char *alphabet,
	    char *out);

/* The value (0 to 63) of the character c in alphabet, or -1. */
int	bx_base64_value(const char *alphabet, unsigned char c);

#endif
