/*
 * bridge_mm.h: the bridge's Mattermost side (spec section 3.2), for
 * bridge.c's loop: the start (bot, owner, DM), each failure turned into
 * the state shown and the time of the next try, the request posts made,
 * the ended ones patched, and the owner's answers read.
 *
 * Ownership: struct bridge_mm is the caller's; bridge_mm_open() makes its
 * client, bridge_mm_close() frees it. Nothing here talks to brokerd.
 */
#ifndef BXBRIDGE_BRIDGE_MM_H
#define BXBRIDGE_BRIDGE_MM_H

#include <stdbool.h>
#include <time.h>

#include "bxbridge/answer.h"
#include "bxbridge/bridge_posts.h"
#include "bxbridge/bridge_state.h"
#include "bxbridge/config.h"
#include "mm.h"

struct bridge_mm {
	const struct bridge_config *m_cfg;
	struct mm_client	*m_client;
	struct bridge_state	*m_state;
	bool			 m_ready;	/* bot and DM known */
	char			 m_bot[MM_ID_LEN + 1];
	char			 m_dm[MM_ID_LEN + 1];
	time_t			 m_next;	/* monotonic s: next try */
	unsigned int		 m_failures;	/* network/5xx in a row */
};

/* One answer found: the approval, its post, and what the owner said. */
typedef int (*bridge_answer_fn)(void *arg, struct bridge_post *,
	    const struct answer *);

int	bridge_mm_open(struct bridge_mm *, const struct bridge_config *,
	    const char *token, const char *mm_socket, struct bridge_state *,
	    struct bx_error *);
void	bridge_mm_close(struct bridge_mm *);
/* Whether the server may be asked now (its wait, if any, is over). */
bool	bridge_mm_due(const struct bridge_mm *);

/* The start's three calls; false (state and wait set) if they failed. */
bool	bridge_mm_connect(struct bridge_mm *);
/* Patches each ended entry's post, and forgets it; false on a failure. */
bool	bridge_mm_patch(struct bridge_mm *, struct bridge_posts *);
/* Posts pa in the DM and remembers it; false on a failure. */
bool	bridge_mm_post(struct bridge_mm *, struct bridge_posts *,
	    const struct bx_pending_approval *pa);
/*
 * Reads the reactions and threads of the pending entries (those of
 * still_pending(arg, approval)) and calls fn with each answer found;
 * false on a failure.
 */
bool	bridge_mm_answers(struct bridge_mm *, struct bridge_posts *,
	    bool (*still_pending)(void *, uint64_t), bridge_answer_fn fn,
	    void *arg);

#endif
