/*
 * machine.c: the checks `bxctl init` makes of this machine (machine.h).
 * Each check reads a few small files and says what it found; the fixes
 * are commands for a Debian 12 machine with systemd.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/init/machine.h"
#include "proto/path.h"
#include "proto/pathsearch.h"
#include "proto/jailid.h"
#include "proto/readfile.h"

/* The files read here are one line, or /etc/subuid's few. */
#define SMALL_FILE_MAX	65536

/* systemd's drop-in that delegates the controllers to every user manager. */
#define DELEGATE_FIX	"sudo mkdir -p /etc/systemd/system/user@.service.d " \
	"&& printf '[Service]\\nDelegate=cpu memory pids\\n' | sudo tee " \
	"/etc/systemd/system/user@.service.d/delegate.conf && sudo " \
	"systemctl daemon-reload, then log in again"

struct checker {
	const struct machine_view	*k_view;
	struct machine_check		*k_checks;
	size_t				 k_n;
};

static void
note(struct checker *k, bool ok, const char *fix, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void
note(struct checker *k, bool ok, const char *fix, const char *fmt, ...)
{
	struct machine_check *c;
	va_list ap;

	if (k->k_n == MACHINE_CHECKS_MAX)
		return;
	c = &k->k_checks[k->k_n++];
	c->mc_ok = ok;
	va_start(ap, fmt);
	vsnprintf(c->mc_what, sizeof(c->mc_what), fmt, ap);
	va_end(ap);
	snprintf(c->mc_fix, sizeof(c->mc_fix), "%s", ok ? "" : fix);
}

/* mv_root + path into buf; path starts with '/'. */
static void
under(const struct machine_view *v, const char *path, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", strcmp(v->mv_root, "/") == 0 ? "" :
	    v->mv_root, path);
}

static bool
exists(const struct machine_view *v, const char *path)
{
	char full[4096];

	under(v, path, full, sizeof(full));
	return access(full, F_OK) == 0;
}

/*
 * The whole file's text, NUL-terminated and malloc'd (the caller frees),
 * or NULL if it cannot be read or is over SMALL_FILE_MAX: then the check
 * says what it lacks rather than judge a file it saw only part of.
 */
static char *
read_small(const struct machine_view *v, const char *path)
{
	char full[4096], *buf;
	struct bx_error ignored;
	size_t len;

	under(v, path, full, sizeof(full));
	if (bx_readfile(full, SMALL_FILE_MAX, &buf, &len, NULL,
	    &ignored) == -1)
		return NULL;
	return buf;
}

/* Whether name is an executable file in one of PATH's absolute directories. */
static bool
on_path(const struct machine_view *v, const char *name)
{
	char found[BX_PATH_MAX + 1];

	return bx_path_search(v->mv_path, name, v->mv_root, found,
	    sizeof(found)) == 0;
}

/* Whether the space-separated list holds word. */
static bool
has_word(const char *list, const char *word)
{
	size_t len = strlen(word);
	const char *p = list;

	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || p[-1] == ' ') &&
		    (p[len] == '\0' || p[len] == ' ' || p[len] == '\n'))
			return true;
		p += len;
	}
	return false;
}

static void
check_program(struct checker *k, enum machine_runtime runtime)
{
	const char *prog = runtime == MACHINE_PODMAN ? "podman" : "bwrap";
	bool found = on_path(k->k_view, prog);

	note(k, found, runtime == MACHINE_PODMAN ?
	    "sudo apt-get install podman uidmap catatonit" :
	    "sudo apt-get install bubblewrap",
	    "%s %s on PATH", prog, found ? "is" : "is not");
}

