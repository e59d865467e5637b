/*
 * runner_host.c: what the sandbox runtime learns once, at startup, about
 * the host it runs on (runner.h): the runtime's program and the
 * helper, the home's label, Boxmaker's own paths (the secrets directory
 * among them) with their symlinks resolved (so a grant that reaches them
 * through a link still finds them covered), the host's top-level entries
 * for a grant of "/", the cgroup tree, the tools' user, and any limit
 * this host cannot hold.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/runner_egress.h"
#include "brokerd/runner/runner_impl.h"
#include "brokerd/runner/runner.h"
#include "jail/filter.h"
#include "proto/pathsearch.h"
#include "proto/readfile.h"
#include "proto/sha256.h"
#include "proto/writefile.h"

int
runner_home_id(const char *home, char out[17], struct bx_error *err)
{
	char real[PATH_MAX], hex[BX_HASH_HEX_LEN + 1];
	struct bx_hash h;

	if (realpath(home, real) == NULL)
		return bx_fail(err, "runner: home %s: %s", home,
		    strerror(errno));
	if (bx_sha256(real, strlen(real), &h, err) == -1)
		return -1;
	bx_hash_format(&h, hex);
	memcpy(out, hex, 16);
	out[16] = '\0';
	return 0;
}

static char *
resolve(const char *path)
{
	return realpath(path, NULL);
}

/*
 * name as given if absolute, else as PATH finds it (proto/pathsearch.h):
 * the configuration takes nothing between (TOML_KEY_PROGRAM).
 */
static int
find_program(const char *name, const char *key, char *out, size_t size,
    struct bx_error *err)
{
	if (strchr(name, '/') != NULL) {
		if (access(name, X_OK) == -1)
			return bx_fail(err, "runner: %s %s: %s", key, name,
			    strerror(errno));
		snprintf(out, size, "%s", name);
		return 0;
	}
	if (bx_path_search(getenv("PATH"), name, "/", out, size) == 0)
		return 0;
	return bx_fail(err, "runner: %s \"%s\" is not in PATH's absolute "
	    "directories (is it installed?)", key, name);
}

/*
 * A helper program (bxtool, bxegress): the configured one, the installed
 * one, or the build's, beside brokerd's own directory in the build tree.
 */
static int
find_helper(const char *configured, const char *key, const char *installed,
    const char *name, char *out, size_t size, struct bx_error *err)
{
	char self[PATH_MAX], *slash;
	ssize_t n;

	if (configured != NULL)
		return find_program(configured, key, out, size, err);
	if (access(installed, X_OK) == 0) {
		snprintf(out, size, "%s", installed);
		return 0;
	}
	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
		if ((slash = strrchr(self, '/')) != NULL)
			*slash = '\0';
		snprintf(out, size, "%s/../%s/%s", self, name, name);
		if (access(out, X_OK) == 0)
			return 0;
	}
	return bx_fail(err, "runner: the helper %s is not at %s (set %s)",
	    name, installed, key);
}

static int
find_helpers(struct runner_sandbox *rs, struct bx_error *err)
{
	if (find_helper(rs->rs_cfg.cr_bxtool_path, "runner.bxtool_path",
	    RUNNER_BXTOOL_INSTALLED, "bxtool", rs->rs_bxtool,
	    sizeof(rs->rs_bxtool), err) == -1)
		return -1;
	return find_helper(rs->rs_cfg.cr_bxegress_path, "egress.bxegress_path",
	    RUNNER_BXEGRESS_INSTALLED, "bxegress", rs->rs_bxegress,
	    sizeof(rs->rs_bxegress), err);
}

/* [egress] ca_file, read now so that a mistyped one stops brokerd. */
static int
check_ca_file(const struct runner_sandbox *rs, struct bx_error *err)
{
	enum bx_readfile_why why;
	char *pem;
	size_t len;
	bool has_cert;

	if (rs->rs_cfg.cr_ca_file == NULL)
		return 0;
	if (bx_readfile(rs->rs_cfg.cr_ca_file, EGRESS_CA_MAX, &pem, &len, &why,
	    err) == -1)
		return bx_error_prefix(err, "runner: egress.ca_file");
	has_cert = memmem(pem, len, "-----BEGIN CERTIFICATE-----", 27) != NULL;
	free(pem);
	if (!has_cert)
		return bx_fail(err, "runner: egress.ca_file %s holds no PEM "
		    "certificate", rs->rs_cfg.cr_ca_file);
	return 0;
}

