/*
 * test-machine.c: what `bxctl init` finds on a machine (bxctl/init/machine.h),
 * on made-up trees: an owner's machine with everything (its ranges
 * holding both jails' ids), then each thing taken away, and root on
 * cgroup v1 and v2.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxctl/init/machine.h"
#include "grants-fixture.h"

#define USER_SLICE	"sys/fs/cgroup/user.slice/user-1000.slice/" \
			"user@1000.service"

static char *root;

/* Writes text at root/path, making its directories. */
static void
put(const char *path, const char *text)
{
	char dir[4096], *slash;

	snprintf(dir, sizeof(dir), "%s/%s", root, path);
	for (slash = strchr(dir + strlen(root) + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(dir, 0755);
		*slash = '/';
	}
	fixture_write(root, path, text, strlen(text));
}

static void
put_program(const char *path)
{
	char full[4096];

	put(path, "#!/bin/sh\n");
	snprintf(full, sizeof(full), "%s/%s", root, path);
	assert_int_equal(chmod(full, 0755), 0);
}

static void
drop(const char *path)
{
	char full[4096];

	snprintf(full, sizeof(full), "%s/%s", root, path);
	assert_int_equal(unlink(full), 0);
}

/* An owner's Debian 12 with systemd, cgroup v2, podman and bwrap. */
static int
setup(void **state)
{
	(void)state;
	root = fixture_dir();
	put("sys/fs/cgroup/cgroup.controllers", "cpuset cpu io memory pids\n");
	put(USER_SLICE "/cgroup.controllers", "cpu memory pids\n");
	put("proc/sys/kernel/unprivileged_userns_clone", "1\n");
	put("proc/sys/user/max_user_namespaces", "63459\n");
	put("etc/subuid", "other:100000:65536\nkyle:165536:65536\n");
	put("etc/subgid", "1000:165536:65536\n");
	put("var/lib/systemd/linger/kyle", "");
	put_program("usr/bin/podman");
	put_program("usr/bin/bwrap");
	put_program("usr/bin/newuidmap");
	put_program("usr/bin/newgidmap");
	put("etc/passwd", "root:x:0:0::/root:/bin/sh\n"
	    "boxmaker-loop:x:999:995::/nonexistent:/usr/sbin/nologin\n"
	    "boxmaker-bridge:x:998:994::/nonexistent:/usr/sbin/nologin\n");
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	fixture_remove(root);
	free(root);
	return 0;
}

struct result {
	size_t			n;
	struct machine_check	c[MACHINE_CHECKS_MAX];
};

static void
run(uid_t uid, enum machine_runtime runtime, struct result *r)
{
	struct machine_view v = { root, uid, "kyle", "/usr/local/bin:/usr/bin" };

	r->n = machine_check(&v, runtime, r->c);
	assert_true(r->n <= MACHINE_CHECKS_MAX);
}

/* The one check that says what; fails the test if there is none. */
static const struct machine_check *
find(const struct result *r, const char *what)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (strstr(r->c[i].mc_what, what) != NULL)
			return &r->c[i];
	fail_msg("no check says \"%s\"", what);
	return NULL;
}

static void
all_ok(const struct result *r)
{
	size_t i;

	for (i = 0; i < r->n; i++)
		if (!r->c[i].mc_ok)
			fail_msg("not ok: %s", r->c[i].mc_what);
}

static void
missing(uid_t uid, enum machine_runtime runtime, const char *what,
    const char *fix)
{
	const struct machine_check *c;
	struct result r;

	run(uid, runtime, &r);
	c = find(&r, what);
	assert_false(c->mc_ok);
	if (strstr(c->mc_fix, fix) == NULL)
		fail_msg("the fix \"%s\" lacks \"%s\"", c->mc_fix, fix);
}

static void
test_owner_has_everything(void **state)
{
	struct result r;

	(void)state;
	run(1000, MACHINE_PODMAN, &r);
	assert_int_equal(r.n, 7);
	all_ok(&r);
	assert_string_equal(find(&r, "cgroup v2")->mc_what, "cgroup v2 with "
	    "memory and pids delegated to user@1000.service");
	/* kyle's first range, 165536 and 65536 more: the top two ids. */
	assert_string_equal(find(&r, "both jails")->mc_what, "your first "
	    "ranges hold both jails' ids: loopd's uid 231071 and the "
	    "Mattermost bridge's uid 231070");
	run(1000, MACHINE_BWRAP, &r);
	assert_int_equal(r.n, 7);	/* the jails need the ranges too */
	all_ok(&r);
}

