/*
 * jail_plan.h: what loopd's jail holds, for a loopd.toml (roles.md section
 * 3, "Files"), and the ACL entries that let the jail's uid in and the
 * owner read what it writes (section 5). The launcher (launcher.c) and the
 * jail suite build the same plan, so the suite's attacker sits in the jail
 * loopd's turn loop runs in. The plan itself, and what makes each bind
 * safe, is jailrun/plan.h's; this file says which binds.
 *
 *	path (the same inside)		inside		ACL entry for the jail
 *	the configuration file		read-only	r
 *	<home>/memory			read-only	r-x, inherited
 *	<home>/memory/core.md		(in memory/)	r
 *	<home>/sessions			read-write	rwx, inherited; the
 *							owner's rwx inherited
 *	  each log in it not the jail's	(in sessions/)	rw
 *	[sockets] loop's directory	read-write	rwx
 *	[broker] socket's directory	read-only	--x (brokerd gives
 *							broker.sock rw)
 *	<home>/run/loop-model		read-only	--x; model.sock rw
 *
 * Nothing else of the home: no grants, audit, broker state, admin.sock or
 * the rest of the configuration directory. The relay's socket,
 * JAIL_PLAN_RELAY under the home, is where the launcher's relay listens.
 *
 * Ownership: as jailrun/plan.h's.
 */
#ifndef LOOPD_JAIL_PLAN_H
#define LOOPD_JAIL_PLAN_H

#include "jailrun/plan.h"
#include "loopd/config.h"

#define JAIL_PLAN_RELAY_DIR	"run/loop-model"
#define JAIL_PLAN_RELAY_NAME	"model.sock"
#define JAIL_PLAN_RELAY		JAIL_PLAN_RELAY_DIR "/" JAIL_PLAN_RELAY_NAME

/*
 * The plan for cfg, read from config_path (absolute), for the caller's
 * uid and gid. Makes the directories the binds need, each 0700 and the
 * caller's, if they are missing. Fails as jail_plan_start() does.
 */
int	jail_plan_make(const struct loop_config *cfg, const char *config_path,
	    struct jail_plan *ret, struct bx_error *err);

/* Gives the jail's uid the ACL entries of the table above. */
int	jail_plan_grant(const struct jail_plan *, struct bx_error *err);

#endif