/* Boxmaker's own paths, resolved now; one that does not exist yet as given. */
static int
add_protected(struct runner_sandbox *rs, const char *path, bool parent)
{
	char buf[PATH_MAX], *slash, *real;
	size_t n = rs->rs_host.sh_nprotected;

	if (path == NULL || n == SANDBOX_MAX_PROTECTED)
		return 0;
	snprintf(buf, sizeof(buf), "%s", path);
	if (parent && (slash = strrchr(buf, '/')) != NULL)
		*(slash == buf ? slash + 1 : slash) = '\0';
	if ((real = realpath(buf, NULL)) == NULL && (real = strdup(buf)) ==
	    NULL)
		return -1;
	rs->rs_protected[n] = real;
	rs->rs_host.sh_protected[n] = real;
	rs->rs_host.sh_nprotected++;
	return 0;
}

/* The host's top-level directories and files, for a grant of "/". */
static int
list_root(struct runner_sandbox *rs, struct bx_error *err)
{
	struct dirent *e;
	struct stat st;
	char path[PATH_MAX];
	size_t n = 0;
	DIR *d;

	if ((d = opendir("/")) == NULL)
		return bx_fail(err, "runner: /: %s", strerror(errno));
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.' && (e->d_name[1] == '\0' ||
		    (e->d_name[1] == '.' && e->d_name[2] == '\0')))
			continue;
		snprintf(path, sizeof(path), "/%s", e->d_name);
		if (lstat(path, &st) == -1 ||
		    !(S_ISDIR(st.st_mode) || S_ISREG(st.st_mode)))
			continue;
		if (n == SANDBOX_MAX_ROOT_ENTRIES) {
			closedir(d);
			return bx_fail(err, "runner: / holds more than %d "
			    "directories and files; a grant of / could not "
			    "show them all", SANDBOX_MAX_ROOT_ENTRIES);
		}
		if ((rs->rs_entries[n] = strdup(e->d_name)) == NULL) {
			closedir(d);
			return bx_fail(err, "runner: out of memory");
		}
		rs->rs_host.sh_root_entries[n] = rs->rs_entries[n];
		n++;
	}
	closedir(d);
	rs->rs_host.sh_nroot_entries = n;
	return 0;
}

static int
set_user(struct runner_sandbox *rs, struct bx_error *err)
{
	struct passwd *pw;

	rs->rs_host.sh_uid = (unsigned)geteuid();
	rs->rs_host.sh_gid = (unsigned)getegid();
	if (rs->rs_cfg.cr_user == NULL)
		return 0;
	if (rs->rs_cfg.cr_kind != RUNNER_PODMAN)
		return bx_fail(err, "runner: runner.user is supported with "
		    "kind = \"podman\" only; bwrap runs tools as brokerd's "
		    "user");
	if ((pw = getpwnam(rs->rs_cfg.cr_user)) == NULL)
		return bx_fail(err, "runner: runner.user \"%s\" is no user "
		    "of this host", rs->rs_cfg.cr_user);
	rs->rs_host.sh_uid = (unsigned)pw->pw_uid;
	rs->rs_host.sh_gid = (unsigned)pw->pw_gid;
	snprintf(rs->rs_user, sizeof(rs->rs_user), "%u:%u", rs->rs_host.sh_uid,
	    rs->rs_host.sh_gid);
	rs->rs_backend.bs_user = rs->rs_user;
	return 0;
}

/*
 * podman cannot add a filter to its own, so bxtool installs the program
 * from a file every podman sandbox binds read-only; bxegress, under
 * either runtime, installs it on itself from the same file (--seccomp).
 * Written once, at each start, for all calls.
 */
static int
write_seccomp_file(struct runner_sandbox *rs, const char *home,
    struct bx_error *err)
{
	const struct backend_settings *bs = &rs->rs_backend;
	int fd, rc;

	snprintf(rs->rs_seccomp_file, sizeof(rs->rs_seccomp_file),
	    "%s/broker/seccomp.bpf", home);
	/*
	 * A new file, not the old one rewritten: the old is 0444, which stops
	 * a brokerd that is not root from opening it again, and a sandbox a
	 * killed brokerd left may still bind it.
	 */
	if (unlink(rs->rs_seccomp_file) == -1 && errno != ENOENT)
		return bx_fail(err, "%s: %s", rs->rs_seccomp_file,
		    strerror(errno));
	fd = open(rs->rs_seccomp_file, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0444);
	if (fd == -1)
		return bx_fail(err, "%s: %s", rs->rs_seccomp_file,
		    strerror(errno));
	rc = bx_write_all(fd, bs->bs_seccomp, bs->bs_seccomp_len);
	if (rc == -1)
		bx_fail(err, "%s: %s", rs->rs_seccomp_file, strerror(errno));
	close(fd);
	if (rc == 0)
		rs->rs_backend.bs_seccomp_file = rs->rs_seccomp_file;
	return rc;
}

