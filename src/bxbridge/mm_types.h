/*
 * mm_types.h: what the bridge's Mattermost client (mm.h) hands back as
 * structs (a user, a post it made), the bounds of what it reads, and the
 * id check every id passes. Reactions and threads come back as checked
 * JSON instead, in the shape bxbridge's answer reading takes.
 *
 * Ownership: a struct is the caller's; mm_post_clear() frees what a post
 * holds and zeroes it (NULL and a zeroed struct are fine).
 */
#ifndef BXBRIDGE_MM_TYPES_H
#define BXBRIDGE_MM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bxbridge/ids.h"

/* Mattermost's ids: ids.h's form. */
#define MM_ID_LEN		BRIDGE_ID_LEN
/* The most posts of a thread the bridge reads (and asks for). */
#define MM_MAX_THREAD		BRIDGE_THREAD_MAX
/* The most posts asked about in one mm_reactions_bulk(). */
#define MM_MAX_BULK		200
/* Names longer than this are refused as not Mattermost's. */
#define MM_NAME_MAX		64
/* A post's type, likewise ("" for an ordinary post). */
#define MM_TYPE_MAX		64

struct mm_user {
	char	id[MM_ID_LEN + 1];
	char	username[MM_NAME_MAX + 1];
	bool	is_bot;
	bool	deleted;		/* delete_at is not 0 */
};

/* A post the bridge made or patched. */
struct mm_post {
	char	 id[MM_ID_LEN + 1];
	char	 user_id[MM_ID_LEN + 1];
	char	 channel_id[MM_ID_LEN + 1];
	char	 root_id[MM_ID_LEN + 1];	/* "" when not a reply */
	char	*message;
	int64_t	 create_at;	/* ms since the epoch */
};

/* True if id is MM_ID_LEN characters of [a-z0-9]. */
bool	mm_id_valid(const char *id);

void	mm_post_clear(struct mm_post *);

#endif
