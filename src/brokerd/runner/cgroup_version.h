/*
 * cgroup_version.h: what differs between cgroup v1 and v2, one file each
 * (cgroup_v1.c, cgroup_v2.c): finding the hierarchies of a host, and
 * setting a new call's limits. cgroup.c picks the version and does what
 * both do alike; the version files know nothing of it, only the host they
 * fill and the paths and descriptors they are given.
 *
 * The root (v2: with brokerd's cgroup) is at most CGROUP_PREFIX_MAX bytes,
 * so that every path made from it fits PATH_MAX (cgroup_call.h).
 *
 * Ownership: the host is the caller's; a version's open fills it. What a
 * limit opens goes into the caller's struct cgroup_limit_fds, which the
 * caller closes, on failure too.
 */
#ifndef BROKERD_CGROUP_VERSION_H
#define BROKERD_CGROUP_VERSION_H

#include <limits.h>
#include <stddef.h>

#include "proto/error.h"

#define CGROUP_PREFIX_MAX	1024
#define CGROUP_HIER_MAX		32	/* v1 has 14 controllers, 2 others */
#define CGROUP_JOIN_MAX		2	/* v1: memory and pids; v2: none */

/* The host's version (set by cgroup.c) and what its version's open found. */
struct cgroup_host {
	int	ch_version;
	char	ch_home[PATH_MAX];	/* [v2 cgroup]/boxmaker-<id> */
	char	ch_hier[CGROUP_HIER_MAX][PATH_MAX];	/* the mounts */
	size_t	ch_nhier;
	size_t	ch_memory;		/* indexes into ch_hier */
	size_t	ch_pids;
};

/*
 * What a call's limits leave open for it: the cgroup.procs a bwrap child
 * joins (v1), the leaf it is made in (v2), the OOM watch (v1). The caller
 * sets the two descriptors to -1 and cl_njoin to 0 before the limit.
 */
struct cgroup_limit_fds {
	int	cl_join[CGROUP_JOIN_MAX];
	size_t	cl_njoin;
	int	cl_start_dir;		/* v2 leaf, or -1 */
	int	cl_oom_event;		/* v1 eventfd, or -1 */
};

/* Each version: fill the host's hierarchies and make boxmaker-<id>. */
int	cgroup_v1_open(struct cgroup_host *, const char *root, const char *id,
	    struct bx_error *);
int	cgroup_v2_open(struct cgroup_host *, const char *root, const char *id,
	    struct bx_error *);
/*
 * Each version: a new call's limits (memory and pids as the cgroup files
 * take them), its OOM watch and what it joins, into fds. parent is the
 * call's path below a hierarchy's mount (ch_home/call-<seq>), memory_dir
 * its cgroup in the memory hierarchy, already made.
 */
int	cgroup_v1_limit(const struct cgroup_host *, const char *parent,
	    const char *memory_dir, const char *memory, const char *pids,
	    struct cgroup_limit_fds *fds, struct bx_error *);
int	cgroup_v2_limit(const char *memory_dir, const char *memory,
	    const char *pids, struct cgroup_limit_fds *fds, struct bx_error *);

#endif
