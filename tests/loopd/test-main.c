/*
 * test-main.c: the loopd program itself: usage, a bad configuration, a
 * failed self-test (exit 1 with the runbook pointer), serve until SIGTERM
 * (exit 0, socket removed), and its launcher: the turn loop in its jail,
 * a jail that cannot be built (exit 1, naming the fix), [jail] mode off
 * (a warning), --in-jail outside the jail refused, and a turn loop killed
 * taking the launcher with it.
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
/* Starts loopd serve on cfg and waits for its loop.sock, at most 30 s. */
static pid_t
serve_until_up(const char *dir, const char *cfg)
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
	if (lstat(sock, &st) == -1)
		fail_msg("loop.sock did not appear in 30 s:\n%s",
		    tu_read(dir, "stderr"));
	return pid;
}

static void
serve_then_stop(const char *dir, const char *cfg)
{
	char sock[4096];
	struct stat st;
	pid_t pid;

	snprintf(sock, sizeof(sock), "%s/home/run/owner-loop/loop.sock", dir);
	pid = serve_until_up(dir, cfg);
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

/* The pid of the launcher's one child, the jailed turn loop, or -1. */
static pid_t
turn_loop_of(pid_t launcher)
{
	char path[64], text[64];
	FILE *fp;
	long pid = -1;

	snprintf(path, sizeof(path), "/proc/%ld/task/%ld/children",
	    (long)launcher, (long)launcher);
	if ((fp = fopen(path, "re")) == NULL)
		return -1;
	if (fgets(text, sizeof(text), fp) != NULL)
		pid = strtol(text, NULL, 10);
	fclose(fp);
	return pid > 0 ? (pid_t)pid : -1;
}

/* The launcher says where the turn loop runs; it ends with its signal. */
static void
test_jailed(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], text[8192], *err;
	pid_t pid, inner;
	int status;

	(void)state;
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n", dir);
	tu_write(dir, "loopd.toml", text, strlen(text));
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	assert_int_equal(chmod(dir, 0755), 0);
	serve_then_stop(dir, cfg);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "the turn loop runs in its jail as uid"));
	assert_non_null(strstr(err, "through the relay"));
	free(err);

	pid = serve_until_up(dir, cfg);
	assert_true((inner = turn_loop_of(pid)) > 0);
	assert_int_equal(kill(inner, SIGKILL), 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(WTERMSIG(status), SIGKILL);
	tu_rmtree(dir);
}

/* Off says so; --in-jail outside the jail is refused. */
static void
test_jail_off(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], text[8192], *err;

	(void)state;
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n[jail]\nmode = \"off\"\n", dir);
	tu_write(dir, "loopd.toml", text, strlen(text));
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	serve_then_stop(dir, cfg);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "[jail] mode is \"off\""));
	assert_non_null(strstr(err, "see docs/runbook.md#jail-off"));
	assert_null(strstr(err, "in its jail"));
	free(err);

	snprintf(text, sizeof(text), "[model]\nurl = \"http://x\"\n[jail]\n"
	    "mode = \"of\"\n");
	tu_write(dir, "loopd.toml", text, strlen(text));
	assert_int_equal(wait_exit(spawn(dir, "serve", "--config", cfg)), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "loopd.toml:4: jail.mode must be \"on\" or "
	    "\"off\""));
	free(err);
	tu_rmtree(dir);
}

static void
test_in_jail_refused(void **state)
{
	char *dir = tu_tmpdir(), cfg[4096], text[8192], path[4096], *err;
	pid_t pid;
	int fd;

	(void)state;
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n", dir);
	tu_write(dir, "loopd.toml", text, strlen(text));
	snprintf(cfg, sizeof(cfg), "%s/loopd.toml", dir);
	snprintf(path, sizeof(path), "%s/stderr", dir);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0) {
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		dup2(fd, 2);
		execl(loopd, "loopd", "serve", "--config", cfg, "--in-jail",
		    "4242", (char *)NULL);
		_exit(127);
	}
	assert_int_equal(wait_exit(pid), 1);
	err = tu_read(dir, "stderr");
	assert_non_null(strstr(err, "--in-jail is for loopd's launcher"));
	free(err);
	tu_rmtree(dir);
}

/*
 * A user with no subordinate range (nobody) cannot have a jail: loopd
 * exits 1 before serving, naming the range, the fix and the runbook.
 */
static void
test_jail_unavailable(void **state)
{
	char *dir = tu_tmpdir(), text[8192], path[4096], *err;

	(void)state;
	if (geteuid() != 0)
		fail_msg("this test becomes nobody, which needs root");
	snprintf(text, sizeof(text), "[paths]\nhome = \"%s/home\"\n[model]\n"
	    "url = \"http://127.0.0.1:9\"\n", dir);
	snprintf(path, sizeof(path), "%s/boxmaker", dir);
	assert_int_equal(mkdir(path, 0755), 0);
	tu_write(dir, "boxmaker/loopd.toml", text, strlen(text));
	snprintf(path, sizeof(path), "%s/boxmaker/loopd.toml", dir);
	assert_int_equal(chmod(path, 0644), 0);
	/* A home nobody can write, so the self-test passes and the jail is next. */
	snprintf(path, sizeof(path), "%s/home", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(chown(path, 65534, 65534), 0);
	assert_int_equal(wait_exit(spawn_owner(dir)), 1);
	err = tu_read(dir, "stderr");
	if (strstr(err, "no range of subordinate ids") == NULL ||
	    strstr(err, "usermod --add-subuids") == NULL ||
	    strstr(err, "see docs/runbook.md#jail-unavailable") == NULL)
		fail_msg("not the jail's refusal:\n%s", err);
	assert_null(strstr(err, "serving"));
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
		cmocka_unit_test(test_jailed),
		cmocka_unit_test(test_jail_off),
		cmocka_unit_test(test_in_jail_refused),
		cmocka_unit_test(test_jail_unavailable),
	};
	const char *build = getenv("BX_BUILD_ROOT");

	if (build == NULL) {
		fprintf(stderr, "test-main: BX_BUILD_ROOT is not set\n");
		return 1;
	}
	snprintf(loopd, sizeof(loopd), "%s/src/loopd/loopd", build);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
