/*
 * test-bridge-plan.c: the Mattermost bridge's jail plan
 * (src/bxbridge/bridge_plan.h) for a home the test makes, with loopd's
 * sessions and grants beside the bridge's state. The plan binds exactly
 * the table's paths with the table's ACL entries, runs as the bridge's own
 * uid (not the caller's, not loopd's jail's, not 0), and refuses a
 * relative path, a missing or odd ca_file and a socket directory shared
 * with anything else. Then a shell runs in the jail the plan builds and
 * reports what it can reach: its config (read only), its state (read and
 * write), the socket in its socket's directory (not the directory's list),
 * the system's CA certificates, and not the rest of the home nor TCP (no
 * route at all: loopback is down, so not even a refused connection).
 * It needs what the jail needs: as root the user boxmaker-bridge,
 * otherwise a subordinate id range and newuidmap; without them it fails,
 * saying so.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxbridge/bridge_plan.h"
#include "proto/acl.h"
#include "proto/unixsock.h"
#include "testutil.h"

#define RWX		(BX_ACL_READ | BX_ACL_WRITE | BX_ACL_EXEC)
#define OUTPUT_MAX	8192
#define READ_TIMEOUT_MS	60000

struct rig {
	char	*dir;
	char	 home[PATH_MAX];
	char	 config[PATH_MAX];
	char	 socket[PATH_MAX];
	char	 sockdir[PATH_MAX];
	struct bridge_plan_input in;
};

static int
setup(void **state)
{
	struct rig *r = calloc(1, sizeof(*r));

	r->dir = tu_tmpdir();
	chmod(r->dir, 0755);
	snprintf(r->home, sizeof(r->home), "%s/home", r->dir);
	snprintf(r->config, sizeof(r->config), "%s/config/bxbridge.toml",
	    r->dir);
	snprintf(r->sockdir, sizeof(r->sockdir), "%s/run/bridge-broker",
	    r->home);
	snprintf(r->socket, sizeof(r->socket), "%s/bridge.sock", r->sockdir);
	tu_write(r->dir, "config/bxbridge.toml", "# the bridge\n", 13);
	tu_write(r->dir, "home/sessions/s.jsonl", "{}\n", 3);
	tu_write(r->dir, "home/grants/a.toml", "# a grant\n", 10);
	chmod(r->config, 0600);
	r->in.bp_home = r->home;
	r->in.bp_config_path = r->config;
	r->in.bp_broker_socket = r->socket;
	*state = r;
	return 0;
}

static int
teardown(void **state)
{
	struct rig *r = *state;

	tu_rmtree(r->dir);
	free(r);
	return 0;
}

static void
make(struct rig *r, struct jail_plan *p)
{
	struct bx_error err;

	if (bridge_plan_make(&r->in, p, &err) == -1)
		fail_msg("the bridge's jail cannot be planned here: %s",
		    err.msg);
}

static void
expect_bind(const struct jail_plan *p, size_t i, const char *path,
    unsigned flags, unsigned perms, bool inherit)
{
	assert_true(i < p->jp_spec.js_nbinds);
	assert_string_equal(p->jp_binds[i].jb_path, path);
	assert_int_equal(p->jp_binds[i].jb_flags, flags);
	assert_int_equal(p->jp_perms[i], perms);
	assert_int_equal(p->jp_inherit[i], inherit);
}

static void
expect_dir(const char *path, mode_t mode)
{
	struct stat st;

	assert_int_equal(stat(path, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, mode);
	assert_int_equal(st.st_uid, getuid());
}

/* Exactly the table's binds, in its order, with its entries. */
static void
test_binds(void **state)
{
	struct rig *r = *state;
	struct jail_plan p;
	char path[PATH_MAX];

	make(r, &p);
	assert_int_equal(p.jp_spec.js_nbinds, 4);
	expect_bind(&p, 0, r->config, 0, BX_ACL_READ, false);
	snprintf(path, sizeof(path), "%s/bridge", r->home);
	expect_bind(&p, 1, path, JAIL_BIND_WRITE, RWX, true);
	expect_dir(path, 0755);
	expect_bind(&p, 2, r->sockdir, 0, BX_ACL_EXEC, false);
	snprintf(path, sizeof(path), "%s/run/bridge-mattermost", r->home);
	expect_bind(&p, 3, path, 0, BX_ACL_EXEC, false);
	expect_dir(path, 0700);
	assert_string_equal(p.jp_relay_dir, path);
	snprintf(path, sizeof(path), "%s/%s", r->home, BRIDGE_PLAN_RELAY);
	assert_string_equal(p.jp_relay, path);
	assert_string_equal(p.jp_home, r->home);
	assert_int_equal(p.jp_spec.js_pass_fd, -1);
	assert_int_equal(p.jp_spec.js_uid, getuid());
}

