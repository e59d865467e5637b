/*
 * jail_plan.c: loopd's jail for a loopd.toml, and the ACL entries it needs
 * (jail_plan.h).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "loopd/jail_plan.h"
#include "proto/acl.h"
#include "proto/pathsearch.h"
#include "proto/writefile.h"

/* Where newuidmap is looked for: the system's directories, not PATH's. */
#define MAP_TOOL_DIRS	"/usr/bin:/usr/sbin:/bin:/sbin"
#define RWX		(BX_ACL_READ | BX_ACL_WRITE | BX_ACL_EXEC)

/* Room for the two map tools' paths, kept in the plan's last slots. */
#define TOOL_SLOTS	2

/* A bind, with the ACL entry the jail's uid gets on it. */
struct grant {
	unsigned	g_flags;	/* the bind's: JAIL_BIND_* */
	unsigned	g_perms;	/* BX_ACL_* */
	bool		g_inherit;
};

static const struct grant config_grant = { 0, BX_ACL_READ, false };
static const struct grant memory_grant = { 0, BX_ACL_READ | BX_ACL_EXEC,
    true };
static const struct grant sessions_grant = { JAIL_BIND_WRITE, RWX, true };
static const struct grant loop_grant = { JAIL_BIND_WRITE, RWX, false };
static const struct grant pass_grant = { 0, BX_ACL_EXEC, false };

static int
add(struct jail_plan *p, const char *path, const struct grant *g,
    struct bx_error *err)
{
	size_t n = p->jp_spec.js_nbinds;

	if (n == JAIL_MAX_BINDS - TOOL_SLOTS)
		return bx_fail(err, "loopd's jail has room for %d binds",
		    JAIL_MAX_BINDS - TOOL_SLOTS);
	if ((size_t)snprintf(p->jp_paths[n], PATH_MAX, "%s", path) >=
	    PATH_MAX)
		return bx_fail(err, "%s: the path is too long", path);
	p->jp_binds[n].jb_path = p->jp_paths[n];
	p->jp_binds[n].jb_flags = g->g_flags;
	p->jp_perms[n] = g->g_perms;
	p->jp_inherit[n] = g->g_inherit;
	p->jp_spec.js_nbinds = n + 1;
	return 0;
}

/*
 * The jail gets a socket's whole directory, so the directory must hold
 * that socket and nothing else: [broker] socket set to a path in
 * /run/user/UID would hand the jail the owner's user bus beside it.
 */
static int
check_own_dir(const char *dir, const char *name, struct bx_error *err)
{
	struct dirent *de;
	DIR *d;
	int rc = 0;

	if ((d = opendir(dir)) == NULL)
		return bx_fail(err, "%s: %s", dir, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0 &&
		    strcmp(de->d_name, name) != 0)
			rc = bx_fail(err, "loopd's jail is given %s whole, and "
			    "it holds %s beside %s: give the socket a directory "
			    "of its own (the default run/owner-loop, "
			    "run/loop-broker); " BX_RUNBOOK_JAIL, dir,
			    de->d_name, name);
	closedir(d);
	return rc;
}

/* The directory holding path (a socket's), made if missing. */
static int
add_dir_of(struct jail_plan *p, const char *path, const struct grant *g,
    struct bx_error *err)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		return bx_fail(err, "%s: a socket of loopd's jail needs a "
		    "directory of its own", path);
	*slash = '\0';
	if (bx_mkdir_parents(path, err) == -1 ||
	    check_own_dir(dir, slash + 1, err) == -1)
		return -1;
	return add(p, dir, g, err);
}

static int
add_home_dir(struct jail_plan *p, const char *home, const char *rel,
    const struct grant *g, struct bx_error *err)
{
	char dir[PATH_MAX];

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", home, rel) >=
	    sizeof(dir))
		return bx_fail(err, "%s/%s: the path is too long", home, rel);
	if (bx_mkdir_parents(dir, err) == -1 ||
	    bx_mkdir_private(dir, err) == -1)
		return -1;
	return add(p, dir, g, err);
}

