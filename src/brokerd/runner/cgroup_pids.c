/*
 * cgroup_pids.c: whether a call reached its process limit (cgroup.h), so
 * that a call whose forks failed says why instead of only "exit status 2".
 *
 * Two counters, because neither alone is kept everywhere a fork can fail:
 *
 *	pids.events "max N": forks refused by a pids limit. v1, and v2 before
 *	Linux 6.12, count them in the cgroup of the process that forked (a
 *	call's "tool" leaf, podman's libpod-<id>); v2 since 6.12 in the
 *	cgroup whose limit was hit and those above it. So the call's whole
 *	tree is read. podman removes its libpod-<id> when the container
 *	ends, often before brokerd asks, and its counter with it.
 *	pids.peak: the most processes the call's cgroup and those below it
 *	ever held (Linux 6.1 on v2, v1 too here); at the limit, the limit was
 *	reached. It outlives podman's child, being the call's own.
 *
 * A v1 pids controller without either file (kernels before 4.6 lack
 * pids.events) has only pids.current, which says nothing once the call
 * is over: nothing is claimed then.
 *
 * So on v2 before 6.12 with podman (the owner's Debian 12, Linux 6.1) the
 * one counter that saw the refused fork is gone when the call ends. The
 * watch reads it while it is there, with inotify on the call's pids
 * cgroup and every cgroup made below it:
 *
 *	pids.events, which v2 marks modified at every refused fork: a
 *	modification is a hit, even if the file is gone when brokerd looks.
 *	(v1 files, and Linux 6.18's, were seen to send nothing.)
 *	cgroup.events (v2), modified when the cgroup's last process ends,
 *	before podman removes it: the tree's counters are read again then.
 *	A new cgroup: watched, and its counter read at once, for the forks
 *	refused before its watch was added.
 */
#include <sys/inotify.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/cgroup_call.h"
#include "brokerd/runner/cgroup_file.h"

/* One read of the watch's events: enough for a burst of refused forks. */
#define CGROUP_WATCH_BUF	4096
/*
 * Watch descriptors below this are told apart (a call's few cgroups use
 * three each); a higher one's modification only makes a rescan.
 */
#define CGROUP_WATCH_WDS	64

/* Whether path or a cgroup below it counts a refused fork. */
static bool
events_hit(char *path, int depth)
{
	char buf[CGROUP_FILE_MAX], *p;
	struct dirent *de;
	size_t len = strlen(path);
	bool hit = false;
	DIR *d;

	if (cgroup_read(path, "pids.events", buf, sizeof(buf)) == 0 &&
	    (p = strstr(buf, "max ")) != NULL && strtoll(p + 4, NULL, 10) > 0)
		return true;
	if (depth == CGROUP_DEPTH_MAX || (d = opendir(path)) == NULL)
		return false;
	while (!hit && (de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", de->d_name);
		hit = events_hit(path, depth + 1);
		path[len] = '\0';
	}
	closedir(d);
	return hit;
}

bool
cgroup_call_pids_hit(struct cgroup_call *c)
{
	const struct cgroup_host *h = c->cc_host;
	char path[PATH_MAX], buf[64];

	if (c->cc_pids_hit)
		return true;
	snprintf(path, sizeof(path), "%s%s", h->ch_hier[h->ch_pids],
	    c->cc_parent);
	if (cgroup_read(path, "pids.peak", buf, sizeof(buf)) == 0 &&
	    strtoll(buf, NULL, 10) >= c->cc_pids)
		c->cc_pids_hit = true;
	else
		c->cc_pids_hit = events_hit(path, 0);
	return c->cc_pids_hit;
}

/* Whether wd watches a pids.events file (a high one is not known). */
static bool
is_pids_events(const struct cgroup_call *c, int wd)
{
	return wd > 0 && wd < CGROUP_WATCH_WDS &&
	    (c->cc_pids_wds & (1ULL << wd)) != 0;
}

/*
 * Watches path and the cgroups below it (new ones, and each pids.events),
 * and says whether one of them already counts a refused fork.
 */
static bool
watch_tree(struct cgroup_call *c, char *path, int depth)
{
	struct dirent *de;
	size_t len = strlen(path);
	bool hit = false;
	int fd = c->cc_pids_watch, wd;
	DIR *d;

	(void)inotify_add_watch(fd, path, IN_CREATE | IN_ONLYDIR);
	snprintf(path + len, PATH_MAX - len, "/pids.events");
	wd = inotify_add_watch(fd, path, IN_MODIFY);
	if (wd > 0 && wd < CGROUP_WATCH_WDS)
		c->cc_pids_wds |= 1ULL << wd;
	snprintf(path + len, PATH_MAX - len, "/cgroup.events");
	(void)inotify_add_watch(fd, path, IN_MODIFY);
	path[len] = '\0';
	if (depth == CGROUP_DEPTH_MAX || (d = opendir(path)) == NULL)
		return events_hit(path, CGROUP_DEPTH_MAX);
	while ((de = readdir(d)) != NULL) {
		if (de->d_type != DT_DIR || strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		snprintf(path + len, PATH_MAX - len, "/%s", de->d_name);
		hit |= watch_tree(c, path, depth + 1);
		path[len] = '\0';
	}
	closedir(d);
	return hit || events_hit(path, CGROUP_DEPTH_MAX);
}

int
cgroup_call_pids_watch(struct cgroup_call *c)
{
	const struct cgroup_host *h = c->cc_host;
	char path[PATH_MAX];

	if (c->cc_pids_watch != -1)
		return c->cc_pids_watch;
	if ((c->cc_pids_watch = inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) == -1)
		return -1;
	snprintf(path, sizeof(path), "%s%s", h->ch_hier[h->ch_pids],
	    c->cc_parent);
	if (watch_tree(c, path, 0))
		c->cc_pids_hit = true;
	return c->cc_pids_watch;
}

void
cgroup_call_pids_watch_read(struct cgroup_call *c)
{
	const struct cgroup_host *h = c->cc_host;
	char buf[CGROUP_WATCH_BUF]
	    __attribute__((aligned(__alignof__(struct inotify_event))));
	const struct inotify_event *ev;
	char path[PATH_MAX];
	bool rescan = false;
	ssize_t n, at;

	for (;;) {
		n = read(c->cc_pids_watch, buf, sizeof(buf));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (at = 0; at < n; at += sizeof(*ev) + ev->len) {
			ev = (const struct inotify_event *)(buf + at);
			if (ev->mask & IN_MODIFY && is_pids_events(c, ev->wd))
				c->cc_pids_hit = true;
			else if (ev->mask & (IN_MODIFY | IN_CREATE |
			    IN_Q_OVERFLOW))
				rescan = true;
		}
	}
	if (!rescan || c->cc_pids_hit)
		return;
	snprintf(path, sizeof(path), "%s%s", h->ch_hier[h->ch_pids],
	    c->cc_parent);
	if (watch_tree(c, path, 0))
		c->cc_pids_hit = true;
}
