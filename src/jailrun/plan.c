/*
 * plan.c: the part of a jail's plan every jailed program shares
 * (plan.h): its ids, the map tools, and binds made safe to give.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "jailrun/plan.h"
#include "proto/acl.h"
#include "proto/pathsearch.h"
#include "proto/writefile.h"

/* Where newuidmap is looked for: the system's directories, not PATH's. */
#define MAP_TOOL_DIRS	"/usr/bin:/usr/sbin:/bin:/sbin"

/* The relay's directory: the jail passes through it to the socket. */
static const struct jail_grant relay_grant = { 0, BX_ACL_EXEC, false };
static const struct jail_grant config_grant = { 0, BX_ACL_READ, false };

int
jail_plan_add(struct jail_plan *p, const char *path,
    const struct jail_grant *g, struct bx_error *err)
{
	size_t n = p->jp_spec.js_nbinds;

	if (n == JAIL_PLAN_MAX_BINDS)
		return bx_fail(err, "%s has room for %d binds", p->jp_jail,
		    JAIL_PLAN_MAX_BINDS);
	if ((size_t)snprintf(p->jp_paths[n], PATH_MAX, "%s", path) >=
	    PATH_MAX)
		return bx_fail(err, "%s: the path is too long", path);
	p->jp_binds[n].jb_path = p->jp_paths[n];
	p->jp_binds[n].jb_flags = g->jg_flags;
	p->jp_perms[n] = g->jg_perms;
	p->jp_inherit[n] = g->jg_inherit;
	p->jp_spec.js_nbinds = n + 1;
	return 0;
}

/*
 * The jail gets a socket's whole directory, so the directory must hold
 * that socket and nothing else: [broker] socket set to a path in
 * /run/user/UID would hand the jail the owner's user bus beside it.
 */
static int
check_own_dir(const struct jail_plan *p, const char *dir, const char *name,
    struct bx_error *err)
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
			rc = bx_fail(err, "%s is given %s whole, and it holds "
			    "%s beside %s: give the socket a directory of its "
			    "own (%s); " BX_RUNBOOK_JAIL, p->jp_jail, dir,
			    de->d_name, name, p->jp_socket_dirs);
	closedir(d);
	return rc;
}

int
jail_plan_add_dir_of(struct jail_plan *p, const char *path,
    const struct jail_grant *g, struct bx_error *err)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL || slash == dir)
		return bx_fail(err, "%s: a socket of %s needs a directory of "
		    "its own", path, p->jp_jail);
	*slash = '\0';
	if (bx_mkdir_parents(path, err) == -1 ||
	    check_own_dir(p, dir, slash + 1, err) == -1)
		return -1;
	return jail_plan_add(p, dir, g, err);
}

int
jail_plan_add_home_dir(struct jail_plan *p, const char *rel,
    const struct jail_grant *g, struct bx_error *err)
{
	char dir[PATH_MAX];

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", p->jp_home, rel) >=
	    sizeof(dir))
		return bx_fail(err, "%s/%s: the path is too long", p->jp_home,
		    rel);
	if (bx_mkdir_parents(dir, err) == -1 ||
	    bx_mkdir_private(dir, err) == -1)
		return -1;
	return jail_plan_add(p, dir, g, err);
}

int
jail_plan_add_config(struct jail_plan *p, const char *config_path,
    struct bx_error *err)
{
	if (config_path[0] != '/')
		return bx_fail(err, "%s: %s needs the configuration file's "
		    "absolute path", config_path, p->jp_jail);
	return jail_plan_add(p, config_path, &config_grant, err);
}

int
jail_plan_add_relay(struct jail_plan *p, struct bx_error *err)
{
	if (bx_mkdir_parents(p->jp_relay_dir, err) == -1 ||
	    bx_mkdir_private(p->jp_relay_dir, err) == -1)
		return -1;
	return jail_plan_add(p, p->jp_relay_dir, &relay_grant, err);
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
		    "%s a uid of its own without root, are not installed: "
		    "sudo apt-get install uidmap; " BX_RUNBOOK_JAIL,
		    p->jp_jail);
	p->jp_spec.js_newuidmap = uidmap;
	p->jp_spec.js_newgidmap = gidmap;
	return 0;
}

int
jail_plan_start(struct jail_plan *ret, const struct jail_plan_for *f,
    struct bx_error *err)
{
	struct jail_plan *p = ret;

	if ((size_t)snprintf(NULL, 0, "%s/%s/%s", f->pf_home, f->pf_relay_dir,
	    f->pf_relay_name) >= PATH_MAX)
		return bx_fail(err, "the home %s is too long for %s",
		    f->pf_home, f->pf_jail);
	memset(p, 0, sizeof(*p));
	p->jp_jail = f->pf_jail;
	p->jp_socket_dirs = f->pf_socket_dirs;
	p->jp_spec.js_uid = getuid();
	p->jp_spec.js_gid = getgid();
	p->jp_spec.js_binds = p->jp_binds;
	p->jp_spec.js_pass_fd = -1;
	snprintf(p->jp_home, sizeof(p->jp_home), "%s", f->pf_home);
	snprintf(p->jp_relay_dir, sizeof(p->jp_relay_dir), "%s/%s",
	    f->pf_home, f->pf_relay_dir);
	snprintf(p->jp_relay, sizeof(p->jp_relay), "%s/%s/%s", f->pf_home,
	    f->pf_relay_dir, f->pf_relay_name);
	if (bx_jail_identity_of(f->pf_role, p->jp_spec.js_uid,
	    &p->jp_spec.js_id, err) == -1)
		return -1;
	if (p->jp_spec.js_uid != 0 && find_map_tools(p, err) == -1)
		return -1;
	return 0;
}

int
jail_plan_grant_binds(const struct jail_plan *p, struct bx_error *err)
{
	uid_t uid = p->jp_spec.js_id.ji_uid;
	size_t i;

	for (i = 0; i < p->jp_spec.js_nbinds; i++)
		if (p->jp_perms[i] != 0 &&
		    bx_acl_allow(p->jp_binds[i].jb_path, uid, p->jp_perms[i],
		    p->jp_inherit[i], err) == -1)
			return -1;
	return 0;
}
