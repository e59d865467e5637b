/*
 * tls-client.c: the counting TLS client of the net cases (tls-client.h).
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <openssl/err.h>

#include "harness.h"
#include "tls-client.h"

void
tls_init(struct tls *t, int fd, const char *cafile, const char *sni)
{
	memset(t, 0, sizeof(*t));
	t->t_fd = fd;
	assert_non_null(t->t_ctx = SSL_CTX_new(TLS_client_method()));
	assert_int_equal(SSL_CTX_load_verify_locations(t->t_ctx, cafile,
	    NULL), 1);
	SSL_CTX_set_verify(t->t_ctx, SSL_VERIFY_PEER, NULL);
	assert_non_null(t->t_ssl = SSL_new(t->t_ctx));
	assert_int_equal(SSL_set_tlsext_host_name(t->t_ssl, sni), 1);
	assert_int_equal(SSL_set1_host(t->t_ssl, sni), 1);
	assert_non_null(t->t_in = BIO_new(BIO_s_mem()));
	assert_non_null(t->t_out = BIO_new(BIO_s_mem()));
	SSL_set_bio(t->t_ssl, t->t_in, t->t_out);
	SSL_set_connect_state(t->t_ssl);
}

size_t
tls_take(struct tls *t, unsigned char *buf, size_t size)
{
	size_t want = BIO_ctrl_pending(t->t_out);
	int n;

	if (want == 0)
		return 0;
	if (want > size)
		want = size;
	n = BIO_read(t->t_out, buf, (int)want);
	assert_true(n > 0);
	t->t_sent += (uint64_t)n;
	return (size_t)n;
}

/* Sends what TLS has to send. */
static void
flush(struct tls *t)
{
	unsigned char buf[16384];
	size_t n;

	while ((n = tls_take(t, buf, sizeof(buf))) > 0)
		client_send(t->t_fd, buf, n);
}

/* Reads once from the socket into TLS; -1 at EOF or a reset. */
static int
fill(struct tls *t)
{
	struct pollfd pfd = { t->t_fd, POLLIN, 0 };
	unsigned char buf[16384];
	ssize_t n;

	if (t->t_eof)
		return -1;
	if (poll(&pfd, 1, H_WAIT_MS) != 1)
		fail_msg("nothing came through the proxy in %d ms", H_WAIT_MS);
	do
		n = recv(t->t_fd, buf, sizeof(buf), 0);
	while (n == -1 && errno == EINTR);
	if (n <= 0) {
		t->t_eof = 1;
		return -1;
	}
	t->t_received += (uint64_t)n;
	assert_int_equal(BIO_write(t->t_in, buf, (int)n), (int)n);
	return 0;
}

void
tls_start(struct tls *t)
{
	assert_int_equal(SSL_do_handshake(t->t_ssl), -1);
	assert_int_equal(SSL_get_error(t->t_ssl, -1), SSL_ERROR_WANT_READ);
	assert_true(BIO_ctrl_pending(t->t_out) > 0);
}

int
tls_handshake(struct tls *t)
{
	int r;

	for (;;) {
		r = SSL_do_handshake(t->t_ssl);
		flush(t);
		if (r == 1)
			return 0;
		if (SSL_get_error(t->t_ssl, r) != SSL_ERROR_WANT_READ ||
		    fill(t) == -1) {
			ERR_print_errors_fp(stderr);
			return -1;
		}
	}
}

void
tls_write(struct tls *t, const void *buf, size_t len)
{
	assert_int_equal(SSL_write(t->t_ssl, buf, (int)len), (int)len);
	flush(t);
}

/* What is left after close_notify: the raw socket, read to its end. */
static void
drain(struct tls *t)
{
	while (fill(t) == 0)
		continue;
}

size_t
tls_read_all(struct tls *t, char *buf, size_t size)
{
	char chunk[16384];
	size_t got = 0, kept = 0, keep;
	int n, e;

	for (;;) {
		n = SSL_read(t->t_ssl, chunk, sizeof(chunk));
		flush(t);
		if (n > 0) {
			keep = size - 1 - kept;
			if ((size_t)n < keep)
				keep = (size_t)n;
			memcpy(buf + kept, chunk, keep);
			kept += keep;
			got += (size_t)n;
			continue;
		}
		e = SSL_get_error(t->t_ssl, n);
		if (e == SSL_ERROR_WANT_READ && fill(t) == 0)
			continue;
		if (e == SSL_ERROR_ZERO_RETURN)
			drain(t);
		break;
	}
	buf[kept] = '\0';
	ERR_clear_error();
	return got;
}

size_t
tls_read_some(struct tls *t, size_t at_least)
{
	char chunk[16384];
	size_t got = 0;
	int n;

	while (got < at_least) {
		n = SSL_read(t->t_ssl, chunk, sizeof(chunk));
		flush(t);
		if (n > 0) {
			got += (size_t)n;
			continue;
		}
		if (SSL_get_error(t->t_ssl, n) != SSL_ERROR_WANT_READ ||
		    fill(t) == -1)
			fail_msg("the stream ended after %zu bytes", got);
	}
	return got;
}

void
tls_free(struct tls *t)
{
	SSL_free(t->t_ssl);
	SSL_CTX_free(t->t_ctx);
	t->t_ssl = NULL;
	t->t_ctx = NULL;
}
