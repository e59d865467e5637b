/*
 * test-main.c: the loopd program itself: usage, a bad configuration, a
 * failed self-test (exit 1 with the runbook pointer), and serve until
 * SIGTERM (exit 0, socket removed).
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "testutil.h"

static char loopd[4096];

/* Starts loopd with args, stderr to dir/stderr; returns its pid. */
static pid_t
spawn(const char *dir, const char *a1, const char *a2, const char *a3)
{
	char path[4096];
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(loopd, "loopd", a1, a2, a3, (char *)NULL);
		_exit(127);
	}
	return pid;
}

/*
 * Starts `loopd serve` with no --config, as a user other than root (nobody
 * when the test runs as root) whose configuration home is dir.
 */
static pid_t
spawn_owner(const char *dir)
{
	char path[4096];
	pid_t pid;
	int fd;

	snprintf(path, sizeof(path), "%s/stderr", dir);
	assert_int_equal(chmod(dir, 0755), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		setenv("HOME", dir, 1);
		setenv("XDG_CONFIG_HOME", dir, 1);
		if (geteuid() == 0 && (setgid(65534) == -1 ||
		    setuid(65534) == -1))
			_exit(126);
		execl(loopd, "loopd", "serve", (char *)NULL);
		_exit(127);
	}
	return pid;
}

static int
wait_exit(pid_t pid)
{
	int status;

	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

static void
test_usage(void **state)
{
	char *dir = tu_tmpdir(), want[4200], *err;

	(void)state;
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", NULL)), 2);
	assert_int_equal(wait_exit(spawn(dir, "serve", "x", NULL)), 2);
	assert_int_equal(wait_exit(spawn(dir, "run", "--config", "x")), 2);
	/* No --config: the user's default file, which init writes. */
	assert_int_equal(wait_exit(spawn_owner(dir)), 1);
	err = tu_read(dir, "stderr");
	snprintf(want, sizeof(want), "no configuration at %s/boxmaker/"
	    "loopd.toml: `bxctl init` writes one", dir);
	if (strstr(err, want) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", err, want);
	free(err);
	tu_rmtree(dir);
}

static void
test_bad_config(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], *err;

	(void)state;
	tu_write(dir, "loopd.toml", "[model]\nurl = \"http://x\"\nmodle = \"a\"\n",
	    37);
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", cfg)), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "loopd.toml:3: unknown key \"model.modle\""));
	free(err);

	/* A missing file and a directory each name the path and what is wrong. */
	snprintf(cfg, sizeof(cfg), "%s/absent.toml", dir);
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", cfg)), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err,
	    "absent.toml: cannot open: No such file or directory"));
	free(err);
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", dir)), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "is a directory, not loopd.toml"));
	assert_non_null(strstr(err, dir));
	free(err);
	tu_rmtree(dir);
}

static void
test_selftest_fails(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], text[8192], *err;

	(void)state;
	tu_write(dir, "home", "a file, not a directory", 23);
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n", dir);
	tu_write(dir, "loopd.toml", text, strlen(text));
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", cfg)), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "loopd: loopd self-test failed: the home "
	    "is not writable"));
	assert_non_null(strstr(err, "see docs/runbook.md#loopd-selftest-failed"));
	free(err);
	tu_rmtree(dir);
}

/*
 * Runs loopd serve with cfg until its socket (home dir/home) appears, then
 * stops it with SIGTERM; asserts a clean exit that removed the socket.
 */
static void
serve_then_stop(const char *dir, const char *cfg)
{
	struct timespec pause = { 0, 50 * 1000 * 1000 };
	char sock[4096];
	struct stat st;
	pid_t pid;
	int i;

	snprintf(sock, sizeof(sock), "%s/home/run/owner-loop/loop.sock", dir);
	pid = spawn(dir, "serve", "--config", cfg);
	for (i = 0; i < 600 && lstat(sock, &st) == -1; i++)
		nanosleep(&pause, NULL);
	assert_int_equal(lstat(sock, &st), 0);
	assert_int_equal(kill(pid, SIGTERM), 0);
	assert_int_equal(wait_exit(pid), 0);
	assert_int_equal(lstat(sock, &st), -1);
}

static void
test_serve_and_stop(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], text[8192], *err;

	(void)state;
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n", dir);
	tu_write(dir, "loopd.toml", text, strlen(text));
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	serve_then_stop(dir, cfg);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "see docs/runbook.md#no-tool-broker"));
	assert_non_null(strstr(err, "loopd: stopped"));
	free(err);
	tu_rmtree(dir);
}

/* A key file others may read stops loopd; the key is never printed. */
static void
test_api_key_file(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], key[4096], text[8192], *err;

	(void)state;
	tu_write(dir, "llama.key", "k-9f3Qx7\n", 9);
	snprintf(key, sizeof(key), "%s/llama.key", dir);
	assert_int_equal(chmod(key, 0644), 0);
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\napi_key_file = \"%s\"\n", dir, key);
	tu_write(dir, "loopd.toml", text, strlen(text));
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", cfg)), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "has mode 0644: only its owner may read"));
	assert_non_null(strstr(err, "see docs/runbook.md#model-refused"));
	assert_null(strstr(err, "k-9f3Qx7"));
	free(err);

	assert_int_equal(chmod(key, 0600), 0);
	serve_then_stop(dir, cfg);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "with the key in [model] api_key_file"));
	assert_null(strstr(err, "k-9f3Qx7"));
	free(err);
	tu_rmtree(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_usage),
		cmocka_unit_test(test_bad_config),
		cmocka_unit_test(test_selftest_fails),
		cmocka_unit_test(test_serve_and_stop),
		cmocka_unit_test(test_api_key_file),
	};
	const char *build = getenv("BX_BUILD_ROOT");

	if (build == NULL) {
		fprintf(stderr, "test-main: BX_BUILD_ROOT is not set\n");
		return 1;
	}
	snprintf(loopd, sizeof(loopd), "%s/src/loopd/loopd", build);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