static void
test_owner_lacks_each(void **state)
{
	(void)state;
	put(USER_SLICE "/cgroup.controllers", "cpu memory\n");
	missing(1000, MACHINE_BWRAP, "not both delegated", "Delegate=");
	drop(USER_SLICE "/cgroup.controllers");
	missing(1000, MACHINE_BWRAP, "no systemd user manager", "lingering");
	put(USER_SLICE "/cgroup.controllers", "cpu memory pids\n");
	put("proc/sys/kernel/unprivileged_userns_clone", "0\n");
	missing(1000, MACHINE_PODMAN, "user namespaces are off",
	    "unprivileged_userns_clone=1");
	put("proc/sys/kernel/unprivileged_userns_clone", "1\n");
	put("etc/subgid", "kyle:165536:0\n");
	missing(1000, MACHINE_PODMAN, "you lack subuid and subgid",
	    "usermod --add-subuids 100000-165535 --add-subgids 100000-165535 "
	    "kyle");
	missing(1000, MACHINE_BWRAP, "you lack subuid and subgid",
	    "usermod --add-subuids");
	/* A range of one id holds loopd's jail but not the bridge's too. */
	put("etc/subgid", "kyle:165536:1\n");
	missing(1000, MACHINE_BWRAP, "first range holds 1 id, and the "
	    "bridge's jail takes the one below its last",
	    "usermod --add-subuids 100000-165535 --add-subgids 100000-165535 "
	    "kyle");
	put("etc/subuid", "kyle:165536:1\n");
	put("etc/subgid", "kyle:165536:65536\n");
	missing(1000, MACHINE_PODMAN, "/etc/subuid: kyle's first range holds "
	    "1 id", "usermod --add-subuids");
	put("etc/subuid", "other:100000:65536\nkyle:165536:65536\n");
	drop("usr/bin/newgidmap");
	missing(1000, MACHINE_PODMAN, "newgidmap are missing", "uidmap");
	missing(1000, MACHINE_BWRAP, "newgidmap are missing", "uidmap");
	drop("var/lib/systemd/linger/kyle");
	missing(1000, MACHINE_BWRAP, "lingering is off",
	    "loginctl enable-linger kyle");
	drop("usr/bin/bwrap");
	missing(1000, MACHINE_BWRAP, "bwrap is not on PATH", "bubblewrap");
}

static void
test_cgroup_v1(void **state)
{
	struct result r;

	(void)state;
	drop("sys/fs/cgroup/cgroup.controllers");
	missing(1000, MACHINE_BWRAP, "cgroup v1: a user's brokerd",
	    "run brokerd as root");
	missing(0, MACHINE_PODMAN, "without swap accounting", "swapaccount=1");
	put("sys/fs/cgroup/memory/memory.memsw.limit_in_bytes", "0\n");
	run(0, MACHINE_PODMAN, &r);
	/* root: program, cgroups, the two jails' users */
	assert_int_equal(r.n, 4);
	all_ok(&r);
	assert_string_equal(r.c[1].mc_what, "cgroup v1 with swap accounting, "
	    "as root");
}

static void
test_root_on_v2(void **state)
{
	struct result r;

	(void)state;
	drop("var/lib/systemd/linger/kyle");
	run(0, MACHINE_BWRAP, &r);
	assert_int_equal(r.n, 4);
	all_ok(&r);
	assert_non_null(strstr(r.c[1].mc_what, "Delegate=yes"));
	assert_string_equal(r.c[2].mc_what,
	    "the user boxmaker-loop, loopd's jail, exists");
	assert_string_equal(r.c[3].mc_what,
	    "the user boxmaker-bridge, the bridge's jail, exists");
	/* Each missing user is named with its own fix. */
	put("etc/passwd", "root:x:0:0::/root:/bin/sh\n"
	    "boxmaker-bridge:x:998:994::/nonexistent:/usr/sbin/nologin\n");
	missing(0, MACHINE_BWRAP, "there is no user boxmaker-loop",
	    "--shell /usr/sbin/nologin boxmaker-loop");
	run(0, MACHINE_BWRAP, &r);
	assert_true(r.c[3].mc_ok);
	put("etc/passwd", "root:x:0:0::/root:/bin/sh\n"
	    "boxmaker-loop:x:999:995::/nonexistent:/usr/sbin/nologin\n");
	missing(0, MACHINE_BWRAP, "there is no user boxmaker-bridge for the "
	    "bridge's jail", "--shell /usr/sbin/nologin boxmaker-bridge");
	run(0, MACHINE_BWRAP, &r);
	assert_true(r.c[2].mc_ok);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_owner_has_everything,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_owner_lacks_each, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_v1, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_root_on_v2, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
