/*
 * fake_mm_http.h: the fake Mattermost server's HTTP/1.1, as small as its
 * tests need: one request a connection, read whole (the Content-Length
 * body, no chunks), and one answer that closes the connection.
 *
 * Ownership: fm_read_request() allocates req->body, which the caller
 * frees, also when it fails.
 */
#ifndef FAKE_MM_HTTP_H
#define FAKE_MM_HTTP_H

#include <stdbool.h>
#include <stdio.h>

#include "fake_mm.h"

struct fm_request {
	char	 method[16];
	char	 path[1024];
	char	 auth[512];	/* the Authorization header, or "" */
	char	*body;		/* NUL-terminated, maybe "" */
};

/* Reads one request; 0, or the HTTP status to refuse it with, or -1. */
int	fm_read_request(FILE *in, struct fm_request *req);
/* An answer; extra is more header lines, each ending "\r\n". A body
 * sent unsized is ended by closing the connection. */
void	fm_respond(int fd, int status, const char *extra, const char *body,
	    bool sized);
/* A failure scripted with fake_mm_fail() (reset: a 429's
 * X-Ratelimit-Reset). */
void	fm_respond_failure(int fd, enum fake_mm_fail kind, long reset);

#endif
