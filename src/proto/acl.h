/*
 * acl.h: POSIX ACL entries that let loopd's jail uid into the few places of
 * the home it needs, and let the owner read what the jail writes there
 * (roles.md section 5), through libacl.
 *
 * File modes stay the first lock: the owner keeps 0700 directories and
 * 0600 files, and an entry names one uid. The mask is recomputed to cover
 * the named entries, which opens nothing to the group: the group entry
 * itself stays as the mode had it.
 *
 * Nothing here allocates for the caller.
 */
#ifndef BX_PROTO_ACL_H
#define BX_PROTO_ACL_H

#include <sys/types.h>

#include <stdbool.h>

#include "proto/error.h"

#define BX_ACL_READ	0x4
#define BX_ACL_WRITE	0x2
#define BX_ACL_EXEC	0x1

/*
 * Gives uid perms on path: the entry user:uid in its access ACL, replaced
 * if there is one. With inherit (a directory), the default ACL gets the
 * same entry and one giving the directory's owner rwx, so that a file uid
 * makes in it, with group bits in its mode, stays the owner's to read, and
 * a directory uid makes stays the owner's to empty. Doing it twice changes
 * nothing.
 */
int	bx_acl_allow(const char *path, uid_t uid, unsigned perms, bool inherit,
	    struct bx_error *err);

/*
 * Whether path's access ACL gives uid at least perms through a named
 * entry, as the mask lets it through.
 */
bool	bx_acl_allows(const char *path, uid_t uid, unsigned perms);

#endif
