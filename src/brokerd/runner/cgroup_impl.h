/*
 * cgroup_impl.h: what cgroup.c shares with the two versions' files,
 * cgroup_v1.c and cgroup_v2.c, and nothing else includes. cgroup.c holds
 * what both versions do alike (killing, draining, removing, the sweep);
 * each version's file finds the hierarchies and sets a call's limits.
 *
 * The root (v2: with brokerd's cgroup) is at most CGROUP_PREFIX_MAX bytes
 * and a walk goes at most CGROUP_DEPTH_MAX levels below a call, so every
 * path made from them fits PATH_MAX unchecked.
 *
 * Ownership: as in cgroup.h; the helpers below allocate nothing.
 */
#ifndef BROKERD_CGROUP_IMPL_H
#define BROKERD_CGROUP_IMPL_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/runner/cgroup.h"
#include "proto/error.h"

#define CGROUP_PREFIX_MAX	1024
#define CGROUP_HIER_MAX		32	/* v1 has 14 controllers, 2 others */
#define CGROUP_DEPTH_MAX	8	/* below a call; podman makes 1 */
#define CGROUP_JOIN_MAX		2	/* v1: memory and pids; v2: none */
#define CGROUP_FILE_MAX		4096	/* what is read of a cgroup file */

/* A mount's name, the home, the call, the levels below it, a file name. */
_Static_assert(CGROUP_PREFIX_MAX + (CGROUP_DEPTH_MAX + 2) * (NAME_MAX + 1) +
    128 < PATH_MAX, "every cgroup path fits PATH_MAX");

struct cgroup_host {
	int	ch_version;
	char	ch_home[PATH_MAX];	/* [v2 cgroup]/boxmaker-<id> */
	char	ch_hier[CGROUP_HIER_MAX][PATH_MAX];	/* the mounts */
	size_t	ch_nhier;
	size_t	ch_memory;		/* indexes into ch_hier */
	size_t	ch_pids;
};

struct cgroup_call {
	struct cgroup_host	*cc_host;	/* borrowed */
	char			 cc_parent[PATH_MAX];	/* ch_home/call-<seq> */
	char			 cc_memory[PATH_MAX];	/* its memory cgroup */
	int			 cc_join[CGROUP_JOIN_MAX];
	size_t			 cc_njoin;
	int			 cc_start_dir;	/* v2 leaf, or -1 */
	int			 cc_oom_event;	/* v1 eventfd, or -1 */
	bool			 cc_oomed;
	int64_t			 cc_pids;	/* its pids.max */
	bool			 cc_pids_hit;
	int			 cc_pids_watch;	/* inotify, or -1 */
	uint64_t		 cc_pids_wds;	/* its pids.events watches */
};

/* Writes value to dir/name; cgroup files take it in one write(2). */
int	cgroup_put(const char *dir, const char *name, const char *value,
	    struct bx_error *);
/*
 * Reads dir/name into buf, NUL-terminated, in one read(2): a cgroup file is
 * made whole for its first read, and a longer one is cut at size - 1.
 * Fails with errno set and no message (a vanished cgroup is no error to
 * some callers).
 */
int	cgroup_read(const char *dir, const char *name, char *buf, size_t size);
/* mkdir 0755; an existing one is an error unless exist_ok. */
int	cgroup_make_dir(const char *path, bool exist_ok, struct bx_error *);
/* Opens dir/cgroup.procs for a bwrap child to join (cgroup_call_join_fds). */
int	cgroup_join(struct cgroup_call *, const char *dir, struct bx_error *);

/* Each version: fill the host's hierarchies and make boxmaker-<id>. */
int	cgroup_v1_open(struct cgroup_host *, const char *root, const char *id,
	    struct bx_error *);
int	cgroup_v2_open(struct cgroup_host *, const char *root, const char *id,
	    struct bx_error *);
/* Each version: a new call's limits, its OOM watch and what it joins. */
int	cgroup_v1_limit(struct cgroup_call *, const char *memory,
	    const char *pids, struct bx_error *);
int	cgroup_v2_limit(struct cgroup_call *, const char *memory,
	    const char *pids, struct bx_error *);

#endif
