/*
 * cgroup.c: per-call cgroups (cgroup.h). One path below a hierarchy's mount
 * names a call in every hierarchy (v1 has one per controller, v2 one), and
 * removal loops "kill what cgroup.procs lists, rmdir leaf first" over it
 * until nothing is busy: a killed process stays listed until it has exited.
 * The root (v2: with brokerd's cgroup) is at most CGROUP_PREFIX_MAX bytes
 * and a walk goes at most CGROUP_DEPTH_MAX levels below a call, so every
 * path made from them fits PATH_MAX unchecked.
 */
#include <sys/eventfd.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brokerd/runner/cgroup.h"
#include "proto/clock.h"
#include "proto/writefile.h"

#define CGROUP_PREFIX_MAX	1024
#define CGROUP_HIER_MAX		32	/* v1 has 14 controllers, 2 others */
#define CGROUP_DEPTH_MAX	8	/* below a call; podman makes 1 */
#define CGROUP_POLL_MS		10
#define CGROUP_ID_LEN		16	/* hex digits of a home id */
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
	int			 cc_join[2];
	size_t			 cc_njoin;
	int			 cc_oom_event;	/* v1 eventfd, or -1 */
	bool			 cc_oomed;
};

/* Writes value to dir/name; cgroup files take it in one write(2). */
static int
put(const char *dir, const char *name, const char *value,
    struct bx_error *err)
{
	char path[PATH_MAX];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1 ||
	    bx_write_all(fd, value, strlen(value)) == -1)
		rc = bx_fail(err, "%s: cannot write %s: %s", path, value,
		    strerror(errno));
	if (fd != -1)
		close(fd);
	return rc;
}

/*
 * Reads dir/name into buf, NUL-terminated, in one read(2): a cgroup file is
 * made whole for its first read, and a longer one is cut at size - 1.
 */
static int
slurp(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n == -1 && errno == EINTR);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n == -1 ? -1 : 0;
}

static int
make_dir(const char *path, bool exist_ok, struct bx_error *err)
{
	if (mkdir(path, 0755) == 0 || (exist_ok && errno == EEXIST))
		return 0;
	return bx_fail(err, "%s: cannot create: %s", path, strerror(errno));
}

/*
 * SIGKILLs what dir/cgroup.procs lists, counted in *live. What does not fit
 * the buffer (and the pid it cuts) waits for the caller's next round.
 */
static int
kill_procs(const char *dir, size_t *live, struct bx_error *err)
{
	char buf[CGROUP_FILE_MAX], *p, *end;
	long pid;

	if (slurp(dir, "cgroup.procs", buf, sizeof(buf)) == -1)
		/* ENODEV: the cgroup was removed while we read. */
		return errno == ENOENT || errno == ENODEV ? 0 : bx_fail(err,
		    "%s/cgroup.procs: cannot read: %s", dir, strerror(errno));
	if (strlen(buf) == sizeof(buf) - 1 && (p = strrchr(buf, '\n')) != NULL)
		p[1] = '\0';
	for (p = buf; (pid = strtol(p, &end, 10)) > 0; p = end) {
		/* 1 is init; brokerd never joins a call's cgroup. */
		if (pid == 1 || pid == (long)getpid())
			continue;
		(*live)++;
		(void)kill((pid_t)pid, SIGKILL);
	}
	return 0;
}

/*
 * Kills what is in path and below it and, with remove, rmdirs it all leaf
 * first, counting in *live the processes seen and the cgroups still busy.
 */
static int
walk(char *path, int depth, bool remove, size_t *live, struct bx_error *err)
{
	struct dirent *de;
	size_t len = strlen(path);
	DIR *d;
	int rc = 0;

	if (kill_procs(path, live, err) == -1)
		return -1;
	if ((d = opendir(path)) == NULL)
		return errno == ENOENT ? 0 : bx_fail(err, "%s: cannot list: %s",
		    path, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (depth == CGROUP_DEPTH_MAX)
			rc = bx_fail(err, "%s: cgroups nest more than %d deep",
			    path, CGROUP_DEPTH_MAX);
		else {
			snprintf(path + len, PATH_MAX - len, "/%s", de->d_name);
			rc = walk(path, depth + 1, remove, live, err);
			path[len] = '\0';
		}
	}
	closedir(d);
	if (rc == -1 || !remove || rmdir(path) == 0 || errno == ENOENT)
		return rc;
	if (errno != EBUSY)
		return bx_fail(err, "%s: cannot remove: %s", path,
		    strerror(errno));
	(*live)++;
	return 0;
}

/* Walks rel in every hierarchy until nothing is left or busy. */
static int
drain(struct cgroup_host *h, const char *rel, bool remove,
    struct bx_error *err)
{
	const struct timespec pause = { 0, CGROUP_POLL_MS * 1000000L };
	int64_t until = bx_clock_mono_ms() + CGROUP_DRAIN_MS;
	char path[PATH_MAX];
	size_t i, live;

