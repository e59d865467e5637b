/*
 * mm.h: the bridge's Mattermost REST API v4 client: the calls of
 * m4-secrets-approvals.md section 3.2, each turning the server's JSON
 * into a small struct the bridge can act on.
 *
 *	GET    /api/v4/users/me                  mm_users_me()
 *	GET    /api/v4/users/{id}                mm_user_get()
 *	POST   /api/v4/channels/direct           mm_direct_channel()
 *	POST   /api/v4/posts                     mm_post_create()
 *	PUT    /api/v4/posts/{id}/patch          mm_post_patch()
 *	DELETE /api/v4/posts/{id}                mm_post_delete()
 *	POST   /api/v4/posts/ids/reactions       mm_reactions_bulk()
 *	GET    /api/v4/posts/{id}/reactions      mm_reactions_get()
 *	GET    /api/v4/posts/{id}/thread         mm_thread_get()
 *
 * Every id, the caller's (it goes into a path) and the server's (the
 * bridge acts on it), must be MM_ID_LEN characters of [a-z0-9]; an
 * answer with another is refused whole, naming where the id was. A
 * thread is read to at most MM_MAX_THREAD posts. Each call returns an
 * enum mm_status (mm_http.h): MM_OK, or what the failure asks the caller
 * to do, with err saying what happened.
 *
 * Ownership: a struct mm_client owns its transport; mm_client_new()
 * allocates, mm_client_free() frees (NULL allowed). Structs filled by a
 * call are the caller's, written only on MM_OK; mm_post_clear(),
 * mm_reactions_clear() and mm_thread_clear() free what they hold (a zeroed
 * struct is fine).
 */
#ifndef BXBRIDGE_MM_H
#define BXBRIDGE_MM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "mm_http.h"

/* Mattermost's ids: 26 characters of [a-z0-9]. */
#define MM_ID_LEN		26
/* The most posts of a thread the bridge reads (and asks for). */
#define MM_MAX_THREAD		200
/* The most posts asked about in one mm_reactions_bulk(). */
#define MM_MAX_BULK		200
/* Names and types longer than these are refused as not Mattermost's. */
#define MM_NAME_MAX		64
/* A post's type ("" for an ordinary post, "system_..." and others). */
#define MM_TYPE_MAX		64

struct mm_client;

struct mm_user {
	char	id[MM_ID_LEN + 1];
	char	username[MM_NAME_MAX + 1];
	bool	is_bot;
	bool	deleted;		/* delete_at is not 0 */
};

struct mm_post {
	char	 id[MM_ID_LEN + 1];
	char	 user_id[MM_ID_LEN + 1];
	char	 channel_id[MM_ID_LEN + 1];
	char	 root_id[MM_ID_LEN + 1];	/* "" when not a reply */
	char	 type[MM_TYPE_MAX + 1];		/* "" for an ordinary post */
	char	*message;
	bool	 from_webhook;	/* props has "from_webhook", whatever value */
	bool	 from_bot;	/* props has "from_bot", whatever value */
	int64_t	 create_at;	/* ms since the epoch */
};

struct mm_reaction {
	char	user_id[MM_ID_LEN + 1];
	char	post_id[MM_ID_LEN + 1];
	char	emoji_name[MM_NAME_MAX + 1];
};

struct mm_reactions {
	struct mm_reaction	*list;
	size_t			 count;
};

struct mm_thread {
	struct mm_post	*posts;		/* in the server's order */
	size_t		 count;
	bool		 truncated;	/* the thread has more than these */
};

/* True if id is MM_ID_LEN characters of [a-z0-9]. */
bool	mm_id_valid(const char *id);

/* opts as for mm_http_new(). */
int	mm_client_new(const struct mm_http_opts *, struct mm_client **ret,
	    struct bx_error *);
void	mm_client_free(struct mm_client *);
/* The transport, for its rate-limit wait and URL. */
struct mm_http *mm_client_http(struct mm_client *);

/* The token's own user (the bot). */
int	mm_users_me(struct mm_client *, struct mm_user *ret,
	    struct bx_error *);
/* The user with that id; the answer must be that user. */
int	mm_user_get(struct mm_client *, const char *id, struct mm_user *ret,
	    struct bx_error *);
/* The direct-message channel of two users (made if new): its id. */
int	mm_direct_channel(struct mm_client *, const char *user_a,
	    const char *user_b, char ret_id[MM_ID_LEN + 1], struct bx_error *);
/* A new post in channel_id (a reply in root_id's thread if not NULL). */
int	mm_post_create(struct mm_client *, const char *channel_id,
	    const char *message, const char *root_id, struct mm_post *ret,
	    struct bx_error *);
/* Replaces a post's message; ret (may be NULL) gets the patched post. */
int	mm_post_patch(struct mm_client *, const char *post_id,
	    const char *message, struct mm_post *ret, struct bx_error *);
int	mm_post_delete(struct mm_client *, const char *post_id,
	    struct bx_error *);
/* The reactions to up to MM_MAX_BULK posts, each with its post_id. */
int	mm_reactions_bulk(struct mm_client *, const char *const *post_ids,
	    size_t count, struct mm_reactions *ret, struct bx_error *);
/* The reactions to one post. */
int	mm_reactions_get(struct mm_client *, const char *post_id,
	    struct mm_reactions *ret, struct bx_error *);
/* The thread of post_id (the root post included), its first
 * MM_MAX_THREAD posts. */
int	mm_thread_get(struct mm_client *, const char *post_id,
	    struct mm_thread *ret, struct bx_error *);

void	mm_post_clear(struct mm_post *);
void	mm_reactions_clear(struct mm_reactions *);
void	mm_thread_clear(struct mm_thread *);

#endif
