/*
 * bridge.h: the bridge's core (issue 42, spec section 3): brings brokerd's
 * pending approvals to the owner's Mattermost DM and the owner's answers
 * back, inside the bridge's jail, until told to stop.
 *
 * At start it asks the server for the bot (GET users/me: the token
 * works), the owner (GET users/{owner}) and their DM (POST
 * channels/direct). It then waits on brokerd's bridge.sock for the
 * pending approvals to change (approvals_wait, bounded by poll_s), posts
 * each new one in the DM (render.h), reads the pending posts' reactions
 * and threads every poll_s (answer.h), answers brokerd with by = the
 * owner's id and post = the request post's, and patches a post once its
 * approval ended, however it ended.
 *
 * Files in state_dir (made 0700 if missing):
 *	state.json	what `bxctl status` reads (bridge_state.h), 0644,
 *			rewritten on each change and at least every poll_s
 *	posts.json	approval id -> post id (bridge_posts.h), so that a
 *			restarted bridge neither posts twice nor forgets to
 *			patch
 *
 * No failure of the server or of brokerd ends it: 429 waits as the
 * server says, a refused token is retried every minute (bridge_mm.h),
 * network errors and 5xx back off (mm_backoff_s) up to 60 s, and brokerd
 * gone is reconnected to with the same backoff; each is shown in
 * state.json with its runbook entry.
 *
 * curl_global_init() must have been called by the program. Nothing is
 * printed. The token (token_len bytes) stays the caller's.
 */
#ifndef BXBRIDGE_BRIDGE_H
#define BXBRIDGE_BRIDGE_H

#include <sys/types.h>

#include "bxbridge/config.h"
#include "proto/error.h"

/*
 * Serves until stop_fd is readable (0), or fails at once (-1 with err)
 * on what it cannot run with: a state_dir it cannot make or write, an
 * unreadable posts.json, no memory. pid is the one state.json names, as
 * the host sees it: the launcher's, since the jailed bridge is pid 1 of
 * its own namespace and `bxctl status` checks the pid is alive.
 */
int	bridge_serve(const struct bridge_config *cfg, const char *token,
	    const char *mm_socket, const char *state_dir, pid_t pid,
	    int stop_fd, struct bx_error *err);

#endif
