/*
 * jailid.h: which uid and gid loopd's jail runs as (roles.md section 3,
 * "Identity"). brokerd, loopd and bxctl each work it out the same way from
 * the user they run as, so that broker.sock's peer check, the jail and the
 * home's ACL entries agree without a file that could disagree:
 *
 *	who		the jail's uid and gid
 *	root		the system user BX_JAIL_USER's uid and primary gid
 *	anyone else	the last id of the user's first range in /etc/subuid
 *			and the last of the first in /etc/subgid
 *
 * The last id of the range, because rootless podman hands a container's
 * ids out from the bottom of the same range: a container's uid 0 is the
 * owner, its uid 1 the range's first, and images rarely use ids near 65535.
 * A range is matched by the user's name or by its uid written in decimal,
 * as newuidmap(1) matches it. The id is never 0 and never the user's own.
 *
 * Nothing here allocates; the answer goes into the caller's struct.
 */
#ifndef BX_PROTO_JAILID_H
#define BX_PROTO_JAILID_H

#include <sys/types.h>

#include "proto/error.h"

#define BX_JAIL_USER		"boxmaker-loop"
/* The Mattermost bridge's jail, root's (bxbridge, issue 42). */
#define BX_JAIL_BRIDGE_USER	"boxmaker-bridge"
#define BX_SUBUID_FILE		"/etc/subuid"
#define BX_SUBGID_FILE		"/etc/subgid"
/* /etc/subuid is a few lines; a larger file is refused, not truncated. */
#define BX_SUBID_FILE_MAX	(1024 * 1024)
#define BX_RUNBOOK_JAIL		"see docs/runbook.md#jail-unavailable"

/* Whose jail. */
enum bx_jail_role {
	BX_JAIL_LOOP,		/* loopd's turn loop */
	BX_JAIL_BRIDGE,		/* bxbridge, the Mattermost bridge */
};

struct bx_jail_id {
	uid_t	ji_uid;
	gid_t	ji_gid;
};

/*
 * The jail's ids for the user uid. On failure err names what is missing
 * (the system user, the range, the file) and the command that fixes it.
 */
int	bx_jail_identity(uid_t uid, struct bx_jail_id *ret,
	    struct bx_error *err);

/*
 * The same for role's jail. The bridge's: as root the system user
 * BX_JAIL_BRIDGE_USER (never loopd's uid); for anyone else the id below
 * loopd's, the last of the first range, which must hold both.
 */
int	bx_jail_identity_of(enum bx_jail_role role, uid_t uid,
	    struct bx_jail_id *ret, struct bx_error *err);

/*
 * The same for a non-root user from named files, for tests: name and uid
 * are the user's.
 */
int	bx_jail_identity_from(const char *name, uid_t uid,
	    const char *subuid_file, const char *subgid_file,
	    struct bx_jail_id *ret, struct bx_error *err);

#endif
