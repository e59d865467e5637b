/*
 * bridge.h: one bridge.sock request. bxbridge, jailed under a uid of its
 * own, brings the pending approvals to the owner's Mattermost and brings
 * back the owner's answers; this is all it may ask:
 *
 *	approvals {}			approval_list { items }
 *	approvals_wait { known, timeout_ms }
 *					approval_changes { items, ended }
 *	approve { approval, by, post }	approve_result { outcome }
 *	refuse { approval, reason, by, post }
 *					ok {}
 *
 * approvals, approve and refuse are admin.sock's kinds and take admin.c's
 * path (the same re-decision, the same first-answer-wins table); approve
 * and refuse must carry by (the Mattermost user who answered) and post (the
 * request's post), or they are error bad_request. There is no lasting
 * grant from here (no approve --for: that writes a grant file, which the
 * bridge cannot). Every other kind is error forbidden.
 *
 * approvals_wait answers once the pending approvals are not exactly known
 * (approvals.h, approvals_changes), or after timeout_ms, and at once when
 * brokerd stops: what is pending now, and how each of known that is not
 * ended (approved, refused, expired, abandoned, or forgotten), by whom and
 * with what outcome.
 *
 * Ownership: bridge_handle allocates the answer *ret; the caller frees it
 * with bx_msg_free. It may run on several threads at once.
 */
#ifndef BROKERD_BRIDGE_H
#define BROKERD_BRIDGE_H

#include <stdbool.h>

#include "brokerd/broker.h"
#include "proto/error.h"
#include "proto/message.h"

/* Whether bridge.sock takes kind. */
bool	bridge_kind(enum bx_msg_kind);

/* Answers req. Returns -1 only if memory runs out. */
int	bridge_handle(struct broker *, const struct bx_msg *req,
	    struct bx_msg **ret, struct bx_error *);

/* bridge_handle on a bridge.sock connection: the answer is written to fd. */
int	bridge_handle_fd(struct broker *, int fd, const struct bx_msg *req,
	    int timeout_ms, struct bx_error *);

#endif