/* Its uid is its own: not the caller's, not loopd's jail's, not root. */
static void
test_identity(void **state)
{
	struct rig *r = *state;
	struct bx_jail_id bridge, loop;
	struct jail_plan p;
	struct bx_error err;

	make(r, &p);
	assert_int_equal(bx_jail_identity_of(BX_JAIL_BRIDGE, getuid(),
	    &bridge, &err), 0);
	assert_int_equal(bx_jail_identity(getuid(), &loop, &err), 0);
	assert_int_equal(p.jp_spec.js_id.ji_uid, bridge.ji_uid);
	assert_int_equal(p.jp_spec.js_id.ji_gid, bridge.ji_gid);
	assert_int_not_equal(bridge.ji_uid, loop.ji_uid);
	assert_int_not_equal(bridge.ji_gid, loop.ji_gid);
	assert_int_not_equal(bridge.ji_uid, 0);
	assert_int_not_equal(bridge.ji_uid, getuid());
	assert_string_equal(bx_jail_user(BX_JAIL_BRIDGE), "boxmaker-bridge");
	assert_string_equal(bx_jail_user(BX_JAIL_LOOP), "boxmaker-loop");
}

/* A ca_file is bound read-only; its entry only when it is the caller's. */
static void
test_ca_file(void **state)
{
	struct rig *r = *state;
	struct jail_plan p;
	char ca[PATH_MAX];

	tu_write(r->dir, "ca/private.pem", "-----BEGIN CERTIFICATE-----\n",
	    28);
	snprintf(ca, sizeof(ca), "%s/ca/private.pem", r->dir);
	r->in.bp_ca_file = ca;
	make(r, &p);
	assert_int_equal(p.jp_spec.js_nbinds, 5);
	expect_bind(&p, 4, ca, 0, BX_ACL_READ, false);
	/* Another's file (root's, in /etc): no entry; its modes decide. */
	assert_int_equal(chown(ca, getuid() + 1, (gid_t)-1), 0);
	make(r, &p);
	expect_bind(&p, 4, ca, 0, 0, false);
}

static void
refused(struct rig *r, const char *says)
{
	struct jail_plan p;
	struct bx_error err;

	assert_int_equal(bridge_plan_make(&r->in, &p, &err), -1);
	if (strstr(err.msg, says) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, says);
}

static void
test_refusals(void **state)
{
	struct rig *r = *state;
	char ca[PATH_MAX], bus[PATH_MAX];

	r->in.bp_config_path = "bxbridge.toml";
	refused(r, "bxbridge.toml: the bridge's jail needs the configuration "
	    "file's absolute path");
	r->in.bp_config_path = r->config;
	snprintf(ca, sizeof(ca), "%s/missing.pem", r->dir);
	r->in.bp_ca_file = ca;
	refused(r, "[mattermost] ca_file");
	r->in.bp_ca_file = r->dir;
	refused(r, "is not a file of certificates");
	r->in.bp_ca_file = "ca.pem";
	refused(r, "needs an absolute path");
	r->in.bp_ca_file = NULL;
	/* The socket's directory goes in whole: nothing else may be there. */
	tu_write(r->sockdir, "bus", "", 0);
	snprintf(bus, sizeof(bus), "%s/bus", r->sockdir);
	refused(r, "holds bus beside bridge.sock");
	refused(r, "run/bridge-broker");
	unlink(bus);
	r->in.bp_broker_socket = "/bridge.sock";
	refused(r, "needs a directory of its own");
}

/* The entries land on the binds, and nowhere else of the home. */
static void
test_grant(void **state)
{
	struct rig *r = *state;
	struct jail_plan p;
	struct bx_error err;
	char path[PATH_MAX];
	uid_t uid;

	make(r, &p);
	uid = p.jp_spec.js_id.ji_uid;
	if (bridge_plan_grant(&p, &err) == -1)
		fail_msg("%s", err.msg);
	assert_true(bx_acl_allows(r->config, uid, BX_ACL_READ));
	assert_false(bx_acl_allows(r->config, uid, BX_ACL_WRITE));
	snprintf(path, sizeof(path), "%s/bridge", r->home);
	assert_true(bx_acl_allows(path, uid, RWX));
	assert_true(bx_acl_allows(r->sockdir, uid, BX_ACL_EXEC));
	assert_false(bx_acl_allows(r->sockdir, uid, BX_ACL_READ));
	assert_true(bx_acl_allows(p.jp_relay_dir, uid, BX_ACL_EXEC));
	assert_false(bx_acl_allows(r->home, uid, BX_ACL_EXEC));
	snprintf(path, sizeof(path), "%s/sessions", r->home);
	assert_false(bx_acl_allows(path, uid, BX_ACL_EXEC));
}