int
runner_setup(struct runner_sandbox *rs, const struct runner_sandbox_config *c,
    struct bx_error *err)
{
	const struct config_runner *cr = &rs->rs_cfg;
	char real[PATH_MAX];
	const char *program;

	/* The limits first: a host that cannot hold them runs nothing. */
	if (cr->cr_kind == RUNNER_PODMAN && geteuid() != 0 &&
	    access(CGROUP_ROOT "/cgroup.controllers", F_OK) == -1)
		return bx_fail(err, "runner: rootless podman on a cgroup v1 "
		    "host ignores the memory and pids limits; run brokerd as "
		    "root, use kind = \"bwrap\" as root, or move to cgroup v2");
	if (runner_home_id(c->rsc_home, rs->rs_home_id, err) == -1)
		return -1;
	if (cgroup_host_open(CGROUP_ROOT, rs->rs_home_id, &rs->rs_cgroups,
	    err) == -1)
		return bx_error_prefix(err, "runner: the memory and pids limits "
		    "cannot be held");
	program = cr->cr_kind == RUNNER_PODMAN ?
	    (cr->cr_podman_path != NULL ? cr->cr_podman_path : "podman") :
	    (cr->cr_bwrap_path != NULL ? cr->cr_bwrap_path : "bwrap");
	if (find_program(program, cr->cr_kind == RUNNER_PODMAN ?
	    "runner.podman_path" : "runner.bwrap_path", rs->rs_program,
	    sizeof(rs->rs_program), err) == -1 || find_helpers(rs, err) == -1 ||
	    check_ca_file(rs, err) == -1 ||
	    set_user(rs, err) == -1 || list_root(rs, err) == -1)
		return -1;
	snprintf(rs->rs_runner_dir, sizeof(rs->rs_runner_dir),
	    "%s/broker/runner", c->rsc_home);
	if (bx_mkdir_private(rs->rs_runner_dir, err) == -1)
		return bx_error_prefix(err, "runner");
	/* Its real path: bwrap opens what it binds with no link in the way. */
	if (realpath(rs->rs_runner_dir, real) == NULL)
		return bx_fail(err, "runner: %s: %s", rs->rs_runner_dir,
		    strerror(errno));
	snprintf(rs->rs_runner_dir, sizeof(rs->rs_runner_dir), "%s", real);
	snprintf(rs->rs_usr, sizeof(rs->rs_usr), "%s/usr",
	    cr->cr_root != NULL ? cr->cr_root : "");
	if (add_protected(rs, c->rsc_home, false) == -1 ||
	    add_protected(rs, c->rsc_grants, false) == -1 ||
	    add_protected(rs, c->rsc_config_path, true) == -1 ||
	    add_protected(rs, c->rsc_secrets, false) == -1 ||
	    add_protected(rs, c->rsc_broker_socket, true) == -1 ||
	    add_protected(rs, c->rsc_admin_socket, true) == -1 ||
	    add_protected(rs, c->rsc_bridge_socket, true) == -1)
		return bx_fail(err, "runner: out of memory");
	if (seccomp_program(&rs->rs_seccomp, &rs->rs_backend.bs_seccomp_len,
	    err) == -1)
		return bx_error_prefix(err, "runner");
	rs->rs_backend.bs_seccomp = rs->rs_seccomp;
	if (write_seccomp_file(rs, c->rsc_home, err) == -1)
		return bx_error_prefix(err, "runner");
	rs->rs_host.sh_resolve = resolve;
	return 0;
}

/*
 * Removes this home's cgroup where it is empty (cgroup v1: in every
 * hierarchy, since podman makes its children in all of them). A cgroup
 * that still holds a call stays: the next start's sweep removes it.
 */
void
runner_release(struct runner_sandbox *rs)
{
	char path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	if (rs->rs_cgroups == NULL || cgroup_host_version(rs->rs_cgroups) != 1 ||
	    (d = opendir(CGROUP_ROOT)) == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/boxmaker-%s", CGROUP_ROOT,
		    e->d_name, rs->rs_home_id);
		(void)rmdir(path);
	}
	closedir(d);
}
