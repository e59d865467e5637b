/*
 * plan.h: what a jail holds, and the ACL entries that let its uid in,
 * for any program that runs jailed (roles.md section 3, "Files"). A plan
 * is the jail's spec (jail/jail.h) with the paths it binds kept in the
 * plan itself, each with the ACL entry the jail's uid gets on it, and the
 * relay's socket (jailrun/relay.h) the jail reaches its one host through.
 * The program's own plan (loopd/jail_plan.h, bxbridge/bridge_plan.h) says
 * which paths; this file makes each of them safe to bind:
 *
 *	a home directory	made 0700 and the caller's if missing
 *	a socket's directory	made if missing, and refused unless it holds
 *				that socket alone: the jail gets it whole
 *	the relay's directory	<home>/RELAY_DIR, --x; the socket in it
 *				rw, given by the launcher (jailrun/launch.h)
 *
 * The jail's ids are its role's (proto/jailid.h). A caller who is not root
 * also needs newuidmap and newgidmap, looked for in the system's
 * directories; their paths take the plan's last two path slots.
 *
 * Ownership: the plan holds its paths itself; the caller owns it (on the
 * stack is fine) and frees nothing. The strings of a struct jail_plan_for
 * must outlive the plan (string literals, in practice).
 */
#ifndef JAILRUN_PLAN_H
#define JAILRUN_PLAN_H

#include <limits.h>
#include <stdbool.h>

#include "jail/jail.h"
#include "proto/jailid.h"

/* The binds a program's plan can add: the map tools take two slots. */
#define JAIL_PLAN_MAX_BINDS	(JAIL_MAX_BINDS - 2)

/* A bind's flags, and the ACL entry the jail's uid gets on its path. */
struct jail_grant {
	unsigned	jg_flags;	/* JAIL_BIND_* */
	unsigned	jg_perms;	/* BX_ACL_*; 0: no entry */
	bool		jg_inherit;	/* a directory's default ACL too */
};

/* Whose jail, for which home. */
struct jail_plan_for {
	enum bx_jail_role	 pf_role;
	const char		*pf_jail;	/* "loopd's jail": messages */
	const char		*pf_home;	/* absolute */
	const char		*pf_relay_dir;	/* under pf_home */
	const char		*pf_relay_name;	/* the socket, in pf_relay_dir */
	const char		*pf_socket_dirs; /* the defaults, for a refusal */
};

struct jail_plan {
	struct jail_spec	jp_spec;
	struct jail_bind	jp_binds[JAIL_MAX_BINDS];
	char			jp_paths[JAIL_MAX_BINDS][PATH_MAX];
	unsigned		jp_perms[JAIL_MAX_BINDS];	/* BX_ACL_* */
	bool			jp_inherit[JAIL_MAX_BINDS];
	const char		*jp_jail;	/* pf_jail */
	const char		*jp_socket_dirs; /* pf_socket_dirs */
	char			jp_home[PATH_MAX];
	char			jp_relay_dir[PATH_MAX];
	char			jp_relay[PATH_MAX];
};

/*
 * An empty plan for the caller's uid and gid: the jail's ids, the map
 * tools, the relay's paths. Fails when the ids cannot be found
 * (proto/jailid.h says why), newuidmap is missing for a caller who is not
 * root, or the home is too long.
 */
int	jail_plan_start(struct jail_plan *ret, const struct jail_plan_for *,
	    struct bx_error *err);

/* Binds path (a file or directory that exists) as g says. */
int	jail_plan_add(struct jail_plan *, const char *path,
	    const struct jail_grant *g, struct bx_error *err);

/* Binds the program's configuration file (absolute), read-only, r. */
int	jail_plan_add_config(struct jail_plan *, const char *config_path,
	    struct bx_error *err);

/* Binds <home>/rel, made 0700 (and its parents) if missing. */
int	jail_plan_add_home_dir(struct jail_plan *, const char *rel,
	    const struct jail_grant *g, struct bx_error *err);

/*
 * Binds the directory of socket_path, made if missing; refused when it
 * holds anything but that socket.
 */
int	jail_plan_add_dir_of(struct jail_plan *, const char *socket_path,
	    const struct jail_grant *g, struct bx_error *err);

/* Binds the relay's directory, read-only, --x. */
int	jail_plan_add_relay(struct jail_plan *, struct bx_error *err);

/* Gives the jail's uid each bind's ACL entry. */
int	jail_plan_grant_binds(const struct jail_plan *, struct bx_error *err);

#endif
