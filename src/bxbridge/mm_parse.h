/*
 * mm_parse.h: Mattermost's JSON objects (User, Post, Reaction, PostList)
 * checked, and read into mm_types.h's structs where the bridge wants
 * structs. Used by mm.c only; split out so that the calls and the
 * reading each stay small.
 *
 * Every id must be a Mattermost id and every field the bridge or its
 * answer reading uses must have its type; fields it does not use are
 * ignored. Each fails with -1 and an error naming the field
 * ("posts[\"...\"]: user_id: not a Mattermost id"); the caller says whose
 * answer it was. Out-parameters are written only on success.
 */
#ifndef BXBRIDGE_MM_PARSE_H
#define BXBRIDGE_MM_PARSE_H

#include <stdbool.h>

#include <jansson.h>

#include "proto/error.h"
#include "mm_types.h"

/* obj[key] as an id into out; "" allowed only if may_be_empty. */
int	mm_parse_id(const json_t *obj, const char *key, bool may_be_empty,
	    char out[MM_ID_LEN + 1], struct bx_error *);
int	mm_parse_user(const json_t *, struct mm_user *, struct bx_error *);
/* A post into *ret, whose message the caller frees (mm_post_clear). */
int	mm_parse_post(const json_t *, struct mm_post *, struct bx_error *);
/*
 * An array of Reactions to post_id (NULL or null: none): each an object
 * with user_id and post_id ids, post_id that post, and an emoji_name.
 */
int	mm_check_reactions(const json_t *array, const char *post_id,
	    struct bx_error *);
/*
 * A PostList cut to its first MM_MAX_THREAD posts: *ret (a new
 * reference) is {"order": [...], "posts": {...}} with those posts only,
 * each checked as a post; *ret_truncated says whether the thread had
 * more (a longer order, or has_next).
 */
int	mm_cut_thread(const json_t *list, json_t **ret, bool *ret_truncated,
	    struct bx_error *);

#endif
