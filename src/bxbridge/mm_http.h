/*
 * mm_http.h: the transport under the bridge's Mattermost client (mm.h):
 * one JSON request to the server's REST API v4 over libcurl, with the
 * bot's token as "Authorization: Bearer", and its answer parsed, bounded
 * and classified.
 *
 * Every failure says what the caller should do next (enum mm_status):
 * wait for the rate limit, stop asking until the owner fixes the token,
 * back off and retry (network, timeout, 5xx), or give up on this request
 * (the server refused it, or answered something outside the API's shape
 * or the bridge's bounds). No function here sleeps: mm_backoff_s() and
 * mm_http_rate_wait_s() only say how long.
 *
 * The URL is https, or http only to 127.0.0.1, with no user, query or
 * fragment; a path after the host is kept (a server under a sub-path).
 * With unix_socket set, the connection goes through that socket (the
 * jail's relay) while TLS and the Host stay those of the URL.
 *
 * The token is copied at mm_http_new(), sent only in the Authorization
 * header, appears in no message and is wiped at mm_http_free(). (libcurl
 * keeps its own short-lived copy of a request's headers, which it frees
 * unwiped.)
 *
 * Ownership: mm_http_new() allocates *ret, mm_http_free() frees it (NULL
 * allowed); the options' strings are copied. mm_http_call() hands the
 * caller a new reference in *ret (json_decref it). curl_global_init()
 * must have been called once by the program. A client is for one thread.
 */
#ifndef BXBRIDGE_MM_HTTP_H
#define BXBRIDGE_MM_HTTP_H

#include <stddef.h>
#include <time.h>

#include <jansson.h>

#include "proto/error.h"

/* The largest answer body the bridge reads; a longer one is refused. */
#define MM_MAX_BODY		(1024 * 1024)
/* The deepest JSON nesting accepted in an answer (a post's props). */
#define MM_MAX_DEPTH		16
#define MM_URL_MAX		2048
#define MM_TOKEN_MAX		256
#define MM_CONNECT_TIMEOUT_S	10
#define MM_TIMEOUT_S		30
/* A 429's wait when X-Ratelimit-Reset is missing or unreadable. */
#define MM_RATE_WAIT_DEFAULT_S	1
/* The longest a 429 makes the bridge wait, whatever the server says. */
#define MM_RATE_WAIT_MAX_S	60
/* The longest backoff after network errors and 5xx answers. */
#define MM_BACKOFF_MAX_S	60
/* How much of a server's error text is quoted in a message. */
#define MM_ERROR_QUOTE		200

/* What a call's result means for the caller. */
enum mm_status {
	MM_OK = 0,
	/* The server refused this request (a 4xx other than below), or its
	 * answer was too large, not JSON, or not in the API's shape: the
	 * same request will not do better. */
	MM_REFUSED = -1,
	/* 429: ask again after mm_http_rate_wait_s() seconds. */
	MM_RATE_LIMITED = -2,
	/* 401 or 403: the token is refused; the owner must act. */
	MM_TOKEN_REFUSED = -3,
	/* Network error, timeout or 5xx: retry after mm_backoff_s(). */
	MM_UNREACHABLE = -4,
};

struct mm_http;

struct mm_http_opts {
	const char	*url;		/* the server's base URL */
	const char	*token;		/* token_len bytes, no NUL needed */
	size_t		 token_len;
	const char	*ca_file;	/* NULL: the system's CAs */
	const char	*unix_socket;	/* NULL: connect to the URL's host */
	long		 connect_timeout_s;	/* 0: MM_CONNECT_TIMEOUT_S */
	long		 timeout_s;		/* 0: MM_TIMEOUT_S */
};

int	mm_http_new(const struct mm_http_opts *, struct mm_http **ret,
	    struct bx_error *);
void	mm_http_free(struct mm_http *);

/*
 * Sends method (GET, POST, PUT, DELETE) to path below the base URL
 * ("/api/v4/users/me"), with body as compact JSON when not NULL. Returns
 * MM_OK with the parsed 2xx answer in *ret, or an enum mm_status with err
 * saying what happened, quoting the server's own error message.
 */
int	mm_http_call(struct mm_http *, const char *method, const char *path,
	    const json_t *body, json_t **ret, struct bx_error *);

/* The base URL, without a trailing "/". */
const char *mm_http_url(const struct mm_http *);
/* Seconds to wait after the last MM_RATE_LIMITED (1 to MM_RATE_WAIT_MAX_S). */
int	mm_http_rate_wait_s(const struct mm_http *);

/*
 * The wait an X-Ratelimit-Reset value asks for at time now: seconds
 * until the reset, or an epoch time of it (the API reference shows
 * both); NULL or unreadable gives MM_RATE_WAIT_DEFAULT_S; always 1 to
 * MM_RATE_WAIT_MAX_S.
 */
int	mm_rate_wait_s(const char *reset, time_t now);
/*
 * The wait before the next try after failures network errors or 5xx in a
 * row: 0 for none, then 1, 2, 4, ... seconds, at most MM_BACKOFF_MAX_S.
 */
int	mm_backoff_s(unsigned int failures);

#endif
