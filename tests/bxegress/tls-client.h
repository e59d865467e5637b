/*
 * tls-client.h: a TLS client for test-bxegress's net cases that counts
 * every byte it puts on the socket and takes from it, so that a "closed"
 * line's UP and DOWN can be compared exactly. OpenSSL runs over memory
 * BIOs and this file moves the bytes, which also lets a case take the
 * ClientHello before anything is sent and pipeline it after the SOCKS
 * request.
 */
#ifndef BXE_TEST_TLS_CLIENT_H
#define BXE_TEST_TLS_CLIENT_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

struct tls {
	SSL_CTX		*t_ctx;
	SSL		*t_ssl;
	BIO		*t_in;		/* owned by t_ssl */
	BIO		*t_out;
	int		 t_fd;
	uint64_t	 t_sent;	/* bytes written to t_fd */
	uint64_t	 t_received;	/* bytes read from t_fd */
	int		 t_eof;		/* t_fd ended or was reset */
};

/* A client for sni, trusting cafile alone, over fd (not owned). */
void	tls_init(struct tls *t, int fd, const char *cafile, const char *sni);
/* Starts the handshake; the ClientHello waits in t_out, not sent. */
void	tls_start(struct tls *t);
/* Takes up to size bytes of what waits to be sent (counted as sent). */
size_t	tls_take(struct tls *t, unsigned char *buf, size_t size);
/* 0 when the handshake completed, -1 when it failed. */
int	tls_handshake(struct tls *t);
void	tls_write(struct tls *t, const void *buf, size_t len);
/*
 * Reads until close_notify and then EOF, or EOF, or a reset; keeps the
 * first size - 1 bytes of plaintext NUL-ended; returns all it read.
 */
size_t	tls_read_all(struct tls *t, char *buf, size_t size);
/* Reads plaintext until at least at_least bytes came; how many did. */
size_t	tls_read_some(struct tls *t, size_t at_least);
void	tls_free(struct tls *t);

#endif
