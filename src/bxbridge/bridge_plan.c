/*
 * bridge_plan.c: the Mattermost bridge's jail (bridge_plan.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxbridge/bridge_plan.h"
#include "proto/acl.h"
#include "proto/writefile.h"

#define RWX		(BX_ACL_READ | BX_ACL_WRITE | BX_ACL_EXEC)

static const struct jail_plan_for bridge_jail = {
	.pf_role = BX_JAIL_BRIDGE,
	.pf_jail = "the bridge's jail",
	.pf_relay_dir = BRIDGE_PLAN_RELAY_DIR,
	.pf_relay_name = BRIDGE_PLAN_RELAY_NAME,
	.pf_socket_dirs = "the default run/bridge-broker",
};

static const struct jail_grant state_grant = { JAIL_BIND_WRITE, RWX, true };
static const struct jail_grant pass_grant = { 0, BX_ACL_EXEC, false };
static const struct jail_grant ca_grant = { 0, BX_ACL_READ, false };
/* A file of root's or another's: its modes let the jail read it or not. */
static const struct jail_grant ca_others_grant = { 0, 0, false };

static int
add_ca_file(struct jail_plan *p, const char *path, struct bx_error *err)
{
	struct stat st;

	if (path[0] != '/')
		return bx_fail(err, "[mattermost] ca_file %s: the bridge's "
		    "jail needs an absolute path", path);
	if (stat(path, &st) == -1)
		return bx_fail(err, "[mattermost] ca_file %s: %s", path,
		    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bx_fail(err, "[mattermost] ca_file %s is not a file of "
		    "certificates", path);
	return jail_plan_add(p, path, st.st_uid == p->jp_spec.js_uid ?
	    &ca_grant : &ca_others_grant, err);
}

/*
 * <home>/bridge is 0755, not private: the state file in it is what `bxctl
 * status` shows, and holds no secret. The plan leaves an existing one be.
 */
static int
make_state_dir(const char *home, struct bx_error *err)
{
	char dir[PATH_MAX];

	if ((size_t)snprintf(dir, sizeof(dir), "%s/%s", home,
	    BRIDGE_PLAN_STATE_DIR) >= sizeof(dir))
		return bx_fail(err, "%s/%s: the path is too long", home,
		    BRIDGE_PLAN_STATE_DIR);
	if (bx_mkdir_parents(dir, err) == -1)
		return -1;
	if (mkdir(dir, 0700) == -1) {
		if (errno == EEXIST)
			return 0;
		return bx_fail(err, "cannot make %s: %s", dir,
		    strerror(errno));
	}
	/* Whatever the umask: bxctl status reads the state in it. */
	if (chmod(dir, 0755) == -1)
		return bx_fail(err, "cannot make %s mode 0755: %s", dir,
		    strerror(errno));
	return 0;
}

int
bridge_plan_make(const struct bridge_plan_input *in, struct jail_plan *ret,
    struct bx_error *err)
{
	struct jail_plan_for f = bridge_jail;
	struct jail_plan *p = ret;

	f.pf_home = in->bp_home;
	if (in->bp_relay_name != NULL)
		f.pf_relay_name = in->bp_relay_name;
	if (jail_plan_start(p, &f, err) == -1 ||
	    make_state_dir(in->bp_home, err) == -1 ||
	    jail_plan_add_config(p, in->bp_config_path, err) == -1 ||
	    jail_plan_add_home_dir(p, BRIDGE_PLAN_STATE_DIR, &state_grant,
	    err) == -1 ||
	    jail_plan_add_dir_of(p, in->bp_broker_socket, &pass_grant,
	    err) == -1 || jail_plan_add_relay(p, err) == -1)
		return -1;
	if (in->bp_ca_file != NULL && add_ca_file(p, in->bp_ca_file,
	    err) == -1)
		return -1;
	return 0;
}

int
bridge_plan_grant(const struct jail_plan *p, struct bx_error *err)
{
	return jail_plan_grant_binds(p, err);
}
