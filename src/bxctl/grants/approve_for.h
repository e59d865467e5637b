/*
 * approve_for.h: `bxctl approve ID --for DURATION`, the owner's approval
 * of one call and, with it, an ordinary grant that lets the same call
 * through without asking until it expires:
 *
 *	read_file	that exact path
 *	http_fetch	that exact host
 *	shell		refused: a shell grant would let every command run
 *			in that directory
 *	write_file	refused: a write_file grant covers the files below a
 *			directory, never one file, so it would let every
 *			file there be written
 *
 * Such an exact grant outranks the ask grant that asked (brokerd's
 * policy.c: deny, then an exact auto grant, then ask, then auto).
 *
 * mode auto; max_taint, result_class and untrusted those of the grant that
 * asked; expiry now plus the duration, but never past the expiry of the
 * grant that asked. The file is <grants>/approved-<tool>-<approval>.toml
 * (the tool with - for _, the approval id, which is the seq of the call's
 * Decision record and so unique in the audit log).
 *
 * The grant is written first (grantwrite.h) and the call approved after,
 * so that whatever fails before the approval leaves the call pending and
 * nothing written. If the approval then fails, or brokerd's re-decision
 * denies the call, the grant is removed again: the grant stands only for
 * a call that ran.
 *
 * Nothing here prints. brokerd is reached through a port, so that a test
 * can answer in-process with the real broker.
 */
#ifndef BXCTL_APPROVE_FOR_H
#define BXCTL_APPROVE_FOR_H

#include <stdbool.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/message.h"
#include "proto/types.h"

/* The longest --for: 30 days. */
#define APPROVE_FOR_MAX_MS	(30LL * 24 * 3600 * 1000)

/* One admin request and its answer of kind want, as admin_call() does. */
struct approve_port {
	int	(*ap_call)(void *ctx, const struct bx_msg *req,
		    enum bx_msg_kind want, struct bx_msg **ret,
		    struct bx_error *err);
	void	*ap_ctx;
};

struct approve_for {
	uint64_t	 af_id;		/* the approval */
	int64_t		 af_now;	/* ms since the epoch */
	int64_t		 af_for_ms;	/* 1 ms to APPROVE_FOR_MAX_MS */
	const char	*af_grants;	/* the grants directory */
};

struct approve_for_result {
	char			 afr_grant[BX_ID_MAX + 1];	/* written */
	int64_t			 afr_expires;
	bool			 afr_capped;	/* by the asking grant's expiry */
	struct bx_outcome	 afr_outcome;	/* brokerd's re-decision */
	bool			 afr_kept;	/* false: removed again */
};

/*
 * Writes the grant and approves. Returns 0 once the approval was sent and
 * answered (*ret says with what, and whether the grant stays), or -1 with
 * err when nothing was approved; err then says whether the call still
 * waits and whether a grant was left behind.
 */
int	approve_for(const struct approve_port *, const struct approve_for *,
	    struct approve_for_result *ret, struct bx_error *err);

/* The id of the grant for approval id of tool, into buf (BX_ID_MAX + 1). */
void	approve_for_grant_id(enum bx_tool tool, uint64_t id, char *buf);

#endif
