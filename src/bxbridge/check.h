/*
 * check.h: `bxbridge check`, run in the bridge's jail: whether the
 * owner's real server takes the bridge, by the calls the bridge makes at
 * start (spec 3.4): GET users/me (the token, the bot), GET users/{owner}
 * (the owner), POST channels/direct (the DM), and one test post in the DM
 * that is deleted again. The first failure ends the check; its message
 * starts with what state.json would say ("token-refused", "not-found",
 * "unreachable", "rate-limited", or "refused" for any other refusal) and
 * names the step, what the server said, and the runbook entry
 * (bridge_state.h's BRIDGE_RUNBOOK_*).
 *
 * Nothing here prints: the caller shows the result.
 *
 * Ownership: the result is the caller's (on the stack is fine); the
 * token is only read.
 */
#ifndef BXBRIDGE_CHECK_H
#define BXBRIDGE_CHECK_H

#include "bxbridge/config.h"
#include "mm_types.h"
#include "proto/error.h"

#define BRIDGE_CHECK_MESSAGE	"bxbridge check: a test post from the " \
	"approvals bridge; it is deleted at once."

/* What the check found; written only when every step passed. */
struct bridge_check_result {
	struct mm_user	bc_bot;
	struct mm_user	bc_owner;
	char		bc_dm[MM_ID_LEN + 1];
	char		bc_post[MM_ID_LEN + 1];	/* made and deleted */
};

/*
 * Runs the check against cfg's server with token, through mm_socket (the
 * relay's socket) unless it is NULL. curl_global_init() must have been
 * called.
 */
int	bridge_check(const struct bridge_config *cfg, const char *token,
	    const char *mm_socket, struct bridge_check_result *ret,
	    struct bx_error *err);

#endif
