/*
 * test-broker-cost.c: the work a call leaves out (issue 17's cuts), each
 * asserted on what it would have left behind: a result that raises
 * nothing writes no session state file, and a decision hashes one grant
 * file, the matched one, whose bytes are the ones it decided on.
 */
#include <sys/stat.h>

#include <errno.h>
#include <pthread.h>
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

/* The hashes taken since hashed_reset(), in order. */
#define HASHED_MAX	64
static pthread_mutex_t hashed_lock = PTHREAD_MUTEX_INITIALIZER;
static struct bx_hash hashed[HASHED_MAX];
static size_t nhashed;

int
__wrap_bx_sha256(const void *buf, size_t len, struct bx_hash *ret,
    struct bx_error *err)
{
	struct bx_hash h;

	if (__real_bx_sha256(buf, len, &h, err) == -1)
		return -1;
	pthread_mutex_lock(&hashed_lock);
	if (nhashed < HASHED_MAX)
		hashed[nhashed++] = h;
	pthread_mutex_unlock(&hashed_lock);
	*ret = h;
	return 0;
}

static void
hashed_reset(void)
{
	pthread_mutex_lock(&hashed_lock);
	nhashed = 0;
	pthread_mutex_unlock(&hashed_lock);
}

/* How many of the hashes taken since hashed_reset() were of text. */
static int
hashed_times(const char *text)
{
	struct bx_hash h;
	struct bx_error err;
	size_t i;
	int n = 0;

	assert_int_equal(__real_bx_sha256(text, strlen(text), &h, &err), 0);
	pthread_mutex_lock(&hashed_lock);
	assert_true(nhashed < HASHED_MAX);
	for (i = 0; i < nhashed; i++)
		n += bx_hash_equal(&hashed[i], &h);
	pthread_mutex_unlock(&hashed_lock);
	return n;
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

#define NGRANTS		10
#define GRANT_TEXT_MAX	512

/*
 * grants/<id>.toml with text, written whole; ten of them: g0 allows
 * read_file under /notes, the others cover other directories.
 */
static void
write_grant(struct bfix *f, const char *id, const char *text)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s.toml", f->grants, id);
	assert_non_null(fp = fopen(path, "w"));
	assert_int_equal(fputs(text, fp) >= 0, 1);
	assert_int_equal(fclose(fp), 0);
}

static void
grant_text(char *buf, size_t len, int i, const char *tail)
{
	snprintf(buf, len, "tool = \"read_file\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n"
	    "expires = \"2099-01-01T00:00:00.000Z\"\n\n[constraints]\n"
	    "paths = [\"/%s%d\"]\n%s", i == 0 ? "notes" : "other", i, tail);
}

/* The ten grant files g0 to g9, each ending in tail; texts gets them. */
static void
write_grants(struct bfix *f, char texts[NGRANTS][GRANT_TEXT_MAX],
    const char *tail)
{
	char id[16];
	int i;

	for (i = 0; i < NGRANTS; i++) {
		grant_text(texts[i], GRANT_TEXT_MAX, i, tail);
		snprintf(id, sizeof(id), "g%d", i);
		write_grant(f, id, texts[i]);
	}
}

/* The last Decision record's grant_sha256 must be text's hash. */
static void
expect_recorded_hash(struct bfix *f, const char *text)
{
	struct bx_audit_record *r;
	struct bx_hash want;
	struct bx_error err;
	size_t n, i;

	assert_int_equal(__real_bx_sha256(text, strlen(text), &want, &err), 0);
	n = bfix_records(f, &r);
	for (i = n; i > 0 && r[i - 1].event.type != BX_AUDIT_DECISION; i--)
		;
	assert_true(i > 0);
	assert_true(r[i - 1].event.decision.has_grant_sha256);
	assert_true(bx_hash_equal(&r[i - 1].event.decision.grant_sha256,
	    &want));
	bfix_records_free(r, n);
}

/*
 * Of ten grant files read for the call, only the matched one is hashed,
 * once, and the Decision record holds that hash. A same-size rewrite of
 * it straight after (one that a size and mtime check could miss, within
 * one timestamp tick) is what the next call hashes: the file is read
 * afresh and the hash is of the bytes decided on.
 */
static void
test_only_the_matched_grant_is_hashed(void **state)
{
	struct bfix *f = *state;
	char texts[NGRANTS][GRANT_TEXT_MAX], again[GRANT_TEXT_MAX];
	int i;

	write_grants(f, texts, "# v1\n");
	hashed_reset();
	read_ok(f, "s1", "c1", "/notes0/a");
	assert_int_equal(hashed_times(texts[0]), 1);
	for (i = 1; i < NGRANTS; i++)
		assert_int_equal(hashed_times(texts[i]), 0);
	expect_recorded_hash(f, texts[0]);

	grant_text(again, sizeof(again), 0, "# v2\n");
	assert_int_equal(strlen(again), strlen(texts[0]));
	write_grant(f, "g0", again);
	hashed_reset();
	read_ok(f, "s1", "c2", "/notes0/b");
	assert_int_equal(hashed_times(again), 1);
	assert_int_equal(hashed_times(texts[0]), 0);
	expect_recorded_hash(f, again);
}

/* A denial with no grant hashes no grant file at all. */
static void
test_a_denial_hashes_no_grant(void **state)
{
	struct bfix *f = *state;
	char texts[NGRANTS][GRANT_TEXT_MAX];
	struct bpeer p;
	int i;

	write_grants(f, texts, "");
	hashed_reset();
	bpeer_init(&p);
	bfix_call(f, &p, "s1", "c1", "read_file", "{\"path\":\"/etc/x\"}");
	assert_true(bpeer_saw(&p, "no_grant"));
	bpeer_free(&p);
	for (i = 0; i < NGRANTS; i++)
		assert_int_equal(hashed_times(texts[i]), 0);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_unchanged_state_is_not_rewritten),
		T(test_first_raise_creates_the_file),
		T(test_only_the_matched_grant_is_hashed),
		T(test_a_denial_hashes_no_grant),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
