/*
 * audit_follow.h: following <home>/audit as brokerd writes it, for the
 * commands that watch it (bxctl log --follow, bxctl approvals --follow):
 * one look feeds the chain what is new and says when a line that fails
 * is a break for good; a watch wakes the caller when the directory
 * changes, or after a while anyway.
 *
 * Ownership: audit_follow_watch returns an inotify descriptor (or -1,
 * then the caller only polls) that the caller closes.
 */
#ifndef BXCTL_AUDIT_FOLLOW_H
#define BXCTL_AUDIT_FOLLOW_H

#include "proto/audit_walk.h"
#include "proto/chain.h"
#include "proto/error.h"

/* With no change seen, how long to wait before looking anyway. */
#define AUDIT_FOLLOW_POLL_MS	1000

/*
 * Feeds c every line new in dir (bx_audit_walk_step, live). A line that
 * fails waits for the next one, since a Recovery record may still follow
 * it (bx_chain_settle); it fails for good once no brokerd holds the audit
 * lock (audit_writer): what is read after that look is all there is. A
 * lock that cannot be looked at leaves it waiting. Fails only if the
 * directory cannot be read (err).
 */
int	audit_follow_step(const char *dir, struct bx_audit_walk *,
	    struct bx_chain *, struct bx_error *);

/* An inotify watch on dir for what brokerd's writes do, or -1. */
int	audit_follow_watch(const char *dir);
/* Waits until the watch sees a change, or AUDIT_FOLLOW_POLL_MS. */
void	audit_follow_wait(int fd);

#endif
