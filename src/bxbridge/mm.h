/*
 * mm.h: the bridge's Mattermost REST API v4 client: the calls of
 * docs/design.md ("Approvals in Mattermost"), each turning the server's JSON
 * into a small struct the bridge can act on, or (reactions, threads) into
 * checked JSON for the bridge's answer reading.
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
 * call (mm_types.h) are the caller's, and so is a new JSON reference in
 * *ret (json_decref it); both are written only on MM_OK.
 */
#ifndef BXBRIDGE_MM_H
#define BXBRIDGE_MM_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"
#include "mm_http.h"
#include "mm_types.h"

struct mm_client;

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
/*
 * Reactions and threads come back as the server's JSON, checked (every id,
 * and the fields bxbridge's answer reading uses have their types), for
 * that reading to take as it is.
 *
 * The reactions to up to MM_MAX_BULK posts: *ret maps each post id asked
 * about, and only those, to its array of Reactions (empty if none).
 */
int	mm_reactions_bulk(struct mm_client *, const char *const *post_ids,
	    size_t count, json_t **ret, struct bx_error *);
/* The reactions to one post: an array of Reactions. */
int	mm_reactions_get(struct mm_client *, const char *post_id,
	    json_t **ret, struct bx_error *);
/*
 * The thread of post_id (the root post included) as a PostList,
 * {"order": [...], "posts": {...}}, cut to its first MM_MAX_THREAD posts;
 * *ret_truncated says whether it had more.
 */
int	mm_thread_get(struct mm_client *, const char *post_id, json_t **ret,
	    bool *ret_truncated, struct bx_error *);

#endif
