/*
 * admin.h: one admin.sock request (design section 6):
 *
 *	approvals {}			approval_list { items }
 *	approve { approval }		approve_result { outcome }, the re-decision
 *	refuse { approval, reason }	ok {}
 *	  (by and post must be null: admin.sock is the terminal; an answer
 *	  claiming a Mattermost user is error forbidden)
 *	check_grants {}			grants_report { problems }, empty when valid
 *	sessions, explain, status, list_grants	the console (admin_console.h)
 *
 * An unknown or already answered approval is error no_such_approval. Which
 * kinds a socket accepts is serve's business; admin_handle answers any other
 * kind with error bad_request.
 *
 * The listing, the answering and the sending are shared with bridge.sock
 * (bridge.h), so that an answer from Mattermost takes the same path as one
 * from the terminal.
 *
 * Ownership: admin_handle allocates the answer *ret; the caller frees it
 * with bx_msg_free. admin_send takes the answer it is given. Everything
 * here may run on several threads at once.
 */
#ifndef BROKERD_ADMIN_H
#define BROKERD_ADMIN_H

#include "brokerd/broker.h"
#include "proto/error.h"
#include "proto/message.h"

/* Whether kind is one of the eight admin kinds. */
bool	admin_kind(enum bx_msg_kind);

/*
 * Answers req. Waits, for approve and refuse, until the call's broker thread
 * has written the Approval record. Returns -1 only if memory runs out.
 */
int	admin_handle(struct broker *, const struct bx_msg *req,
	    struct bx_msg **ret, struct bx_error *);

/* admin_handle on an admin.sock connection: the answer is written to fd. */
int	admin_handle_fd(struct broker *, int fd, const struct bx_msg *req,
	    int timeout_ms, struct bx_error *);

/* The approval_list of what is pending; NULL when memory runs out. */
struct bx_msg	*admin_approvals(struct broker *, struct bx_error *);

/* Appends n approvals items to an approval_list's or approval_changes'. */
int	admin_add_pending(struct bx_msg *, const struct approvals_item *,
	    size_t n);

/*
 * Approves or refuses approval id, from (who; NULL or by NULL: the
 * terminal): approve_result with the re-decision, ok, or error
 * no_such_approval when it is not pending (already answered anywhere).
 * NULL only when memory runs out.
 */
struct bx_msg	*admin_answer(struct broker *, uint64_t id,
		    enum approvals_answer, const struct approvals_from *from);

/*
 * Writes answer (taken; NULL: error internal saying why) to fd as one
 * frame; an answer that cannot be one is replaced by error internal.
 */
int	admin_send(int fd, struct bx_msg *answer, const char *why,
	    int timeout_ms, struct bx_error *);

#endif
