/*
 * cgroup_call.h: a call's cgroups as cgroup.c (making, killing, removing
 * them) and cgroup_pids.c (whether the call reached its process limit)
 * share them; nothing else includes it. What differs by version is in
 * cgroup_version.h, which neither of those two files implements.
 *
 * A walk goes at most CGROUP_DEPTH_MAX levels below a call, so every path
 * made from the root and the call fits PATH_MAX unchecked.
 *
 * Ownership: as in cgroup.h.
 */
#ifndef BROKERD_CGROUP_CALL_H
#define BROKERD_CGROUP_CALL_H

#include <limits.h>
#include <stdbool.h>
#include <stdint.h>

#include "brokerd/runner/cgroup.h"
#include "brokerd/runner/cgroup_version.h"

#define CGROUP_DEPTH_MAX	8	/* below a call; podman makes 1 */

/* A mount's name, the home, the call, the levels below it, a file name. */
_Static_assert(CGROUP_PREFIX_MAX + (CGROUP_DEPTH_MAX + 2) * (NAME_MAX + 1) +
    128 < PATH_MAX, "every cgroup path fits PATH_MAX");

struct cgroup_call {
	struct cgroup_host	*cc_host;	/* borrowed */
	char			 cc_parent[PATH_MAX];	/* ch_home/call-<seq> */
	char			 cc_memory[PATH_MAX];	/* its memory cgroup */
	struct cgroup_limit_fds	 cc_fds;	/* the call's to close */
	bool			 cc_oomed;
	int64_t			 cc_pids;	/* its pids.max */
	bool			 cc_pids_hit;
	int			 cc_pids_watch;	/* inotify, or -1 */
	uint64_t		 cc_pids_wds;	/* its pids.events watches */
};

#endif
