/*
 * sha256.h: SHA-256 through OpenSSL's EVP interface. The digest is fetched
 * once per process (fetching it per call is about three times slower), and
 * every function is safe to call from several threads.
 */
#ifndef BX_SHA256_H
#define BX_SHA256_H

#include <stddef.h>

#include "proto/types.h"

/* Hashes len bytes at buf into *ret. Fails only if OpenSSL does. */
int	bx_sha256(const void *buf, size_t len, struct bx_hash *ret,
	    struct bx_error *);

/* Writes len bytes as 2 * len lowercase hex digits and a NUL into out. */
void	bx_hex(const unsigned char *bytes, size_t len, char *out);

#endif
