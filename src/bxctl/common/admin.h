/*
 * admin.h: one request and its one answer on brokerd's admin socket
 * (design section 6): connect, send, read one frame within
 * ADMIN_TIMEOUT_MS, decode it strictly, close.
 *
 * Ownership: the caller keeps req; on success *ret is a new message the
 * caller frees with bx_msg_free(). Nothing is printed: every failure is
 * one line in err, e.g. "brokerd is not running at PATH" or
 * "brokerd answered error no_such_approval: ...", to be printed through
 * escape.h (cli_fail does).
 */
#ifndef BXCTL_ADMIN_H
#define BXCTL_ADMIN_H

#include "proto/error.h"
#include "proto/message.h"

/* How long brokerd may take to take one admin request and answer it. */
#define ADMIN_TIMEOUT_MS	30000

/*
 * Sends req to the admin socket at path and reads the answer, which must
 * be of kind want; an error frame, another kind or no answer fails.
 */
int	admin_call(const char *path, const struct bx_msg *req,
	    enum bx_msg_kind want, struct bx_msg **ret, struct bx_error *);

/* admin_call() of a request with no fields (approvals, status, ...). */
int	admin_ask(const char *path, enum bx_msg_kind kind,
	    enum bx_msg_kind want, struct bx_msg **ret, struct bx_error *);

#endif
