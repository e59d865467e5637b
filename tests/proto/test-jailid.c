/*
 * test-jailid.c: bx_jail_identity_from (src/proto/jailid.h) on subuid and
 * subgid files the test writes: loopd's jail gets the last id of the
 * user's first range, by name or by uid, and the bridge's jail the id
 * below it; a user with no range, a broken line, a range that ends at the
 * user's own uid or at 0, a range too small for the bridge beside loopd,
 * and no file at all are refused with the fix.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

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
	assert_int_equal(bx_jail_identity_from(BX_JAIL_LOOP, "kyle", 1000,
	    f->uid, f->gid, &id, &err), 0);
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
	assert_int_equal(bx_jail_identity_from(BX_JAIL_LOOP, "kyle", 1000,
	    f->uid, f->gid, &id, &err), 0);
	assert_int_equal(id.ji_uid, 165535);
	assert_int_equal(id.ji_gid, 165535);
}

/* The bridge's ids are the ones below loopd's, in the same ranges. */
static void
test_bridge_below_loop(void **state)
{
	struct files *f = *state;
	struct bx_jail_id loop = { 7, 7 }, bridge = { 7, 7 };
	struct bx_error err;

	put(f->uid, "alice:200000:1000\nkyle:100000:65536\nkyle:300000:10\n");
	put(f->gid, "1000:400000:100\n");
	assert_int_equal(bx_jail_identity_from(BX_JAIL_LOOP, "kyle", 1000,
	    f->uid, f->gid, &loop, &err), 0);
	assert_int_equal(bx_jail_identity_from(BX_JAIL_BRIDGE, "kyle", 1000,
	    f->uid, f->gid, &bridge, &err), 0);
	assert_int_equal(bridge.ji_uid, 165534);
	assert_int_equal(bridge.ji_gid, 400098);
	assert_int_equal(loop.ji_uid, bridge.ji_uid + 1);
	assert_int_equal(loop.ji_gid, bridge.ji_gid + 1);
	assert_string_equal(bx_jail_user(BX_JAIL_BRIDGE), BX_JAIL_BRIDGE_USER);
	assert_string_equal(bx_jail_user(BX_JAIL_LOOP), BX_JAIL_USER);
}

/* Each refusal leaves ret as it was and says what fixes it. */
static void
refused_as(enum bx_jail_role role, struct files *f, const char *uids,
    const char *gids, const char *says)
{
	struct bx_jail_id id = { 7, 7 };
	struct bx_error err;

	put(f->uid, uids);
	put(f->gid, gids);
	assert_int_equal(bx_jail_identity_from(role, "kyle", 1000, f->uid,
	    f->gid, &id, &err), -1);
	assert_int_equal(id.ji_uid, 7);
	assert_int_equal(id.ji_gid, 7);
	if (strstr(err.msg, says) == NULL || strstr(err.msg,
	    "runbook.md#jail-unavailable") == NULL)
		fail_msg("\"%s\" lacks \"%s\" or the runbook", err.msg, says);
}

static void
refused(struct files *f, const char *uids, const char *gids,
    const char *says)
{
	refused_as(BX_JAIL_LOOP, f, uids, gids, says);
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
	/* The bridge needs a second id; the one below loopd's is checked too. */
	refused_as(BX_JAIL_BRIDGE, f, "kyle:100000:1\n", "kyle:1:5\n",
	    "the bridge's jail takes the one below its last");
	refused_as(BX_JAIL_BRIDGE, f, "kyle:1000:2\n", "kyle:1:5\n", "own");
	refused_as(BX_JAIL_BRIDGE, f, "kyle:0:2\n", "kyle:1:5\n", "root's");
	refused_as(BX_JAIL_BRIDGE, f, "kyle:100000:2\n", "kyle:7:1\n",
	    "subgid");
}

static void
test_no_file(void **state)
{
	struct files *f = *state;
	struct bx_jail_id id = { 7, 7 };
	struct bx_error err;

	put(f->gid, "kyle:100000:65536\n");
	assert_int_equal(bx_jail_identity_from(BX_JAIL_LOOP, "kyle", 1000,
	    "/nonexistent/x", f->gid, &id, &err), -1);
	assert_int_equal(id.ji_uid, 7);
	assert_non_null(strstr(err.msg, "/nonexistent/x"));
	assert_non_null(strstr(err.msg, "usermod"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_last_of_first_range,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_matched_by_uid, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_bridge_below_loop, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_file, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
