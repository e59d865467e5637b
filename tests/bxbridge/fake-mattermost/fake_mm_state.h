/*
 * fake_mm_state.h: what the fake Mattermost server knows (users, direct
 * channels, posts, reactions, the failures scripted) and its answers to
 * the API calls, in the API reference's shapes. No locking and no
 * sockets here: fake_mm.c holds its lock around every call.
 *
 * Ownership: fm_state_new() allocates, fm_state_free() frees (NULL
 * allowed). An answer's body is malloc'd JSON text the caller frees.
 */
#ifndef FAKE_MM_STATE_H
#define FAKE_MM_STATE_H

#include <stdbool.h>

#include <jansson.h>

#include "fake_mm.h"

struct fm_state;

struct fm_answer {
	int	 status;
	char	*body;		/* NULL only when out of memory */
};

struct fm_state *fm_state_new(const char *bot_id, const char *owner_id);
void	fm_state_free(struct fm_state *);

/* Answers one API request that passed the token check. */
void	fm_state_answer(struct fm_state *, const char *method,
	    const char *path, const char *body, struct fm_answer *);

/* Mattermost's error body for status, as JSON text (malloc'd). */
char	*fm_error_body(int status, const char *id, const char *message);

int	fm_state_add_user(struct fm_state *, const char *id,
	    const char *username, bool is_bot);
int	fm_state_react(struct fm_state *, const char *user_id,
	    const char *post_id, const char *emoji_name);
/* Returns the new post (borrowed) or NULL if root_id is unknown. */
json_t	*fm_state_reply(struct fm_state *, const char *user_id,
	    const char *root_id, const char *message, json_t *props,
	    const char *type);
/* The next count API requests fail so (fake_mm_fail()). */
void	fm_state_fail(struct fm_state *, enum fake_mm_fail, unsigned int count,
	    long reset);
/* True, with how, if this API request is to fail; counts it. */
bool	fm_state_next_failure(struct fm_state *, enum fake_mm_fail *ret_kind,
	    long *ret_reset);
/* The id of the first direct channel made, or "". */
const char *fm_state_dm(const struct fm_state *);
/* The live posts, id -> Post (a new reference). */
json_t	*fm_state_posts(const struct fm_state *);
/* A live post (borrowed), or NULL. */
json_t	*fm_state_post(const struct fm_state *, const char *id);

#endif
