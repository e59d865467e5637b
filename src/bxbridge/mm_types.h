/*
 * mm_types.h: what the bridge's Mattermost client (mm.h) hands back: a
 * user, a post, a reaction, a thread, as far as the bridge reads them,
 * with the bounds they are read to, and the id check every id passes.
 *
 * Ownership: a struct is the caller's; mm_post_clear(),
 * mm_reactions_clear() and mm_thread_clear() free what it holds and zero
 * it (NULL and a zeroed struct are fine).
 */
#ifndef BXBRIDGE_MM_TYPES_H
#define BXBRIDGE_MM_TYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

void	mm_post_clear(struct mm_post *);
void	mm_reactions_clear(struct mm_reactions *);
void	mm_thread_clear(struct mm_thread *);

#endif
