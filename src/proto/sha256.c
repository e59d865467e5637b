/*
 * sha256.c: one-shot SHA-256 with a process-wide EVP_MD fetched once, and
 * a per-thread EVP_MD_CTX so hashing allocates nothing after the first call.
 * The context is a pthread key's value, so it is freed when its thread
 * exits: brokerd starts a thread per connection, and a context left behind
 * by each would grow the daemon without bound.
 */
#include <pthread.h>
#include <stdbool.h>

#include <openssl/evp.h>

#include "proto/sha256.h"

static EVP_MD *sha256_md;
static pthread_once_t sha256_once = PTHREAD_ONCE_INIT;
static pthread_key_t sha256_key;
static bool sha256_key_ok;

static void
free_ctx(void *ctx)
{
	EVP_MD_CTX_free(ctx);
}

static void
fetch_md(void)
{
	sha256_md = EVP_MD_fetch(NULL, "SHA256", NULL);
	sha256_key_ok = pthread_key_create(&sha256_key, free_ctx) == 0;
}

/* This thread's context, made on first use; NULL if memory ran out. */
static EVP_MD_CTX *
thread_ctx(void)
{
	EVP_MD_CTX *ctx;

	if ((ctx = pthread_getspecific(sha256_key)) != NULL)
		return ctx;
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		return NULL;
	if (pthread_setspecific(sha256_key, ctx) != 0) {
		EVP_MD_CTX_free(ctx);
		return NULL;
	}
	return ctx;
}

int
bx_sha256(const void *buf, size_t len, struct bx_hash *ret,
    struct bx_error *err)
{
	EVP_MD_CTX *ctx;
	struct bx_hash h;
	unsigned int n = 0;

	pthread_once(&sha256_once, fetch_md);
	if (sha256_md == NULL)
		return bx_fail(err, "sha256: OpenSSL has no SHA256 digest");
	if (!sha256_key_ok)
		return bx_fail(err, "sha256: cannot make a thread key");
	if ((ctx = thread_ctx()) == NULL)
		return bx_fail(err, "sha256: out of memory");
	if (EVP_DigestInit_ex(ctx, sha256_md, NULL) != 1 ||
	    EVP_DigestUpdate(ctx, buf, len) != 1 ||
	    EVP_DigestFinal_ex(ctx, h.bytes, &n) != 1 ||
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
