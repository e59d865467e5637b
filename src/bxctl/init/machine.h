/*
 * machine.h: what `bxctl init` checks on this machine before the owner
 * starts the units, so that a refusal brokerd would give at its start
 * (docs/runbook.md#runner-unavailable) is named, with its fix, at the
 * owner's first run instead. For the chosen runtime and user:
 *
 *	the runtime's program on PATH (podman, or bwrap);
 *	cgroups: v2 with memory and pids delegated to the user's systemd
 *	    manager (user@UID.service), or root; v1 only as root, with swap
 *	    accounting (memory.memsw);
 *	unprivileged user namespaces, for anyone but root;
 *	for loopd's jail (and rootless podman): subuid and subgid ranges,
 *	    newuidmap and newgidmap, for anyone but root, the first range
 *	    holding the ids of both jails (loopd's and the Mattermost
 *	    bridge's, the one below it: proto/jailid.h); as root, the
 *	    system users boxmaker-loop and, for the Mattermost bridge's
 *	    jail, boxmaker-bridge;
 *	lingering, for anyone but root, so that the units run without a
 *	    login.
 *
 * Every file is read under mv_root, "/" for real and a made-up tree in the
 * tests. Nothing here prints or allocates: findings go into the caller's
 * array.
 */
#ifndef BXCTL_MACHINE_H
#define BXCTL_MACHINE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum machine_runtime {
	MACHINE_PODMAN,
	MACHINE_BWRAP,
};

struct machine_view {
	const char	*mv_root;	/* "/" or a test's tree */
	uid_t		 mv_uid;
	const char	*mv_user;	/* the login name of mv_uid */
	const char	*mv_path;	/* $PATH, to find programs */
};

/* The most checks one run makes. */
#define MACHINE_CHECKS_MAX	8
#define MACHINE_TEXT_MAX	512

struct machine_check {
	bool	mc_ok;
	char	mc_what[MACHINE_TEXT_MAX];	/* what was found */
	char	mc_fix[MACHINE_TEXT_MAX];	/* the command; "" when ok */
};

/*
 * Checks what runtime needs for the user in v; fills checks (at least
 * MACHINE_CHECKS_MAX of them) and returns how many it made.
 */
size_t	machine_check(const struct machine_view *v,
	    enum machine_runtime runtime, struct machine_check *checks);

#endif
