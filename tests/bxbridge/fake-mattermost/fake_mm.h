/*
 * fake_mm.h: a fake Mattermost server for the bridge's tests, answering
 * the REST API v4 calls the bridge makes (src/bxbridge/mm.h) in the
 * API reference's shapes (User, Channel, Post, PostList, Reaction, the
 * error body {"id", "message", "detailed_error", "request_id",
 * "status_code", "is_oauth"}), over plain HTTP/1.1 on 127.0.0.1 or a
 * Unix socket. No Mattermost server can be installed here.
 *
 *	GET    /api/v4/users/me, /api/v4/users/{id}
 *	POST   /api/v4/channels/direct      (the one DM of the bot and owner)
 *	POST   /api/v4/posts                (as the token's user, the bot)
 *	PUT    /api/v4/posts/{id}/patch     DELETE /api/v4/posts/{id}
 *	POST   /api/v4/posts/ids/reactions  GET /api/v4/posts/{id}/reactions
 *	GET    /api/v4/posts/{id}/thread    (the whole thread, newest first;
 *	                                     perPage is ignored, as by a
 *	                                     server without paging)
 *
 * Every API request needs "Authorization: Bearer <token>" (else 401). A
 * test scripts the rest: another user's reaction or reply (fake_mm_react,
 * fake_mm_reply, with props and type for webhook, from_bot and system
 * posts), the next N API requests failing (fake_mm_fail: 429 with
 * X-Ratelimit-* headers, 401, 403, 500, a garbled 400, a dropped
 * connection, a body over 1 MiB), the server gone and back (fake_mm_suspend, fake_mm_resume: the
 * port refuses connections, the state is kept), and it reads back what
 * was posted and patched (fake_mm_post_message, fake_mm_request, and a
 * log file of one JSON line a request: {"method", "path", "body",
 * "authorized"}, authorized saying whether the right token came).
 *
 * The program (main.c) offers the same scripting over HTTP, without the
 * token, under /fake/ (see main.c).
 *
 * One thread serves one connection at a time, each answer closing it.
 * Ownership: fake_mm_start() allocates, fake_mm_stop() frees (NULL
 * allowed). Strings returned are copies the caller frees.
 */
#ifndef FAKE_MM_H
#define FAKE_MM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"

/* Larger request heads or bodies are answered 413. */
#define FAKE_MM_MAX_LINE	8192
#define FAKE_MM_MAX_BODY	(4 * 1024 * 1024)
/* A client that sends nothing for this long is dropped. */
#define FAKE_MM_IO_TIMEOUT_S	10
/* The size of a FAKE_MM_FAIL_HUGE answer: one byte over the bridge's
 * 1 MiB bound. */
#define FAKE_MM_HUGE_BYTES	(1024 * 1024 + 1)

/* A server's words with an escape sequence and bytes that are not UTF-8. */
#define FAKE_MM_GARBLED		"Bad \x1b[31mrequest\xff\xfe "

/* The users every fake has, unless the options name others. */
#define FAKE_MM_BOT_ID		"bot0000000000000000000000a"
#define FAKE_MM_OWNER_ID	"owner000000000000000000000"
#define FAKE_MM_TOKEN		"faketoken00000000000000000"

enum fake_mm_fail {
	FAKE_MM_FAIL_RATE,		/* 429, X-Ratelimit-Reset: reset */
	FAKE_MM_FAIL_401,
	FAKE_MM_FAIL_403,
	FAKE_MM_FAIL_500,
	FAKE_MM_FAIL_400_GARBLED,	/* 400, a body that is not JSON:
					   FAKE_MM_GARBLED, then 150 "é" */
	FAKE_MM_FAIL_HANGUP,		/* close without answering */
	FAKE_MM_FAIL_HUGE,		/* 200, FAKE_MM_HUGE_BYTES, sized */
	FAKE_MM_FAIL_HUGE_UNSIZED,	/* the same without Content-Length */
};

struct fake_mm;

struct fake_mm_opts {
	int		 port;		/* 0: any free port on 127.0.0.1 */
	const char	*unix_path;	/* not NULL: listen here instead */
	const char	*log_path;	/* NULL, or append each request here */
	const char	*token;		/* NULL: FAKE_MM_TOKEN */
	const char	*bot_id;	/* NULL: FAKE_MM_BOT_ID (any text: a
					   test may give a malformed one) */
	const char	*owner_id;	/* NULL: FAKE_MM_OWNER_ID */
};

int	fake_mm_start(const struct fake_mm_opts *, struct fake_mm **ret,
	    struct bx_error *);
void	fake_mm_stop(struct fake_mm *);
/* The server goes away (connections refused) and comes back on the same
 * port or path, its state kept. */
void	fake_mm_suspend(struct fake_mm *);
int	fake_mm_resume(struct fake_mm *, struct bx_error *);

int	fake_mm_port(const struct fake_mm *);
/* "http://127.0.0.1:<port>" (for a Unix socket, any port: unused). */
void	fake_mm_url(const struct fake_mm *, char *buf, size_t len);

/* Another user the server knows (GET /api/v4/users/{id}). */
int	fake_mm_add_user(struct fake_mm *, const char *id, const char *username,
	    bool is_bot);
/* A reaction by user_id to post_id; user_id is not checked, so that a
 * test may send a malformed one. */
int	fake_mm_react(struct fake_mm *, const char *user_id,
	    const char *post_id, const char *emoji_name);
/*
 * A reply by user_id in root_id's thread, in the root's channel. props is
 * NULL or a JSON object's text ({"from_webhook": "true"}), type NULL or a
 * post type ("system_join_channel"). The new post's id goes to ret_id
 * (27 bytes) if not NULL.
 */
int	fake_mm_reply(struct fake_mm *, const char *user_id,
	    const char *root_id, const char *message, const char *props,
	    const char *type, char *ret_id);
/* The next count API requests fail so; reset is the 429's
 * X-Ratelimit-Reset value (ignored by the other kinds). */
void	fake_mm_fail(struct fake_mm *, enum fake_mm_fail, unsigned int count,
	    long reset);

/* The DM channel's id once made ("" before), into 27 bytes. */
void	fake_mm_dm(struct fake_mm *, char *buf);
/* A post's current message (NULL if no such post or deleted). */
char	*fake_mm_post_message(struct fake_mm *, const char *post_id);
/* The live posts, id -> Post (a new reference: json_decref it). */
json_t	*fake_mm_posts(struct fake_mm *);
/* API requests received so far, and the i-th as its log line. */
size_t	fake_mm_request_count(struct fake_mm *);
char	*fake_mm_request(struct fake_mm *, size_t i);

#endif
