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
 */
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/cgroup_impl.h"

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
