/*
 * test-jailid.c: bx_jail_identity_from (src/proto/jailid.h) on subuid and
 * subgid files the test writes: the last id of the user's first range, by
 * name or by uid; a user with no range, a broken line, a range that ends at
 * the user's own uid or at 0, and no file at all are refused with the fix.
 * And root's bridge jail: the system user boxmaker-bridge, never loopd's
 * uid, or an error naming the user when the system has none.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <pwd.h>

#include "proto/jailid.h"

struct files {
	char	dir[256];
	char	uid[300];
	char	gid[300];
};

static void
put(const char *path, const char *text)
{
	FILE *fp;

	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

static int
setup(void **state)
{
	struct files *f = calloc(1, sizeof(*f));

	snprintf(f->dir, sizeof(f->dir), "%s/bx-jailid-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	snprintf(f->uid, sizeof(f->uid), "%s/subuid", f->dir);
	snprintf(f->gid, sizeof(f->gid), "%s/subgid", f->dir);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct files *f = *state;

	unlink(f->uid);
	unlink(f->gid);
	rmdir(f->dir);
	free(f);
	return 0;
}

static void
test_last_of_first_range(void **state)
{
	struct files *f = *state;
	struct bx_jail_id id = { 7, 7 };
	struct bx_error err;

	put(f->uid, "alice:200000:1000\nkyle:100000:65536\nkyle:300000:10\n");
	put(f->gid, "kyle:400000:100\n");
	assert_int_equal(bx_jail_identity_from("kyle", 1000, f->uid, f->gid,
	    &id, &err), 0);
	assert_int_equal(id.ji_uid, 165535);
	assert_int_equal(id.ji_gid, 400099);
}

static void
test_matched_by_uid(void **state)
{
	struct files *f = *state;
	struct bx_jail_id id = { 7, 7 };
	struct bx_error err;

	put(f->uid, "1000:100000:65536\n");
	put(f->gid, "kyle:100000:65536");
	assert_int_equal(bx_jail_identity_from("kyle", 1000, f->uid, f->gid,
	    &id, &err), 0);
	assert_int_equal(id.ji_uid, 165535);
	assert_int_equal(id.ji_gid, 165535);
}

/* Each refusal leaves ret as it was and says what fixes it. */
static void
refused(struct files *f, const char *uids, const char *gids,
    const char *says)
{
	struct bx_jail_id id = { 7, 7 };
	struct bx_error err;

	put(f->uid, uids);
	put(f->gid, gids);
	assert_int_equal(bx_jail_identity_from("kyle", 1000, f->uid, f->gid,
	    &id, &err), -1);
	assert_int_equal(id.ji_uid, 7);
	assert_int_equal(id.ji_gid, 7);
	if (strstr(err.msg, says) == NULL || strstr(err.msg,
	    "runbook.md#jail-unavailable") == NULL)
		fail_msg("\"%s\" lacks \"%s\" or the runbook", err.msg, says);
}

static void
test_refusals(void **state)
{
	struct files *f = *state;

	refused(f, "alice:100000:65536\n", "kyle:1:1\n", "usermod");
	refused(f, "kyle:100000:65536\n", "alice:1:1\n", "subgid");
	refused(f, "kyle:100000:0\n", "kyle:1:1\n", "no range");
	refused(f, "kyle:10x:5\n", "kyle:1:1\n", "no range");
	refused(f, "kyle:100000\n", "kyle:1:1\n", "no range");
	refused(f, "kyle:4294967290:10\n", "kyle:1:1\n", "no range");
	refused(f, "kyle:1000:1\n", "kyle:1:1\n", "own");
	refused(f, "kyle:0:1\n", "kyle:1:1\n", "root's");
}

static void
test_no_file(void **state)
{
	struct files *f = *state;
	struct bx_jail_id id = { 7, 7 };
	struct bx_error err;

	put(f->gid, "kyle:100000:65536\n");
	assert_int_equal(bx_jail_identity_from("kyle", 1000, "/nonexistent/x",
	    f->gid, &id, &err), -1);
	assert_int_equal(id.ji_uid, 7);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	assert_non_null(strstr(err.msg, "usermod"));
}

/* Root's two jails: each its own system user, the bridge's never loopd's. */
static void
test_root_bridge_user(void **state)
{
	struct bx_jail_id loop, bridge = { 7, 7 };
	struct passwd *pw;
	struct bx_error err;
	uid_t want;

	(void)state;
	pw = getpwnam(BX_JAIL_BRIDGE_USER);
	if (pw == NULL) {
		assert_int_equal(bx_jail_identity_of(BX_JAIL_BRIDGE, 0, &bridge,
		    &err), -1);
		assert_int_equal(bridge.ji_uid, 7);
		assert_non_null(strstr(err.msg, "there is no user "
		    BX_JAIL_BRIDGE_USER));
		assert_non_null(strstr(err.msg, "useradd"));
		return;
	}
	want = pw->pw_uid;
	assert_int_equal(bx_jail_identity_of(BX_JAIL_BRIDGE, 0, &bridge, &err),
	    0);
	assert_int_equal(bridge.ji_uid, want);
	if (bx_jail_identity_of(BX_JAIL_LOOP, 0, &loop, &err) == 0)
		assert_int_not_equal(loop.ji_uid, bridge.ji_uid);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_last_of_first_range,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_matched_by_uid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_file, setup,
		    teardown),
		cmocka_unit_test(test_root_bridge_user),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
