/*
 * base64.h: RFC 4648 section 4 base64 (the standard alphabet, with "="
 * padding), as HTTP Basic authentication sends "user:password" (RFC 7617).
 * Only the encoder: nothing in Boxmaker decodes base64.
 *
 * Nothing here allocates: the caller gives a buffer of
 * BX_BASE64_LEN(n) + 1 bytes.
 */
#ifndef BX_BASE64_H
#define BX_BASE64_H

#include <stddef.h>

/* The encoded length of n bytes, padding included, without the '\0'. */
#define BX_BASE64_LEN(n)	(((n) + 2) / 3 * 4)

/*
 * Encodes n bytes of in into out, which must hold BX_BASE64_LEN(n) + 1
 * bytes, and NUL-terminates it. Returns the encoded length.
 */
size_t	bx_base64_encode(const void *in, size_t n, char *out);

#endif
