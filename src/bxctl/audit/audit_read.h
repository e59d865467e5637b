/*
 * audit_read.h: reading <home>/audit through the ChainVerifier, for the
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
 * Whether a brokerd writes the audit directory dir: it holds dir/.lock
 * (flock, exclusive) from before its first write until it exits. 1: the
 * lock is held (brokerd runs, or is starting); 0: it is not, or there is
 * no lock file (no brokerd ever ran there), so nothing is being written;
 * -1: the lock could not be looked at (err says why). The look takes a
 * shared lock for an instant and never creates the file; a brokerd that
 * starts in that instant waits for it, as it waits for any holder.
 */
int	audit_writer(const char *dir, struct bx_error *);

/*
 * Verifies every file of <home>/audit in name order; fn (NULL: none) sees
 * every record the chain accepts, with ctx.
 */
int	audit_read(const char *home, bx_chain_record_fn fn, void *ctx,
	    struct bx_chain_report **ret, struct bx_error *);

#endif
