/*
 * fake_brokerd.h: a stand-in for brokerd's broker.sock in the loopd tests.
 * It listens on a Unix socket in a temporary directory and answers each
 * connection with the next scripted act, recording every tool_request.
 *
 * Ownership: fbd_start() allocates; fbd_stop() joins and frees (NULL ok).
 */
#ifndef FAKE_BROKERD_H
#define FAKE_BROKERD_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/message.h"

enum fbd_act {
	FBD_RESULT,		/* result: fa_text, class private, untrusted */
	FBD_DENY,		/* denied: fa_reason */
	FBD_PENDING_DENY,	/* pending (fa_approval, fa_expires), denied */
	FBD_PENDING_RESULT,	/* pending, then result fa_text */
	FBD_PENDING_CLOSE,	/* pending, then close */
	FBD_PENDING_SILENT,	/* pending, then wait for loopd to hang up */
	FBD_CLOSE,		/* read the request, close without answering */
	FBD_GARBAGE,		/* a line that is not a message */
	FBD_ERROR,		/* error busy */
	FBD_TWO_PENDING,	/* two pending frames */
	FBD_PENDING_APPROVED	/* pending, approved, result once *fa_hold */
};

struct fbd_step {
	enum fbd_act	 fa_act;
	const char	*fa_text;
	enum bx_deny	 fa_reason;
	uint64_t	 fa_approval;
	int64_t		 fa_expires;	/* 0: an hour from now */
	const atomic_int *fa_hold;	/* APPROVED: "runs" until non-zero */
};

struct fbd;

/* Serves steps[0..n) to successive connections on dir/broker.sock. */
struct fbd	*fbd_start(const char *dir, const struct fbd_step *steps,
		    size_t n);
void		 fbd_stop(struct fbd *);
const char	*fbd_path(const struct fbd *);
/* Requests received; the i-th one, borrowed (valid until fbd_stop). */
size_t		 fbd_count(struct fbd *);
const struct bx_tool_request *fbd_request(struct fbd *, size_t i);
/* How often loopd hung up on a FBD_PENDING_SILENT (or TWO_PENDING) wait. */
size_t		 fbd_hangups(struct fbd *);

#endif
