/*
 * cgroup.c: per-call cgroups (cgroup.h), what both versions do alike. One
 * path below a hierarchy's mount names a call in every hierarchy (v1 has
 * one per controller, v2 one), and removal loops "kill what cgroup.procs
 * lists, rmdir leaf first" over it until nothing is busy: a killed process
 * stays listed until it has exited. Finding the hierarchies and setting a
 * call's limits differ by version: cgroup_v1.c and cgroup_v2.c
 * (cgroup_version.h), which this file calls and which know nothing of it;
 * a cgroup file is read and written through cgroup_file.h.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/cgroup_call.h"
#include "brokerd/runner/cgroup_file.h"
#include "proto/clock.h"

/*
 * The pauses between two rounds of a drain double from 1 ms up to this:
 * a call's cgroup is most often busy only while bwrap's own pid 1 exits,
 * about a millisecond, and a fixed 10 ms pause cost a whole 10 ms then
 * (bench/README.md, issue 27).
 */
#define CGROUP_POLL_MAX_MS	10
#define CGROUP_ID_LEN		16	/* hex digits of a home id */

/*
 * SIGKILLs what dir/cgroup.procs lists, counted in *live. What does not fit
 * the buffer (and the pid it cuts) waits for the caller's next round.
 */
static int
kill_procs(const char *dir, size_t *live, struct bx_error *err)
{
	char buf[CGROUP_FILE_MAX], *p, *end;
	long pid;

	if (cgroup_read(dir, "cgroup.procs", buf, sizeof(buf)) == -1)
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
	int64_t until = bx_clock_mono_ms() + CGROUP_DRAIN_MS, pause = 1;
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
		bx_clock_sleep_ms(pause);
		pause = pause * 2 > CGROUP_POLL_MAX_MS ? CGROUP_POLL_MAX_MS :
		    pause * 2;
	}
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
	if ((h->ch_version == 2 ? cgroup_v2_open(h, root, home_id, err) :
	    cgroup_v1_open(h, root, home_id, err)) == -1) {
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

/* The limits as the cgroup files take them, set by the host's version. */
static int
limit(struct cgroup_call *c, int64_t memory_bytes, int64_t pids_max,
    struct bx_error *err)
{
	char memory[32], pids[32];

	snprintf(memory, sizeof(memory), "%" PRId64, memory_bytes);
	snprintf(pids, sizeof(pids), "%" PRId64, pids_max);
	if (c->cc_host->ch_version == 1)
		return cgroup_v1_limit(c->cc_host, c->cc_parent, c->cc_memory,
		    memory, pids, &c->cc_fds, err);
	return cgroup_v2_limit(c->cc_memory, memory, pids, &c->cc_fds, err);
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
	c->cc_fds.cl_oom_event = -1;
	c->cc_fds.cl_start_dir = -1;
	c->cc_pids_watch = -1;
	c->cc_pids = pids;
	snprintf(c->cc_parent, PATH_MAX, "%s/call-%" PRIu64, h->ch_home, seq);
	snprintf(c->cc_memory, PATH_MAX, "%s%s", h->ch_hier[h->ch_memory],
	    c->cc_parent);
	if (cgroup_make_dir(c->cc_memory, false, err) == -1) {
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
	*ret_fds = c->cc_fds.cl_join;
	return c->cc_fds.cl_njoin;
}

int
cgroup_call_start_dir(const struct cgroup_call *c)
{
	return c->cc_fds.cl_start_dir;
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

	if (c->cc_fds.cl_oom_event != -1 &&
	    read(c->cc_fds.cl_oom_event, &n, sizeof(n)) == sizeof(n) && n > 0)
		c->cc_oomed = true;
	if (!c->cc_oomed && cgroup_read(c->cc_memory, c->cc_host->ch_version == 1 ?
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
	for (i = 0; i < c->cc_fds.cl_njoin; i++)
		close(c->cc_fds.cl_join[i]);
	if (c->cc_fds.cl_oom_event != -1)
		close(c->cc_fds.cl_oom_event);
	if (c->cc_fds.cl_start_dir != -1)
		close(c->cc_fds.cl_start_dir);
	if (c->cc_pids_watch != -1)
		close(c->cc_pids_watch);
	free(c);
	return rc;
}
