/*
 * test-secret.c: a secret's file (here a bridge's token_file; loopd's
 * [model] api_key_file is the same code) is read only when only its owner
 * may read it, holds one line of printable ASCII, and the secret appears
 * in no message; through a pipe it arrives whole, or is refused. The
 * tests run as root, who can read any file, so files that cannot be used
 * are a directory, bytes that are not a key (invalid UTF-8) or
 * group/other-readable modes, not missing read permission.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <unistd.h>

#include "jailrun/secret.h"
#include "testutil.h"

static const struct secret_kind token = {
	.sk_setting = "[mattermost] token_file",
	.sk_noun = "token",
	.sk_what = "the bot's token",
	.sk_from = "the bridge's launcher",
	.sk_runbook = "see docs/runbook.md#bridge-refused",
};

/* Writes dir/name with data and mode; its path into path (PATH_MAX). */
static void
key_file(const char *dir, const char *name, const char *data, mode_t mode,
    char *path)
{
	tu_write(dir, name, data, strlen(data));
	snprintf(path, PATH_MAX, "%s/%s", dir, name);
	assert_int_equal(chmod(path, mode), 0);
}

static void
test_owner_only(void **state)
{
	char path[PATH_MAX], *dir = tu_tmpdir(), *key = NULL;
	struct bx_error err;

	(void)state;
	key_file(dir, "key", "s3cret-Key_1\n", 0600, path);
	assert_int_equal(secret_load(&token, path, &key, &err), 0);
	assert_string_equal(key, "s3cret-Key_1");
	secret_free(key);
	key_file(dir, "key-ro", "s3cret", 0400, path);
	assert_int_equal(secret_load(&token, path, &key, &err), 0);
	assert_string_equal(key, "s3cret");
	secret_free(key);
	tu_rmtree(dir);
}

static void
test_readable_by_others_refused(void **state)
{
	static const mode_t modes[] = { 0640, 0604, 0644, 0660, 0606 };
	char path[PATH_MAX], *dir = tu_tmpdir(), *key = NULL;
	struct bx_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
		key_file(dir, "key", "s3cret\n", modes[i], path);
		assert_int_equal(secret_load(&token, path, &key, &err), -1);
		assert_null(key);
		assert_non_null(strstr(err.msg, "only its owner may read it"));
		assert_non_null(strstr(err.msg, "chmod 600"));
		assert_non_null(strstr(err.msg,
		    "docs/runbook.md#bridge-refused"));
		assert_non_null(strstr(err.msg, "[mattermost] token_file"));
		assert_null(strstr(err.msg, "s3cret"));
	}
	tu_rmtree(dir);
}

static void
test_unusable_files_refused(void **state)
{
	static const struct {
		const char	*data;
		const char	*says;
	} bad[] = {
		{ "\xff\xfe\x80key\n", "byte 1 is not" },
		{ "s3cret\xc3\x28\n", "byte 7 is not" },
		{ "two words\n", "byte 4 is not" },
		{ "s3cret\nsecond line\n", "byte 7 is not" },
		{ "\n", "is empty" },
		{ "", "is empty" },
	};
	char path[PATH_MAX], *dir = tu_tmpdir(), *key = NULL;
	struct bx_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		key_file(dir, "key", bad[i].data, 0600, path);
		assert_int_equal(secret_load(&token, path, &key, &err), -1);
		assert_null(key);
		if (strstr(err.msg, bad[i].says) == NULL)
			fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg,
			    bad[i].says);
		assert_null(strstr(err.msg, "s3cret"));
	}
	snprintf(path, sizeof(path), "%s/a-dir", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(secret_load(&token, path, &key, &err), -1);
	assert_non_null(strstr(err.msg, "is a directory, not a file holding "
	    "the token"));
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(secret_load(&token, path, &key, &err), -1);
	assert_non_null(strstr(err.msg, "token_file"));
	assert_null(key);
	tu_rmtree(dir);
}

/* Another's file is refused, whatever its mode; so is a FIFO. */
static void
test_others_file_refused(void **state)
{
	char path[PATH_MAX], *dir = tu_tmpdir(), *key = NULL;
	struct bx_error err;

	(void)state;
	key_file(dir, "key", "s3cret\n", 0600, path);
	assert_int_equal(chown(path, geteuid() + 1, (gid_t)-1), 0);
	assert_int_equal(secret_load(&token, path, &key, &err), -1);
	assert_null(key);
	assert_non_null(strstr(err.msg, "[mattermost] token_file"));
	assert_non_null(strstr(err.msg, "not to you"));
	assert_non_null(strstr(err.msg, "docs/runbook.md#bridge-refused"));
	assert_null(strstr(err.msg, "s3cret"));
	/* Back to the caller's: read again, so the owner was the refusal. */
	assert_int_equal(chown(path, geteuid(), (gid_t)-1), 0);
	assert_int_equal(secret_load(&token, path, &key, &err), 0);
	secret_free(key);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	key = NULL;
	assert_int_equal(secret_load(&token, path, &key, &err), -1);
	assert_null(key);
	assert_non_null(strstr(err.msg, "token_file"));
	tu_rmtree(dir);
}

/* What secret_pass() puts in, secret_read_fd() takes out whole. */
static void
test_through_a_pipe(void **state)
{
	struct bx_error err;
	char *got = NULL;
	int fd = -1, p[2];

	(void)state;
	assert_int_equal(secret_pass("s3cret-T0ken\n", &fd, &err), 0);
	assert_true(fd >= 0);
	assert_true((fcntl(fd, F_GETFD) & FD_CLOEXEC) != 0);
	assert_int_equal(secret_read_fd(&token, fd, &got, &err), 0);
	assert_string_equal(got, "s3cret-T0ken");
	secret_free(got);
	close(fd);
	/* Nothing written: the writer's end closed empty. */
	assert_int_equal(pipe(p), 0);
	close(p[1]);
	got = NULL;
	assert_int_equal(secret_read_fd(&token, p[0], &got, &err), -1);
	assert_null(got);
	assert_string_equal(err.msg, "the bot's token did not come whole from "
	    "the bridge's launcher");
	close(p[0]);
	/* A byte that is not the secret's is refused, the secret unsaid. */
	assert_int_equal(secret_pass("s3cret two", &fd, &err), 0);
	assert_int_equal(secret_read_fd(&token, fd, &got, &err), -1);
	assert_null(got);
	assert_non_null(strstr(err.msg, "the bot's token from the bridge's "
	    "launcher must hold the token alone"));
	assert_null(strstr(err.msg, "s3cret"));
	close(fd);
	secret_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_owner_only),
		cmocka_unit_test(test_readable_by_others_refused),
		cmocka_unit_test(test_unusable_files_refused),
		cmocka_unit_test(test_others_file_refused),
		cmocka_unit_test(test_through_a_pipe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
