/*
 * admin.h: one admin.sock request (design section 6):
 *
 *	approvals {}			approval_list { items }
 *	approve { approval }		approve_result { outcome }, the re-decision
 *	refuse { approval, reason }	ok {}
 *	check_grants {}			grants_report { problems }, empty when valid
 *	sessions, explain, status, list_grants	the console (admin_console.h)
 *
 * An unknown or already answered approval is error no_such_approval. Which
 * kinds a socket accepts is serve's business; admin_handle answers any other
 * kind with error bad_request.
 *
 * Ownership: admin_handle allocates the answer *ret; the caller frees it
 * with bx_msg_free. It may run on several threads at once.
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

#endif
