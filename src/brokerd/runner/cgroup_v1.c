/*
 * cgroup_v1.c: cgroup v1's half of cgroup.h. Each controller is a
 * hierarchy of its own; a call is made in the memory and pids ones, and
 * its limits hold swap too (memory.memsw), which is why a host without
 * swap accounting is refused. The call's own OOM is watched through an
 * eventfd, the only route that sees a kill in podman's libpod-<id> child.
 */
#include <sys/eventfd.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/cgroup_file.h"
#include "brokerd/runner/cgroup_version.h"

/* Each directory in the root is a hierarchy, a controller's mount. */
int
cgroup_v1_open(struct cgroup_host *h, const char *root, const char *id,
    struct bx_error *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	DIR *d;

	if ((d = opendir(root)) == NULL)
		return bx_fail(err, "%s: cannot list: %s", root,
		    strerror(errno));
	h->ch_memory = h->ch_pids = CGROUP_HIER_MAX;
	while ((de = readdir(d)) != NULL && h->ch_nhier < CGROUP_HIER_MAX) {
		/* Links (cpu -> cpu,cpuacct) would name a hierarchy twice. */
		if (de->d_type != DT_DIR || de->d_name[0] == '.')
			continue;
		if (strcmp(de->d_name, "memory") == 0)
			h->ch_memory = h->ch_nhier;
		if (strcmp(de->d_name, "pids") == 0)
			h->ch_pids = h->ch_nhier;
		snprintf(h->ch_hier[h->ch_nhier++], PATH_MAX, "%s/%s", root,
		    de->d_name);
	}
	closedir(d);
	if (h->ch_memory == CGROUP_HIER_MAX || h->ch_pids == CGROUP_HIER_MAX)
		return bx_fail(err, "%s: neither cgroup v2 (cgroup.controllers)"
		    " nor cgroup v1 memory and pids hierarchies", root);
	snprintf(path, sizeof(path), "%s/memory.memsw.limit_in_bytes",
	    h->ch_hier[h->ch_memory]);
	if (access(path, F_OK) == -1)
		return bx_fail(err, "%s: missing: swap accounting is off (boot "
		    "with swapaccount=1), so a memory limit would not hold",
		    path);
	snprintf(h->ch_home, PATH_MAX, "/boxmaker-%s", id);
	snprintf(path, sizeof(path), "%s%s", h->ch_hier[h->ch_memory],
	    h->ch_home);
	if (cgroup_make_dir(path, true, err) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s%s", h->ch_hier[h->ch_pids],
	    h->ch_home);
	return cgroup_make_dir(path, true, err);
}

/* An eventfd the kernel signals when the call's own limit is hit. */
static int
watch_oom(const char *memory_dir, struct cgroup_limit_fds *fds,
    struct bx_error *err)
{
	char path[PATH_MAX], buf[64];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/memory.oom_control", memory_dir);
	fds->cl_oom_event = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (fds->cl_oom_event == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return bx_fail(err, "%s: cannot watch: %s", path,
		    strerror(errno));
	snprintf(buf, sizeof(buf), "%d %d", fds->cl_oom_event, fd);
	/* The kernel keeps the eventfd, not this file. */
	rc = cgroup_put(memory_dir, "cgroup.event_control", buf, err);
	close(fd);
	return rc;
}

/* Opens dir/cgroup.procs for a bwrap child to join (cgroup_call_join_fds). */
static int
join(struct cgroup_limit_fds *fds, const char *dir, struct bx_error *err)
{
	char path[PATH_MAX];
	int fd;

	if (fds->cl_njoin == CGROUP_JOIN_MAX)
		return bx_fail(err, "cgroup: %s: more than %d cgroups to join",
		    dir, CGROUP_JOIN_MAX);
	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return bx_fail(err, "%s: cannot open: %s", path,
		    strerror(errno));
	fds->cl_join[fds->cl_njoin++] = fd;
	return 0;
}

/*
 * Limits in the memory and pids hierarchies, joined in both. Since Linux
 * 5.11 use_hierarchy is 1, so a child (podman's) is held by them too.
 */
int
cgroup_v1_limit(const struct cgroup_host *h, const char *parent,
    const char *memory_dir, const char *memory, const char *pids,
    struct cgroup_limit_fds *fds, struct bx_error *err)
{
	char pids_dir[PATH_MAX];

	snprintf(pids_dir, sizeof(pids_dir), "%s%s", h->ch_hier[h->ch_pids],
	    parent);
	/* memsw must not go below limit_in_bytes, so it comes second. */
	if (cgroup_make_dir(pids_dir, false, err) == -1 ||
	    cgroup_put(memory_dir, "memory.limit_in_bytes", memory,
	    err) == -1 ||
	    cgroup_put(memory_dir, "memory.memsw.limit_in_bytes", memory,
	    err) == -1 ||
	    cgroup_put(pids_dir, "pids.max", pids, err) == -1 ||
	    watch_oom(memory_dir, fds, err) == -1)
		return -1;
	if (join(fds, memory_dir, err) == -1)
		return -1;
	return join(fds, pids_dir, err);
}
