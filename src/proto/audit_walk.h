/*
 * audit_walk.h: reading an audit directory through a ChainVerifier, as it
 * is now or as it grows: bxctl audit verify, head and log, and brokerd's
 * answer to sessions. Files are read in name order, each mapped whole (a
 * day's file may be large and is only scanned). A file stays mapped until
 * a line of a later one has been fed, so a record hook on the chain
 * (chain.h) always sees valid bytes.
 *
 * Ownership: bx_audit_walk_open allocates the walker and opens the
 * directory (O_CLOEXEC); bx_audit_walk_close unmaps what it holds, closes
 * and frees it (NULL is fine). With a record hook, close it only after
 * bx_chain_finish, which may still hand the hook the last line.
 */
#ifndef BX_AUDIT_WALK_H
#define BX_AUDIT_WALK_H

#include <stdbool.h>

#include "proto/chain.h"
#include "proto/error.h"

struct bx_audit_walk;

/* Opens dir, the audit directory; nothing is read yet. */
int	bx_audit_walk_open(const char *dir, struct bx_audit_walk **ret,
	    struct bx_error *);

/*
 * Feeds c every line not fed yet. With live false this is the end: every
 * byte is fed, a last line without its newline too (a torn tail). With
 * live true the log may still grow: a newest file's last line without its
 * newline waits for a later call, and the chain is settled after the last
 * line fed (bx_chain_settle, not final: a line that would fail waits for
 * the next one, or for the caller's final settle). A file that shrank since it was read, or that went away, is an
 * error: the log is only ever appended to.
 */
int	bx_audit_walk_step(struct bx_audit_walk *, struct bx_chain *c,
	    bool live, struct bx_error *);

void	bx_audit_walk_close(struct bx_audit_walk *);

#endif