/* cgroup v1: root only, and only with swap accounting. */
static void
check_cgroup_v1(struct checker *k)
{
	if (k->k_view->mv_uid != 0) {
		note(k, false, "boot with systemd.unified_cgroup_hierarchy=1 "
		    "(cgroup v2), or run brokerd as root",
		    "cgroup v1: a user's brokerd cannot hold the sandboxes' "
		    "memory and pids limits");
		return;
	}
	if (exists(k->k_view, "/sys/fs/cgroup/memory/memory.memsw."
	    "limit_in_bytes"))
		note(k, true, "", "cgroup v1 with swap accounting, as root");
	else
		note(k, false, "add swapaccount=1 to the kernel command line "
		    "and reboot", "cgroup v1 without swap accounting "
		    "(memory.memsw): the memory limit would not cover swap");
}

static void
check_cgroup(struct checker *k)
{
	const struct machine_view *v = k->k_view;
	char path[512], *controllers;

	if (!exists(v, "/sys/fs/cgroup/cgroup.controllers")) {
		check_cgroup_v1(k);
		return;
	}
	if (v->mv_uid == 0) {
		note(k, true, "", "cgroup v2, as root (run brokerd as a "
		    "service with Delegate=yes)");
		return;
	}
	snprintf(path, sizeof(path), "/sys/fs/cgroup/user.slice/user-%u."
	    "slice/user@%u.service/cgroup.controllers", (unsigned)v->mv_uid,
	    (unsigned)v->mv_uid);
	if ((controllers = read_small(v, path)) == NULL) {
		note(k, false, "log in, or enable lingering (below)",
		    "cgroup v2, but no systemd user manager runs for you "
		    "(user@%u.service)", (unsigned)v->mv_uid);
		return;
	}
	if (has_word(controllers, "memory") && has_word(controllers, "pids"))
		note(k, true, "", "cgroup v2 with memory and pids delegated "
		    "to user@%u.service", (unsigned)v->mv_uid);
	else
		note(k, false, DELEGATE_FIX, "cgroup v2, but memory and pids "
		    "are not both delegated to user@%u.service",
		    (unsigned)v->mv_uid);
	free(controllers);
}

static void
check_userns(struct checker *k)
{
	const struct machine_view *v = k->k_view;
	char *clone, *max;
	bool on;

	/* A kernel without the Debian knob has them on. */
	clone = read_small(v, "/proc/sys/kernel/unprivileged_userns_clone");
	max = read_small(v, "/proc/sys/user/max_user_namespaces");
	on = (clone == NULL || atoi(clone) == 1) && (max == NULL ||
	    atoi(max) > 0);
	free(clone);
	free(max);
	note(k, on, "echo kernel.unprivileged_userns_clone=1 | sudo tee "
	    "/etc/sysctl.d/50-userns.conf && sudo sysctl --system",
	    "unprivileged user namespaces are %s", on ? "on" : "off");
}

/* Whether /etc/subuid or /etc/subgid gives the user a range. */
static bool
has_range(const struct machine_view *v, const char *file)
{
	char uid[32], *text, *line, *save = NULL, *colon;
	bool found = false;

	if ((text = read_small(v, file)) == NULL)
		return false;
	snprintf(uid, sizeof(uid), "%u", (unsigned)v->mv_uid);
	for (line = strtok_r(text, "\n", &save); !found && line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if ((colon = strchr(line, ':')) == NULL)
			continue;
		*colon = '\0';
		found = (strcmp(line, v->mv_user) == 0 ||
		    strcmp(line, uid) == 0) &&
		    (colon = strchr(colon + 1, ':')) != NULL &&
		    atol(colon + 1) > 0;
	}
	free(text);
	return found;
}

/*
 * Both jails' ids, as the programs will work them out (proto/jailid.h):
 * the bridge's is the one below loopd's, so the first range must hold two.
 */
