/*
 * message_bridge.h: constructors of the kinds only bxbridge's socket
 * carries (issue 42): approvals_wait and its answer approval_changes.
 * bridge.sock's approve and refuse are admin.sock's, with by and post
 * (bx_msg_approve_from and bx_msg_refuse_from, message.h); its listing is
 * admin.sock's approvals and approval_list.
 *
 * Ownership as in message.h: each copies what it is given into the
 * message, which the caller frees with bx_msg_free. Each returns a new
 * message, or NULL if memory ran out; the add functions return 0, or -1
 * when it ran out.
 */
#ifndef BX_MESSAGE_BRIDGE_H
#define BX_MESSAGE_BRIDGE_H

#include <stddef.h>
#include <stdint.h>

#include "proto/message_types.h"

/* Waits for the pending approvals to be other than the n ids of known. */
struct bx_msg	*bx_msg_approvals_wait(const uint64_t *known, size_t n,
		    int64_t timeout_ms);

/*
 * An approval_changes starts empty; bx_msg_add_pending (message.h)
 * appends to its items, this to its ended.
 */
int	bx_msg_add_ended(struct bx_msg *approval_changes,
	    const struct bx_ended_approval *);

#endif