/* What the shell says on descriptor 3, to its "end" line. */
static void
read_report(int fd, char *out, size_t size)
{
	struct pollfd pfd = { fd, POLLIN, 0 };
	size_t len = 0;
	ssize_t n;

	out[0] = '\0';
	while (strstr(out, "end\n") == NULL) {
		if (poll(&pfd, 1, READ_TIMEOUT_MS) != 1)
			fail_msg("the jailed shell said nothing for %d ms; so "
			    "far:\n%s", READ_TIMEOUT_MS, out);
		n = read(fd, out + len, size - 1 - len);
		if (n <= 0)
			fail_msg("the jailed shell ended before \"end\":\n%s",
			    out);
		len += (size_t)n;
		out[len] = '\0';
	}
}

static void
expect_line(const char *out, const char *line)
{
	char want[256];

	snprintf(want, sizeof(want), "\n%s\n", line);
	if (strncmp(out, want + 1, strlen(want + 1)) != 0 &&
	    strstr(out, want) == NULL)
		fail_msg("the jailed shell did not say \"%s\":\n%s", line, out);
}

/*
 * Each probe prints its name and "ok", or the errno its error message
 * names; what the commands print goes nowhere.
 */
static const char probes[] =
    "exec 1>&3 2>/dev/null\n"
    "p() { n=$1; shift; e=$(\"$@\" 2>&1 >/dev/null) && e=ok\n"
    "  case $e in ok) ;; *'No such file'*) e=ENOENT ;;\n"
    "  *'Permission denied'*) e=EACCES ;; *'Read-only'*) e=EROFS ;;\n"
    "  *'Network is unreachable'*) e=ENETUNREACH ;; *) e=\"other: $e\" ;;\n"
    "  esac; echo \"$n $e\"; }\n"
    "echo \"uid $(id -u) $(id -g)\"\n"
    "p read-config cat \"$1\"\n"
    "p write-config sh -c 'echo x >> \"$0\"' \"$1\"\n"
    "p write-state sh -c 'echo s > \"$0/bridge/state\"' \"$2\"\n"
    "p sessions ls \"$2/sessions\"\n"
    "p grants ls \"$2/grants\"\n"
    "p broker-sock test -S \"$3/bridge.sock\"\n"
    "p list-sockdir ls \"$3\"\n"
    "p ca-certs cat /etc/ssl/certs/ca-certificates.crt\n"
    "p tcp bash -c 'exec 4<>/dev/tcp/127.0.0.1/9'\n"
    "echo end\n";

static void
test_in_jail(void **state)
{
	struct rig *r = *state;
	struct bx_unix_file made;
	struct jail_plan p;
	struct bx_error err;
	char uid[64], out[OUTPUT_MAX], state_path[PATH_MAX];
	char *argv[] = { "bash", "-c", (char *)probes, "bash", r->config,
	    r->home, r->sockdir, NULL };
	char *envp[] = { "PATH=/usr/bin:/bin", NULL };
	int lfd, exe, pipefd[2];
	pid_t pid;

	make(r, &p);
	if (bridge_plan_grant(&p, &err) == -1)
		fail_msg("%s", err.msg);
	if (bx_unix_listen(r->socket, 4, 0, &lfd, &made, &err) == -1)
		fail_msg("%s", err.msg);
	chmod(r->socket, 0777);
	assert_true((exe = open("/bin/bash", O_RDONLY | O_CLOEXEC)) >= 0);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	p.jp_spec.js_pass_fd = pipefd[1];
	if (jail_spawn(&p.jp_spec, exe, argv, envp, &pid, &err) == -1)
		fail_msg("jail_spawn: %s", err.msg);
	close(pipefd[1]);
	close(exe);
	read_report(pipefd[0], out, sizeof(out));
	close(pipefd[0]);
	print_message("%s", out);
	snprintf(uid, sizeof(uid), "uid %u %u",
	    (unsigned)p.jp_spec.js_id.ji_uid, (unsigned)p.jp_spec.js_id.ji_gid);
	expect_line(out, uid);
	expect_line(out, "read-config ok");
	expect_line(out, "write-config EACCES");
	expect_line(out, "write-state ok");
	expect_line(out, "sessions ENOENT");
	expect_line(out, "grants ENOENT");
	expect_line(out, "broker-sock ok");
	expect_line(out, "list-sockdir EACCES");
	expect_line(out, "ca-certs ok");
	expect_line(out, "tcp ENETUNREACH");
	while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
		continue;
	/* What the bridge wrote stays the owner's to read. */
	snprintf(state_path, sizeof(state_path), "%s/bridge/state", r->home);
	assert_true(bx_acl_allows(state_path, getuid(), BX_ACL_READ));
	close(lfd);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_binds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_identity, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_ca_file, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_grant, setup, teardown),
		cmocka_unit_test_setup_teardown(test_in_jail, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
