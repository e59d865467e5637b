/*
 * test-state.c: session state files (design section 4) and the per-session
 * hold (baseline section 6).
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/state.h"

struct fixture {
	char			 home[PATH_MAX];
	struct state_store	*store;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	struct bx_error err;

	snprintf(f->home, sizeof(f->home), "/tmp/bx-state-XXXXXX");
	assert_non_null(mkdtemp(f->home));
	f->store = state_open(f->home, &err);
	assert_non_null(f->store);
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[PATH_MAX + 16];

	state_close(f->store);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", f->home);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static void
put_file(struct fixture *f, const char *name, const char *text)
{
	char path[PATH_MAX];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/broker/sessions/%s", f->home, name);
	assert_non_null(fp = fopen(path, "w"));
	fputs(text, fp);
	fclose(fp);
}

static void
test_absent_file_is_private_and_trusted(void **state)
{
	struct fixture *f = *state;
	struct state_value v = { BX_CLASS_SECRET, true };
	struct bx_error err;
	struct stat st;
	char dir[PATH_MAX];

	assert_int_equal(state_read(f->store, "chat-1", &v, &err), 0);
	assert_int_equal(v.taint, BX_CLASS_PRIVATE);
	assert_false(v.untrusted);
	snprintf(dir, sizeof(dir), "%s/broker/sessions", f->home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
}

static void
test_write_then_read(void **state)
{
	struct fixture *f = *state;
	struct state_value v = { BX_CLASS_SECRET, true }, got;
	struct bx_error err;
	struct stat st;
	char path[PATH_MAX], buf[128];
	FILE *fp;
	size_t n;

	assert_int_equal(state_write(f->store, "chat-1", &v, &err), 0);
	assert_int_equal(state_read(f->store, "chat-1", &got, &err), 0);
	assert_int_equal(got.taint, BX_CLASS_SECRET);
	assert_true(got.untrusted);
	snprintf(path, sizeof(path), "%s/broker/sessions/chat-1.json",
	    f->home);
	assert_non_null(fp = fopen(path, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	fclose(fp);
	buf[n] = '\0';
	assert_string_equal(buf, "{\"taint\":\"secret\",\"untrusted\":true}");
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	strcat(path, ".tmp");
	assert_int_equal(access(path, F_OK), -1);
}

static void
expect_damaged(struct fixture *f, const char *what)
{
	struct state_value v = { BX_CLASS_PUBLIC, false }, before = v;
	struct bx_error err;

	assert_int_equal(state_read(f->store, "s1", &v, &err), -1);
	assert_non_null(strstr(err.msg, "s1.json"));
	if (what != NULL && strstr(err.msg, what) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err.msg, what);
	assert_memory_equal(&v, &before, sizeof(v));
}

static void
test_damaged_files_are_errors(void **state)
{
	struct fixture *f = *state;
	char path[PATH_MAX];

	put_file(f, "s1.json", "{\"taint\":\"private\"");
	expect_damaged(f, "not valid JSON");
	put_file(f, "s1.json", "");
	expect_damaged(f, "not valid JSON");
	put_file(f, "s1.json", "{\"taint\":\"private\",\"untrusted\":false,"
	    "\"x\":1}");
	expect_damaged(f, NULL);
	put_file(f, "s1.json", "{\"taint\":\"private\",\"untrusted\":0}");
	expect_damaged(f, NULL);
	put_file(f, "s1.json", "{\"taint\":\"pink\",\"untrusted\":false}");
	expect_damaged(f, "taint");
	put_file(f, "s1.json", "{\"taint\":\"private\",\"taint\":\"public\"}");
	expect_damaged(f, NULL);
	put_file(f, "s1.json", "{\"taint\":\"priv\xff\",\"untrusted\":false}");
	expect_damaged(f, NULL);
	put_file(f, "s1.json", "[]");
	expect_damaged(f, NULL);
	/*
	 * Root reads any file, so a directory stands in for an unreadable
	 * one; it is refused as what it is, before anything is read.
	 */
	snprintf(path, sizeof(path), "%s/broker/sessions/s1.json", f->home);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(mkdir(path, 0700), 0);
	expect_damaged(f, "is a directory");
}

static void
test_oversized_file_is_damaged(void **state)
{
	struct fixture *f = *state;
	char *big = malloc(STATE_FILE_MAX + 2);

	memset(big, ' ', STATE_FILE_MAX + 1);
	big[STATE_FILE_MAX + 1] = '\0';
	memcpy(big, "{\"taint\":\"public\",\"untrusted\":false}", 36);
	put_file(f, "s1.json", big);
	free(big);
	expect_damaged(f, "too large");
}

