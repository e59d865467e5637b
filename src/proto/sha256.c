/*
 * sha256.c: one-shot SHA-256 with a process-wide EVP_MD fetched once, and
 * a thread-local EVP_MD_CTX so hashing allocates nothing after the first call.
 */
#include <pthread.h>

#include <openssl/evp.h>

#include "proto/sha256.h"

static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static _Thread_local EVP_MD_CTX *thread_ctx;

static void
fetch_md(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
}

int
bx_sha256(const void *buf, size_t len, struct bx_hash *ret,
    struct bx_error *err)
{
	struct bx_hash h;
	unsigned int n = 0;

	pthread_once(&sha256_once, fetch_md);
	if (sha256_md == NULL)
		return bx_fail(err, "sha256: OpenSSL has no SHA256 digest");
	if (thread_ctx == NULL && (thread_ctx = EVP_MD_CTX_new()) == NULL)
		return bx_fail(err, "sha256: out of memory");
	if (EVP_DigestInit_ex(thread_ctx, sha256_md, NULL) != 1 ||
	    EVP_DigestUpdate(thread_ctx, buf, len) != 1 ||
	    EVP_DigestFinal_ex(thread_ctx, h.bytes, &n) != 1 ||
	    n != BX_HASH_LEN)
		return bx_fail(err, "sha256: OpenSSL failed to hash");
	*ret = h;
	return 0;
}

void
bx_hex(const unsigned char *bytes, size_t len, char *out)
{
	static const char hex[] = "0123456789abcdef";
	size_t i;

	for (i = 0; i < len; i++) {
		out[2 * i] = hex[bytes[i] >> 4];
		out[2 * i + 1] = hex[bytes[i] & 15];
	}
	out[2 * len] = '\0';
}
