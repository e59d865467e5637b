/*
 * audit-read.h: reading <home>/audit through the ChainVerifier, for the
 * bxctl commands that read the log themselves (audit verify, audit head,
 * status), without a daemon; bxctl log walks it itself to follow it.
 *
 * Ownership: audit_read() allocates the report (*ret), which the caller
 * frees with bx_chain_report_free(). Nothing is printed: a failure to read
 * at all is one line in err; a chain that does not verify is a report
 * with failed set.
 */
#ifndef BXCTL_AUDIT_READ_H
#define BXCTL_AUDIT_READ_H

#include <limits.h>

#include "proto/chain.h"
#include "proto/error.h"

/*
 * The home the command reads: home if not NULL, else the default home of
 * the user (proto/defaults.h), into buf (PATH_MAX bytes).
 */
int	audit_home(const char *home, char *buf, struct bx_error *);

/* <home>/audit into buf (PATH_MAX bytes). */
int	audit_dir(const char *home, char *buf, struct bx_error *);

/*
 * Verifies every file of <home>/audit in name order; fn (NULL: none) sees
 * every record the chain accepts, with ctx.
 */
int	audit_read(const char *home, bx_chain_record_fn fn, void *ctx,
	    struct bx_chain_report **ret, struct bx_error *);

#endif