static int
find_map_tools(struct jail_plan *p, struct bx_error *err)
{
	char *uidmap = p->jp_paths[JAIL_MAX_BINDS - 2];
	char *gidmap = p->jp_paths[JAIL_MAX_BINDS - 1];

	if (bx_path_search(MAP_TOOL_DIRS, "newuidmap", "/", uidmap,
	    PATH_MAX) == -1 || bx_path_search(MAP_TOOL_DIRS, "newgidmap",
	    "/", gidmap, PATH_MAX) == -1)
		return bx_fail(err, "newuidmap and newgidmap, which give "
		    "loopd's jail a uid of its own without root, are not "
		    "installed: sudo apt-get install uidmap; "
		    BX_RUNBOOK_JAIL);
	p->jp_spec.js_newuidmap = uidmap;
	p->jp_spec.js_newgidmap = gidmap;
	return 0;
}

static int
add_binds(struct jail_plan *p, const struct loop_config *cfg,
    const char *config_path, struct bx_error *err)
{
	const char *home = cfg->lc_home;

	if (add(p, config_path, &config_grant, err) == -1 ||
	    add_home_dir(p, home, "memory", &memory_grant, err) == -1 ||
	    add_home_dir(p, home, "sessions", &sessions_grant, err) == -1 ||
	    add_dir_of(p, cfg->lc_loop_socket, &loop_grant, err) == -1 ||
	    add_home_dir(p, home, JAIL_PLAN_RELAY_DIR, &pass_grant,
	    err) == -1)
		return -1;
	if (cfg->lc_broker_socket != NULL &&
	    add_dir_of(p, cfg->lc_broker_socket, &pass_grant, err) == -1)
		return -1;
	snprintf(p->jp_relay_dir, sizeof(p->jp_relay_dir), "%s/%s", home,
	    JAIL_PLAN_RELAY_DIR);
	snprintf(p->jp_relay, sizeof(p->jp_relay), "%s/%s", home,
	    JAIL_PLAN_RELAY);
	snprintf(p->jp_core, sizeof(p->jp_core), "%s/memory/core.md", home);
	snprintf(p->jp_sessions, sizeof(p->jp_sessions), "%s/sessions", home);
	return 0;
}

int
jail_plan_make(const struct loop_config *cfg, const char *config_path,
    struct jail_plan *ret, struct bx_error *err)
{
	struct jail_plan *p = ret;

	if (config_path[0] != '/')
		return bx_fail(err, "%s: loopd's jail needs the configuration "
		    "file's absolute path", config_path);
	if ((size_t)snprintf(NULL, 0, "%s/%s", cfg->lc_home,
	    JAIL_PLAN_RELAY) >= PATH_MAX)
		return bx_fail(err, "the home %s is too long for loopd's jail",
		    cfg->lc_home);
	memset(p, 0, sizeof(*p));
	p->jp_spec.js_uid = getuid();
	p->jp_spec.js_gid = getgid();
	p->jp_spec.js_binds = p->jp_binds;
	p->jp_spec.js_pass_fd = -1;
	if (bx_jail_identity(p->jp_spec.js_uid, &p->jp_spec.js_id, err) == -1)
		return -1;
	if (p->jp_spec.js_uid != 0 && find_map_tools(p, err) == -1)
		return -1;
	return add_binds(p, cfg, config_path, err);
}

/*
 * Logs written before the jail (or while it was off) are the owner's,
 * made 0600 without the jail's entry: the turn loop must still append.
 */
static int
grant_old_logs(const struct jail_plan *p, uid_t uid, struct bx_error *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	if ((d = opendir(p->jp_sessions)) == NULL)
		return bx_fail(err, "%s: %s", p->jp_sessions, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || !S_ISREG(st.st_mode) || st.st_uid == uid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", p->jp_sessions,
		    de->d_name);
		rc = bx_acl_allow(path, uid, BX_ACL_READ | BX_ACL_WRITE, false,
		    err);
	}
	closedir(d);
	return rc;
}

int
jail_plan_grant(const struct jail_plan *p, struct bx_error *err)
{
	uid_t uid = p->jp_spec.js_id.ji_uid;
	size_t i;

	for (i = 0; i < p->jp_spec.js_nbinds; i++)
		if (bx_acl_allow(p->jp_binds[i].jb_path, uid, p->jp_perms[i],
		    p->jp_inherit[i], err) == -1)
			return -1;
	if (access(p->jp_core, F_OK) == 0 &&
	    bx_acl_allow(p->jp_core, uid, BX_ACL_READ, false, err) == -1)
		return -1;
	return grant_old_logs(p, uid, err);
}
