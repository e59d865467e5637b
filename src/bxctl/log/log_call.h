/*
 * log_call.h: `bxctl log --call ID`, every record of the calls with that
 * id (in session if not NULL), each in full, as text or JSON lines.
 *
 * Ownership: the struct's strings and out stay the caller's.
 */
#ifndef BXCTL_LOG_CALL_H
#define BXCTL_LOG_CALL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "proto/chain.h"

struct log_call {
	const char	*call;
	const char	*session;
	bool		 json;
	FILE		*out;
	size_t		 found;		/* records printed */
};

/* A chain record hook (chain.h); ctx is a struct log_call. */
void	log_call_record(void *ctx, const struct bx_chain_record *);

#endif
