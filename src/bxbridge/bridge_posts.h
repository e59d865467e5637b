/*
 * bridge_posts.h: which request post the bridge made for which pending
 * approval, kept in <state_dir>/posts.json (written atomically, 0600) on
 * every change, so that a restarted bridge neither posts an approval
 * twice nor forgets to patch a post whose approval ended meanwhile:
 *
 *	{"approvals": [PendingApproval, ...], "posts": ["<post id>", ...]}
 *
 * the two arrays in step, PendingApproval as on the wire
 * (docs/protocol.md), kept whole because the patched post shows it again.
 *
 * An entry also holds, in memory only, the text its post is to be
 * patched to once its approval ended (until the patch succeeded), and the
 * reason of a refusal the bridge itself sent.
 *
 * Ownership: bridge_posts_load() allocates, bridge_posts_free() frees
 * (NULL allowed); pointers handed out stay valid until the next add or
 * remove. Strings given are copied.
 */
#ifndef BXBRIDGE_BRIDGE_POSTS_H
#define BXBRIDGE_BRIDGE_POSTS_H

#include <stddef.h>
#include <stdint.h>

#include "bxbridge/ids.h"
#include "proto/error.h"
#include "proto/message_types.h"

#define BRIDGE_POSTS_FILE	"posts.json"

struct bridge_posts;

struct bridge_post {
	const struct bx_pending_approval *bp_approval;
	char	 bp_post[BRIDGE_ID_LEN + 1];
	char	*bp_patch;	/* NULL: still pending */
	char	*bp_reason;	/* a refusal the bridge sent: its reason */
};

/* Reads state_dir/posts.json; none is an empty map. */
int	bridge_posts_load(const char *state_dir, struct bridge_posts **ret,
	    struct bx_error *);
void	bridge_posts_free(struct bridge_posts *);

size_t	bridge_posts_count(const struct bridge_posts *);
struct bridge_post *bridge_posts_at(struct bridge_posts *, size_t i);
/* The entry of approval, or NULL. */
struct bridge_post *bridge_posts_find(struct bridge_posts *, uint64_t);
/* How many entries are still pending (no patch waiting). */
size_t	bridge_posts_pending(const struct bridge_posts *);

/* Adds pa's post and saves. */
int	bridge_posts_add(struct bridge_posts *,
	    const struct bx_pending_approval *pa, const char *post,
	    struct bx_error *);
/* Removes approval's entry (if any) and saves. */
int	bridge_posts_remove(struct bridge_posts *, uint64_t approval,
	    struct bx_error *);
/* Sets an entry's text to copy (NULL: none); -1 when memory ran out. */
int	bridge_post_set(char **field, const char *text);

#endif
