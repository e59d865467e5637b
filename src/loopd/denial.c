/*
 * denial.c: the design's table of denial texts, word for word. Indexed by
 * reason so that the self-test can prove every DenyReason has its text.
 */
#include <stddef.h>

#include "loopd/denial.h"

static const char *const texts[BX_DENY_MAX] = {
	[BX_DENY_NO_GRANT] = "Denied: no grant allows this call.",
	[BX_DENY_GRANT_EXPIRED] =
	    "Denied: the grant for this call has expired.",
	[BX_DENY_TAINT_TOO_HIGH] =
	    "Denied: this session has seen data too sensitive for this call.",
	[BX_DENY_DENIED_BY_GRANT] = "Denied: a grant forbids this call.",
	[BX_DENY_APPROVAL_REFUSED] = "Denied: the owner refused this call.",
	[BX_DENY_APPROVAL_EXPIRED] =
	    "Denied: the approval request expired without an answer.",
	[BX_DENY_INVALID_ARGUMENTS] =
	    "Denied: the arguments are not valid for this tool.",
	[BX_DENY_GRANTS_INVALID] =
	    "Denied: the grant files have an error; the owner has been told.",
	[BX_DENY_AUDIT_UNAVAILABLE] =
	    "Denied: the audit log cannot be written; the owner has been told.",
	[BX_DENY_STATE_UNREADABLE] = "Denied: this session's broker state is "
	    "damaged; the owner has been told.",
};

const char *
denial_text(enum bx_deny reason)
{
	if ((int)reason < 0 || reason >= BX_DENY_MAX)
		return NULL;
	return texts[reason];
}
