/*
 * cgroup_v2.c: cgroup v2's half of cgroup.h. One hierarchy, delegated to
 * brokerd by systemd (Delegate=yes): brokerd's cgroup hands memory and
 * pids down to boxmaker-<id>, and a call's limits sit on call-<seq> while
 * its processes go in the leaf "tool", for the no-internal-process rule.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>

#include "brokerd/runner/cgroup_file.h"
#include "brokerd/runner/cgroup_version.h"

/* The message of every failure to take the subtree. */
#define CGROUP_V2_DELEGATE	"the cgroup v2 subtree must be delegated " \
	"to brokerd (systemd Delegate=yes)"

/*
 * A cgroup that hands controllers down holds no process (the root is
 * exempt), and brokerd is in it, so brokerd moves to a leaf of its own
 * first.
 */
int
cgroup_v2_open(struct cgroup_host *h, const char *root, const char *id,
    struct bx_error *err)
{
	char buf[CGROUP_FILE_MAX], cg[PATH_MAX], dir[PATH_MAX], *rel;

	/* A pure v2 host has the one line "0::/path". */
	if (cgroup_read("/proc/self", "cgroup", buf, sizeof(buf)) == -1 ||
	    strncmp(buf, "0::/", 4) != 0)
		return bx_fail(err, "/proc/self/cgroup: no \"0::/\" line");
	rel = buf + 3;
	rel[strcspn(rel, "\n")] = '\0';
	if (strcmp(rel, "/") == 0)
		*rel = '\0';
	if (strlen(root) + strlen(rel) >= CGROUP_PREFIX_MAX)
		return bx_fail(err, "cgroup: %s%s is longer than %d bytes",
		    root, rel, CGROUP_PREFIX_MAX);
	snprintf(h->ch_hier[h->ch_nhier++], PATH_MAX, "%s", root);
	snprintf(h->ch_home, PATH_MAX, "%s/boxmaker-%s", rel, id);
	snprintf(cg, sizeof(cg), "%s%s", root, rel);
	snprintf(dir, sizeof(dir), "%s/brokerd", cg);
	if ((rel[0] != '\0' && (cgroup_make_dir(dir, true, err) == -1 ||
	    cgroup_put(dir, "cgroup.procs", "0", err) == -1)) ||
	    cgroup_put(cg, "cgroup.subtree_control", "+memory +pids",
	    err) == -1)
		return bx_error_prefix(err, CGROUP_V2_DELEGATE);
	snprintf(dir, sizeof(dir), "%s%s", root, h->ch_home);
	if (cgroup_make_dir(dir, true, err) == -1 ||
	    cgroup_put(dir, "cgroup.subtree_control", "+memory +pids",
	    err) == -1)
		return bx_error_prefix(err, CGROUP_V2_DELEGATE);
	return 0;
}

/*
 * The limits on the call, no swap at all, and the leaf "tool", whose
 * directory bwrap's process is made in (clone3, cgroup_call_start_dir);
 * podman's libpod-<id> goes beside the leaf. memory.events counts the OOM
 * kills below the call, so no watch is needed.
 */
int
cgroup_v2_limit(const char *memory_dir, const char *memory, const char *pids,
    struct cgroup_limit_fds *fds, struct bx_error *err)
{
	char leaf[PATH_MAX];

	snprintf(leaf, sizeof(leaf), "%s/tool", memory_dir);
	if (cgroup_put(memory_dir, "memory.max", memory, err) == -1 ||
	    cgroup_put(memory_dir, "memory.swap.max", "0", err) == -1 ||
	    cgroup_put(memory_dir, "pids.max", pids, err) == -1 ||
	    cgroup_put(memory_dir, "cgroup.subtree_control",
	    "+memory +pids", err) == -1 ||
	    cgroup_make_dir(leaf, false, err) == -1)
		return -1;
	fds->cl_start_dir = open(leaf, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fds->cl_start_dir == -1)
		return bx_fail(err, "%s: cannot open: %s", leaf,
		    strerror(errno));
	return 0;
}