static void
test_bad_session_ids_are_refused(void **state)
{
	struct fixture *f = *state;
	struct state_value v = { BX_CLASS_PUBLIC, false };
	struct bx_error err;

	assert_int_equal(state_read(f->store, "../x", &v, &err), -1);
	assert_int_equal(state_write(f->store, "A", &v, &err), -1);
	assert_int_equal(state_read(f->store, "", &v, &err), -1);
}

struct failing {
	int	calls;
	bool	fail;
};

static int
failing_write(void *ctx, const char *dir, const char *name, const void *buf,
    size_t len, struct bx_error *err)
{
	struct failing *w = ctx;

	w->calls++;
	if (w->fail)
		return bx_fail(err, "%s/%s: injected failure", dir, name);
	return state_write_atomic(NULL, dir, name, buf, len, err);
}

static void
test_writer_seam_can_fail(void **state)
{
	struct fixture *f = *state;
	struct failing w = { 0, false };
	struct state_writer sw = { failing_write, &w };
	struct state_value v = { BX_CLASS_PUBLIC, false }, got;
	struct bx_error err;

	state_set_writer(f->store, &sw);
	assert_int_equal(state_write(f->store, "s2", &v, &err), 0);
	w.fail = true;
	v.taint = BX_CLASS_SECRET;
	assert_int_equal(state_write(f->store, "s2", &v, &err), -1);
	assert_non_null(strstr(err.msg, "injected failure"));
	assert_int_equal(w.calls, 2);
	assert_int_equal(state_read(f->store, "s2", &got, &err), 0);
	assert_int_equal(got.taint, BX_CLASS_PUBLIC);
	state_set_writer(f->store, NULL);
	assert_int_equal(state_write(f->store, "s2", &v, &err), 0);
	assert_int_equal(w.calls, 2);
}

static void
test_a_home_too_long_for_every_state_file_is_refused(void **state)
{
	char home[PATH_MAX];
	struct bx_error err;
	size_t len;

	(void)state;
	/* The directory fits, but not sessions/<64-byte id>.json.tmp in it. */
	len = PATH_MAX - sizeof("/broker/sessions/") - 40;
	memset(home, 'h', len);
	home[0] = '/';
	home[len] = '\0';
	assert_null(state_open(home, &err));
	assert_non_null(strstr(err.msg, "too long for broker/sessions/"));
}

static void
test_raise_never_lowers(void **state)
{
	struct state_value v = { BX_CLASS_SECRET, true }, r;
	int c;

	(void)state;
	for (c = 0; c < BX_CLASS_MAX; c++) {
		r = state_raise(v, (enum bx_class)c, false);
		assert_int_equal(r.taint, BX_CLASS_SECRET);
		assert_true(r.untrusted);
	}
	v.taint = BX_CLASS_PUBLIC;
	v.untrusted = false;
	r = state_raise(v, BX_CLASS_PRIVATE, true);
	assert_int_equal(r.taint, BX_CLASS_PRIVATE);
	assert_true(r.untrusted);
	r = state_raise(r, BX_CLASS_PUBLIC, false);
	assert_int_equal(r.taint, BX_CLASS_PRIVATE);
	assert_true(r.untrusted);
}

struct race {
	struct state_store	*store;
	const char		*session;
	volatile int		 first_done;
	int			 saw_first_done;
};

static void *
second_call(void *arg)
{
	struct race *r = arg;
	struct state_hold h;

	state_hold(r->store, &h, r->session);
	r->saw_first_done = r->first_done;
	state_release(r->store, &h);
	return NULL;
}

static void
test_hold_serializes_one_session(void **state)
{
	struct fixture *f = *state;
	struct race r = { f->store, "s3", 0, -1 };
	struct state_hold h, other;
	pthread_t t;

	state_hold(f->store, &h, "s3");
	assert_int_equal(pthread_create(&t, NULL, second_call, &r), 0);
	/* Another session is not held up by this one. */
	state_hold(f->store, &other, "s4");
	state_release(f->store, &other);
	usleep(50 * 1000);
	r.first_done = 1;
	state_release(f->store, &h);
	pthread_join(t, NULL);
	assert_int_equal(r.saw_first_done, 1);
	/* Releasing twice, or a hold never taken, is harmless. */
	state_release(f->store, &h);
	state_release(f->store, NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(
		    test_absent_file_is_private_and_trusted, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_then_read, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_damaged_files_are_errors,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_file_is_damaged,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(
		    test_bad_session_ids_are_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_seam_can_fail,
		    setup, teardown),
		cmocka_unit_test(
		    test_a_home_too_long_for_every_state_file_is_refused),
		cmocka_unit_test(test_raise_never_lowers),
		cmocka_unit_test_setup_teardown(
		    test_hold_serializes_one_session, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