	for (;;) {
		live = 0;
		for (i = 0; i < h->ch_nhier; i++) {
			snprintf(path, PATH_MAX, "%s%s", h->ch_hier[i], rel);
			if (walk(path, 0, remove, &live, err) == -1)
				return -1;
		}
		if (live == 0)
			return 0;
		if (bx_clock_mono_ms() >= until)
			return bx_fail(err, "cgroup: %s: %zu processes or "
			    "cgroups left %d ms after SIGKILL", rel, live,
			    CGROUP_DRAIN_MS);
		nanosleep(&pause, NULL);
	}
}

/* v1: each directory in the root is a hierarchy, a controller's mount. */
static int
open_v1(struct cgroup_host *h, const char *root, const char *id,
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
	if (make_dir(path, true, err) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s%s", h->ch_hier[h->ch_pids],
	    h->ch_home);
	return make_dir(path, true, err);
}

/*
 * v2: brokerd's cgroup hands memory and pids down to boxmaker-<id>. A
 * cgroup that does so holds no process (the root is exempt), and brokerd
 * is in it, so brokerd moves to a leaf of its own first.
 */
static int
open_v2(struct cgroup_host *h, const char *root, const char *id,
    struct bx_error *err)
{
	char buf[CGROUP_FILE_MAX], cg[PATH_MAX], dir[PATH_MAX], *rel;

	/* A pure v2 host has the one line "0::/path". */
	if (slurp("/proc/self", "cgroup", buf, sizeof(buf)) == -1 ||
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
	if ((rel[0] != '\0' && (make_dir(dir, true, err) == -1 ||
	    put(dir, "cgroup.procs", "0", err) == -1)) ||
	    put(cg, "cgroup.subtree_control", "+memory +pids", err) == -1)
		goto out;
	snprintf(dir, sizeof(dir), "%s%s", root, h->ch_home);
	if (make_dir(dir, true, err) == -1 ||
	    put(dir, "cgroup.subtree_control", "+memory +pids", err) == -1)
		goto out;
	return 0;
out:
	return bx_error_prefix(err, "the cgroup v2 subtree must be delegated "
	    "to brokerd (systemd Delegate=yes)");
}

int
cgroup_host_open(const char *root, const char *home_id,
    struct cgroup_host **ret, struct bx_error *err)
{
	struct cgroup_host *h;
	char path[PATH_MAX];

