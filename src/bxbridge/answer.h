/*
 * answer.h: the owner's answer to one request post, read from what the
 * Mattermost server says of the post (spec section 3.2): its reactions
 * (GET /api/v4/posts/{id}/reactions: an array of Reaction) and its thread
 * (GET /api/v4/posts/{id}/thread: a PostList, {"order": [ids],
 * "posts": {id: Post}}), both already parsed by jansson.
 *
 * What counts, and nothing else does:
 *	a reaction	emoji_name "white_check_mark" or "+1" approves, "x"
 *			or "-1" refuses, when its user_id is the owner's,
 *			its post_id the request post's, delete_at 0 or
 *			absent, and create_at a number
 *	a reply		whose message, trimmed of spaces, tabs and line
 *			breaks and in any case, is all "approve", or
 *			"refuse" alone or followed by whitespace and a
 *			reason; when its user_id is the owner's, root_id the
 *			request post's, channel_id the DM's, type present
 *			and "", props absent or an object with neither
 *			from_webhook nor from_bot, delete_at 0 or absent,
 *			and create_at a number
 * The bot's own reactions and posts never count, even if the owner and the
 * bot were the same account. An item that is not an object, or whose
 * fields have the wrong types, is no answer; a response whose outer shape
 * is wrong (not an array; no "order" array or "posts" object) is an
 * error, so the bridge can say the server answered strangely.
 *
 * When several answers exist, the earliest create_at wins; at the same
 * millisecond a refusal wins over an approval, then a reply over a
 * reaction (it may carry a reason), then the lower post id (see
 * docs/decisions.md, "bxbridge: the earliest answer counts").
 *
 * A thread is read to its first ANSWER_THREAD_MAX posts of "order". A
 * reason longer than ANSWER_REASON_MAX bytes is cut there, at a character
 * boundary. Nothing here allocates: the answer is the caller's struct.
 */
#ifndef BXBRIDGE_ANSWER_H
#define BXBRIDGE_ANSWER_H

#include <stdint.h>

#include <jansson.h>

#include "bxbridge/ids.h"
#include "proto/error.h"

/* The most posts of a thread that are looked at (spec's bound). */
#define ANSWER_THREAD_MAX	BRIDGE_THREAD_MAX
/* The most bytes of a refusal's reason kept. */
#define ANSWER_REASON_MAX	1000

/* Whose answer is wanted, and where: ids of BRIDGE_ID_LEN characters. */
struct answer_context {
	const char	*ac_owner;	/* the owner's user id */
	const char	*ac_bot;	/* the bridge's own (bot) user id */
	const char	*ac_post;	/* the request post */
	const char	*ac_channel;	/* the DM between bot and owner */
};

enum answer_verdict {
	ANSWER_NONE,		/* nothing that counts */
	ANSWER_APPROVE,
	ANSWER_REFUSE,
};

enum answer_source {
	ANSWER_REACTION,
	ANSWER_REPLY,
};

struct answer {
	enum answer_verdict	 a_verdict;
	enum answer_source	 a_source;	/* unless ANSWER_NONE */
	int64_t			 a_at;		/* create_at, ms */
	/* The reply's post id ("" for a reaction). */
	char			 a_post[BRIDGE_ID_LEN + 1];
	/* A refusing reply's reason, trimmed, or "". */
	char			 a_reason[ANSWER_REASON_MAX + 1];
};

/* Starts *a as no answer. */
void	answer_init(struct answer *a);

/*
 * Folds the reactions (a JSON array; JSON null is none) into *a: an
 * answer there that comes before *a's (by the order above) replaces it.
 * Fails, leaving *a as it was, when reactions is not an array.
 */
int	answer_reactions(const struct answer_context *, const json_t *reactions,
	    struct answer *a, struct bx_error *);

/* The same for a thread (a PostList object). */
int	answer_thread(const struct answer_context *, const json_t *thread,
	    struct answer *a, struct bx_error *);

/*
 * Whether a reply's whole message is an answer, and which; a refusal's
 * reason (trimmed, cut to ANSWER_REASON_MAX bytes) goes into reason
 * (ANSWER_REASON_MAX + 1 bytes). ANSWER_NONE for anything else.
 */
enum answer_verdict	answer_text(const char *message, char *reason);

#endif
