/*
 * cgroup.h: the per-call cgroups that hold a sandbox's memory and processes
 * (m3b-runner.md sections 3 and 6). Every call gets a cgroup of its own
 * under one cgroup named for this brokerd home:
 *
 *	v1: <root>/<ctrl>/boxmaker-<home id>/call-<seq>, made in the memory
 *	    and pids hierarchies; podman adds <call>/libpod-<id> in every
 *	    hierarchy and removes only that.
 *	v2: <root><brokerd's cgroup>/boxmaker-<home id>/call-<seq>/tool, the
 *	    limits on call-<seq> and the tool's processes in the leaf "tool"
 *	    (the no-internal-process rule); podman's libpod-<id> sits beside
 *	    it. brokerd's own processes move to <its cgroup>/brokerd.
 *
 * A limit that cannot be set is an error naming the file, never a silent
 * no-op. Removal kills what is inside and rmdirs the whole call tree in
 * every hierarchy, leaf first; the startup sweep does the same for every
 * call-* a crashed brokerd left, and touches nothing else.
 *
 * Ownership: cgroup_host_open allocates the host and cgroup_host_free frees
 * it (removing nothing); it is read-only after open, so threads may share
 * it. cgroup_call_new allocates a call that borrows its host (free the
 * calls first) and owns its descriptors; cgroup_call_remove frees it. One
 * call is used by one thread at a time. Nothing here prints.
 */
#ifndef BROKERD_CGROUP_H
#define BROKERD_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"

#define CGROUP_ROOT	"/sys/fs/cgroup"

/* How long removal waits for the killed to go (the probe saw ~1 s). */
#define CGROUP_DRAIN_MS	3000

struct cgroup_host;
struct cgroup_call;

/*
 * Finds this home's cgroup tree under root (CGROUP_ROOT; tests may pass
 * another) and creates boxmaker-<home_id> (mode 0755) where calls are made.
 * home_id is 16 lowercase hex digits. v2 if <root>/cgroup.controllers
 * exists, v1 if <root>/memory and <root>/pids are hierarchies; v1 without
 * memory.memsw (swap accounting off) is refused, and so is a v2 subtree
 * that is not delegated to brokerd (the message says so).
 */
int	cgroup_host_open(const char *root, const char *home_id,
	    struct cgroup_host **ret, struct bx_error *);
void	cgroup_host_free(struct cgroup_host *);
int	cgroup_host_version(const struct cgroup_host *);	/* 1 or 2 */

/*
 * The startup sweep: kills every process in this home's call-* cgroups
 * (every hierarchy, recursively), waits until they are gone (bounded by
 * CGROUP_DRAIN_MS per call) and rmdirs them leaf first. Only call-* under
 * boxmaker-<home id> is touched. *ret_removed is the number of calls
 * removed. Fails if one cannot be removed; those before it are gone.
 */
int	cgroup_sweep(struct cgroup_host *, size_t *ret_removed,
	    struct bx_error *);

/*
 * Creates call seq's cgroup with its limits: memory_bytes (> 0) covering
 * swap too (v1 memory.limit_in_bytes, then memory.memsw.limit_in_bytes; v2
 * memory.max and memory.swap.max = 0) and pids (> 0, pids.max), and the OOM
 * watch. A call cgroup that already exists is refused: the sweep should
 * have removed it, and its counters are not this call's.
 */
int	cgroup_call_new(struct cgroup_host *, uint64_t seq,
	    int64_t memory_bytes, int64_t pids, struct cgroup_call **ret,
	    struct bx_error *);

/* podman's --cgroup-parent, e.g. "/boxmaker-<id>/call-<seq>"; the call's. */
const char	*cgroup_call_parent(const struct cgroup_call *);

/*
 * v1: the cgroup.procs descriptors a bwrap child joins between fork and
 * exec by writing "0" to each, with write(2) alone (async-signal-safe).
 * Opened O_WRONLY | O_CLOEXEC; the call owns them. Returns how many: 2 on
 * v1, 0 on v2, where the child is made in cgroup_call_start_dir instead.
 */
size_t	cgroup_call_join_fds(const struct cgroup_call *, const int **ret_fds);

/*
 * v2: the directory (O_RDONLY | O_CLOEXEC, the call's) of the leaf a bwrap
 * child is made in by clone3(CLONE_INTO_CGROUP); -1 on v1.
 */
int	cgroup_call_start_dir(const struct cgroup_call *);

/*
 * Whether the kernel hit the call's memory limit and OOM-killed something in
 * the call's cgroup or below it since creation; sticky once true. Ask before
 * cgroup_call_remove. v1: the call cgroup's own oom_kill count, or the
 * eventfd registered on its memory.oom_control (the only route that sees a
 * kill in podman's libpod-<id> child). The eventfd fires only when the limit
 * that was hit is the call's: a limit on a child cgroup (podman --memory)
 * that is reached first is not seen. v2: memory.events oom_kill
 * (hierarchical). A counter that cannot be read counts as no OOM.
 */
bool	cgroup_call_oomed(struct cgroup_call *);

/*
 * Whether the call's processes reached its pids limit since creation: a
 * fork refused by it in the call's cgroup or below (pids.events "max"), or
 * as many processes at once as the limit (pids.peak). Sticky once true;
 * ask before cgroup_call_remove. Which counter is kept where, by version
 * and kernel: cgroup_pids.c. A counter that cannot be read counts as no.
 */
bool	cgroup_call_pids_hit(struct cgroup_call *);

/*
 * A descriptor that is readable when a cgroup is made below the call's or
 * a fork is refused in one (inotify), for the runner to poll while the
 * call runs; -1 when inotify cannot be had (then only what is left at the
 * end is read). Owned by the call. cgroup_call_pids_watch_read takes what
 * it says into cgroup_call_pids_hit.
 */
int	cgroup_call_pids_watch(struct cgroup_call *);
void	cgroup_call_pids_watch_read(struct cgroup_call *);

/*
 * SIGKILLs every process in the call's cgroups and below, in every
 * hierarchy, repeating until none is left (bounded by CGROUP_DRAIN_MS).
 * Processes are named by pid from cgroup.procs, so a process that exits
 * between the read and the kill leaves its pid to a possible newcomer for
 * that instant; pid reuse that fast needs the whole pid space to wrap.
 */
int	cgroup_call_kill(struct cgroup_call *, struct bx_error *);

/*
 * Kills, waits until empty and rmdirs everything under and including the
 * call's cgroup in every hierarchy, leaf first (bounded by CGROUP_DRAIN_MS),
 * then frees the call. NULL is allowed. Returns -1 if something could not be
 * removed; the call is freed all the same.
 */
int	cgroup_call_remove(struct cgroup_call *, struct bx_error *);

#endif