	if (strlen(home_id) != CGROUP_ID_LEN ||
	    strspn(home_id, "0123456789abcdef") != CGROUP_ID_LEN)
		return bx_fail(err, "cgroup: home id \"%s\" is not %d lowercase"
		    " hex digits", home_id, CGROUP_ID_LEN);
	if (strlen(root) >= CGROUP_PREFIX_MAX)
		return bx_fail(err, "cgroup: %s is longer than %d bytes", root,
		    CGROUP_PREFIX_MAX);
	if ((h = calloc(1, sizeof(*h))) == NULL)
		return bx_fail(err, "cgroup: out of memory");
	snprintf(path, sizeof(path), "%s/cgroup.controllers", root);
	h->ch_version = access(path, F_OK) == 0 ? 2 : 1;
	if ((h->ch_version == 2 ? open_v2(h, root, home_id, err) :
	    open_v1(h, root, home_id, err)) == -1) {
		free(h);
		return -1;
	}
	*ret = h;
	return 0;
}

void
cgroup_host_free(struct cgroup_host *h)
{
	free(h);
}

int
cgroup_host_version(const struct cgroup_host *h)
{
	return h->ch_version;
}

/* Lists call-* in each hierarchy's home and removes each from all. */
int
cgroup_sweep(struct cgroup_host *h, size_t *ret_removed, struct bx_error *err)
{
	char path[PATH_MAX], rel[PATH_MAX];
	struct dirent *de;
	size_t i, removed = 0;
	DIR *d;
	int rc = 0;

	for (i = 0; rc == 0 && i < h->ch_nhier; i++) {
		snprintf(path, sizeof(path), "%s%s", h->ch_hier[i], h->ch_home);
		if ((d = opendir(path)) == NULL && errno != ENOENT)
			return bx_fail(err, "%s: cannot list: %s", path,
			    strerror(errno));
		while (rc == 0 && d != NULL && (de = readdir(d)) != NULL) {
			if (de->d_type != DT_DIR ||
			    strncmp(de->d_name, "call-", 5) != 0)
				continue;
			snprintf(rel, sizeof(rel), "%s/%s", h->ch_home,
			    de->d_name);
			if ((rc = drain(h, rel, true, err)) == 0)
				removed++;
		}
		if (d != NULL)
			closedir(d);
	}
	if (rc == 0)
		*ret_removed = removed;
	return rc;
}

/* v1: an eventfd the kernel signals when the call's own limit is hit. */
static int
watch_oom(struct cgroup_call *c, struct bx_error *err)
{
	char path[PATH_MAX], buf[64];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/memory.oom_control", c->cc_memory);
	c->cc_oom_event = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (c->cc_oom_event == -1 ||
	    (fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return bx_fail(err, "%s: cannot watch: %s", path,
		    strerror(errno));
	snprintf(buf, sizeof(buf), "%d %d", c->cc_oom_event, fd);
	/* The kernel keeps the eventfd, not this file. */
	rc = put(c->cc_memory, "cgroup.event_control", buf, err);
	close(fd);
	return rc;
}

/*
 * v1: limits in the memory and pids hierarchies, joined in both. v2: on the
 * call, joined in its leaf "tool", podman's libpod-<id> beside it.
 */
static int
limit(struct cgroup_call *c, int64_t memory_bytes, int64_t pids_max,
    struct bx_error *err)
{
	const char *mem = c->cc_memory, *join[2];
	char pids[PATH_MAX], leaf[PATH_MAX], path[PATH_MAX], m[32], p[32];
	bool v1 = c->cc_host->ch_version == 1;
	size_t i;

	snprintf(m, sizeof(m), "%" PRId64, memory_bytes);
	snprintf(p, sizeof(p), "%" PRId64, pids_max);
	snprintf(pids, sizeof(pids), "%s%s",
	    c->cc_host->ch_hier[c->cc_host->ch_pids], c->cc_parent);
	snprintf(leaf, sizeof(leaf), "%s/tool", mem);
	/* memsw must not go below limit_in_bytes, so it comes second. */
	if ((v1 && make_dir(pids, false, err) == -1) ||
	    put(mem, v1 ? "memory.limit_in_bytes" : "memory.max", m,
	    err) == -1 || put(mem, v1 ? "memory.memsw.limit_in_bytes" :
	    "memory.swap.max", v1 ? m : "0", err) == -1 ||
	    put(pids, "pids.max", p, err) == -1)
		return -1;
	/* v1: since Linux 5.11 use_hierarchy is 1, so a child is held. */
	if (v1 ? watch_oom(c, err) == -1 : (put(mem, "cgroup.subtree_control",
	    "+memory +pids", err) == -1 || make_dir(leaf, false, err) == -1))
		return -1;
	join[0] = v1 ? mem : leaf;
	join[1] = pids;
	for (i = 0; i < (v1 ? 2 : 1); i++) {
		snprintf(path, sizeof(path), "%s/cgroup.procs", join[i]);
		if ((c->cc_join[i] = open(path, O_WRONLY | O_CLOEXEC)) == -1)
			return bx_fail(err, "%s: cannot open: %s", path,
			    strerror(errno));
		c->cc_njoin++;
	}
	return 0;
}

int
cgroup_call_new(struct cgroup_host *h, uint64_t seq, int64_t memory_bytes,
    int64_t pids, struct cgroup_call **ret, struct bx_error *err)
{
	struct cgroup_call *c;

	if (memory_bytes <= 0 || pids <= 0)
		return bx_fail(err, "cgroup: limits of %" PRId64 " bytes and %"
		    PRId64 " processes", memory_bytes, pids);
	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "cgroup: out of memory");
	c->cc_host = h;
	c->cc_oom_event = -1;
	snprintf(c->cc_parent, PATH_MAX, "%s/call-%" PRIu64, h->ch_home, seq);
	snprintf(c->cc_memory, PATH_MAX, "%s%s", h->ch_hier[h->ch_memory],
	    c->cc_parent);
	if (make_dir(c->cc_memory, false, err) == -1) {
		/* A leftover is not this call's to remove, but the sweep's. */
		free(c);
		return -1;
	}
	if (limit(c, memory_bytes, pids, err) == -1) {
		(void)cgroup_call_remove(c, NULL);
		return -1;
	}
	*ret = c;
	return 0;
}

const char *
cgroup_call_parent(const struct cgroup_call *c)
{
	return c->cc_parent;
}

size_t
cgroup_call_join_fds(const struct cgroup_call *c, const int **ret_fds)
{
	*ret_fds = c->cc_join;
	return c->cc_njoin;
}

/*
 * The eventfd is non-blocking (no EINTR) and reading resets it, so what it
 * said is kept. No key ends in "oom_kill " but oom_kill (not _disable).
 */
bool
cgroup_call_oomed(struct cgroup_call *c)
{
	char buf[CGROUP_FILE_MAX], *p;
	uint64_t n = 0;

	if (c->cc_oom_event != -1 && read(c->cc_oom_event, &n, sizeof(n)) ==
	    sizeof(n) && n > 0)
		c->cc_oomed = true;
	if (!c->cc_oomed && slurp(c->cc_memory, c->cc_host->ch_version == 1 ?
	    "memory.oom_control" : "memory.events", buf, sizeof(buf)) == 0 &&
	    (p = strstr(buf, "oom_kill ")) != NULL)
		c->cc_oomed = strtoll(p + 9, NULL, 10) > 0;
	return c->cc_oomed;
}

int
cgroup_call_kill(struct cgroup_call *c, struct bx_error *err)
{
	return drain(c->cc_host, c->cc_parent, false, err);
}

int
cgroup_call_remove(struct cgroup_call *c, struct bx_error *err)
{
	size_t i;
	int rc;

	if (c == NULL)
		return 0;
	rc = drain(c->cc_host, c->cc_parent, true, err);
	for (i = 0; i < c->cc_njoin; i++)
		close(c->cc_join[i]);
	if (c->cc_oom_event != -1)
		close(c->cc_oom_event);
	free(c);
	return rc;
}
