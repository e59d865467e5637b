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

#define RWX		(BX_ACL_READ | BX_ACL_WRITE | BX_ACL_EXEC)

static const struct jail_plan_for loop_jail = {
	.pf_role = BX_JAIL_LOOP,
	.pf_jail = "loopd's jail",
	.pf_relay_dir = JAIL_PLAN_RELAY_DIR,
	.pf_relay_name = JAIL_PLAN_RELAY_NAME,
	.pf_socket_dirs = "the default run/owner-loop, run/loop-broker",
};

static const struct jail_grant memory_grant = { 0, BX_ACL_READ | BX_ACL_EXEC,
    true };
static const struct jail_grant sessions_grant = { JAIL_BIND_WRITE, RWX,
    true };
static const struct jail_grant loop_grant = { JAIL_BIND_WRITE, RWX, false };
static const struct jail_grant pass_grant = { 0, BX_ACL_EXEC, false };

int
jail_plan_make(const struct loop_config *cfg, const char *config_path,
    struct jail_plan *ret, struct bx_error *err)
{
	struct jail_plan_for f = loop_jail;
	struct jail_plan *p = ret;

	f.pf_home = cfg->lc_home;
	if (jail_plan_start(p, &f, err) == -1 ||
	    jail_plan_add_config(p, config_path, err) == -1 ||
	    jail_plan_add_home_dir(p, "memory", &memory_grant, err) == -1 ||
	    jail_plan_add_home_dir(p, "sessions", &sessions_grant, err) == -1 ||
	    jail_plan_add_dir_of(p, cfg->lc_loop_socket, &loop_grant,
	    err) == -1 || jail_plan_add_relay(p, err) == -1)
		return -1;
	if (cfg->lc_broker_socket != NULL &&
	    jail_plan_add_dir_of(p, cfg->lc_broker_socket, &pass_grant,
	    err) == -1)
		return -1;
	return 0;
}

/*
 * Logs written before the jail (or while it was off) are the owner's,
 * made 0600 without the jail's entry: the turn loop must still append.
 */
static int
grant_old_logs(const char *sessions, uid_t uid, struct bx_error *err)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int rc = 0;

	if ((d = opendir(sessions)) == NULL)
		return bx_fail(err, "%s: %s", sessions, strerror(errno));
	while (rc == 0 && (de = readdir(d)) != NULL) {
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || !S_ISREG(st.st_mode) || st.st_uid == uid)
			continue;
		snprintf(path, sizeof(path), "%s/%s", sessions, de->d_name);
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
	char core[PATH_MAX], sessions[PATH_MAX];

	snprintf(core, sizeof(core), "%s/memory/core.md", p->jp_home);
	snprintf(sessions, sizeof(sessions), "%s/sessions", p->jp_home);
	if (jail_plan_grant_binds(p, err) == -1)
		return -1;
	if (access(core, F_OK) == 0 &&
	    bx_acl_allow(core, uid, BX_ACL_READ, false, err) == -1)
		return -1;
	return grant_old_logs(sessions, uid, err);
}