static void
check_bridge_ids(struct checker *k, const char *fix)
{
	const struct machine_view *v = k->k_view;
	char subuid[4096], subgid[4096];
	struct bx_jail_id loop, bridge;
	struct bx_error err;

	under(v, BX_SUBUID_FILE, subuid, sizeof(subuid));
	under(v, BX_SUBGID_FILE, subgid, sizeof(subgid));
	if (bx_jail_identity_from(BX_JAIL_LOOP, v->mv_user, v->mv_uid,
	    subuid, subgid, &loop, &err) == -1 ||
	    bx_jail_identity_from(BX_JAIL_BRIDGE, v->mv_user, v->mv_uid,
	    subuid, subgid, &bridge, &err) == -1) {
		note(k, false, fix, "%s", err.msg);
		return;
	}
	note(k, true, "", "your first ranges hold both jails' ids: loopd's "
	    "uid %u and the Mattermost bridge's uid %u",
	    (unsigned)loop.ji_uid, (unsigned)bridge.ji_uid);
}

/* loopd's jail takes its ids from the ranges (proto/jailid.h); podman too. */
static void
check_jail_ids(struct checker *k)
{
	const struct machine_view *v = k->k_view;
	char fix[MACHINE_TEXT_MAX];
	bool ranges, maps;

	ranges = has_range(v, "/etc/subuid") && has_range(v, "/etc/subgid");
	snprintf(fix, sizeof(fix), "sudo usermod --add-subuids 100000-165535 "
	    "--add-subgids 100000-165535 %s", v->mv_user);
	note(k, ranges, fix, "%s subuid and subgid ranges (loopd's jail, the "
	    "Mattermost bridge's and rootless podman take ids from them)",
	    ranges ? "you have" : "you lack");
	if (ranges)
		check_bridge_ids(k, fix);
	maps = on_path(v, "newuidmap") && on_path(v, "newgidmap");
	note(k, maps, "sudo apt-get install uidmap",
	    "newuidmap and newgidmap are %s", maps ? "installed" :
	    "missing");
}

/* As root, each jail (loopd's, the bridge's) runs as a user of its own. */
static void
check_jail_user(struct checker *k, enum bx_jail_role role, const char *jail)
{
	const char *user = bx_jail_user(role);
	char fix[MACHINE_TEXT_MAX], entry[64], *text;
	bool found = false;

	snprintf(entry, sizeof(entry), "%s:", user);
	if ((text = read_small(k->k_view, "/etc/passwd")) != NULL) {
		found = strncmp(text, entry, strlen(entry)) == 0;
		snprintf(entry, sizeof(entry), "\n%s:", user);
		found = found || strstr(text, entry) != NULL;
		free(text);
	}
	snprintf(fix, sizeof(fix), "useradd --system --user-group "
	    "--no-create-home --home-dir /nonexistent --shell "
	    "/usr/sbin/nologin %s", user);
	if (found)
		note(k, true, fix, "the user %s, %s, exists", user, jail);
	else
		note(k, false, fix, "there is no user %s for %s", user, jail);
}

static void
check_linger(struct checker *k)
{
	const struct machine_view *v = k->k_view;
	char path[512], fix[MACHINE_TEXT_MAX];
	bool on;

	snprintf(path, sizeof(path), "/var/lib/systemd/linger/%s", v->mv_user);
	on = exists(v, path);
	snprintf(fix, sizeof(fix), "sudo loginctl enable-linger %s",
	    v->mv_user);
	note(k, on, fix, "lingering is %s", on ? "on: the units run without "
	    "a login" : "off: the units stop when you log out");
}

size_t
machine_check(const struct machine_view *v, enum machine_runtime runtime,
    struct machine_check *checks)
{
	struct checker k = { v, checks, 0 };

	check_program(&k, runtime);
	check_cgroup(&k);
	if (v->mv_uid == 0) {
		check_jail_user(&k, BX_JAIL_LOOP, "loopd's jail");
		check_jail_user(&k, BX_JAIL_BRIDGE, "the bridge's jail");
		return k.k_n;
	}
	check_userns(&k);
	check_jail_ids(&k);
	check_linger(&k);
	return k.k_n;
}
