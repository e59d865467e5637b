/*
 * mm_parse.h: Mattermost's JSON objects (User, Channel, Post, Reaction,
 * PostList) read into mm.h's structs, every id checked. Used by mm.c
 * only; split out so that the calls and the reading each stay small.
 *
 * Each fails with -1 and an error naming the field ("posts[3].user_id:
 * not a Mattermost id"); the caller says whose answer it was. Out
 * structs are written only on success and then hold heap strings the
 * caller frees with mm_types.h's clear functions.
 */
#ifndef BXBRIDGE_MM_PARSE_H
#define BXBRIDGE_MM_PARSE_H

#include <jansson.h>

#include "proto/error.h"
#include "mm_types.h"

/* obj[key] as an id into out; "" allowed only if may_be_empty. */
int	mm_parse_id(const json_t *obj, const char *key, bool may_be_empty,
	    char out[MM_ID_LEN + 1], struct bx_error *);
int	mm_parse_user(const json_t *, struct mm_user *, struct bx_error *);
int	mm_parse_post(const json_t *, struct mm_post *, struct bx_error *);
/*
 * A JSON array of Reactions (null or NULL: none), appended to *list; each must
 * be to post_id.
 */
int	mm_parse_reactions(const json_t *array, const char *post_id,
	    struct mm_reactions *list, struct bx_error *);
/* A PostList, its first MM_MAX_THREAD posts in its "order". */
int	mm_parse_thread(const json_t *, struct mm_thread *, struct bx_error *);

#endif
