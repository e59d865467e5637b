/*
 * test-defaults.c: the default home and configuration files by user
 * (proto/defaults.h), through bx_defaults_resolve with made-up
 * environments, and bx_defaults_get with this process's.
 */
#include <sys/stat.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/defaults.h"

static struct bx_env
owner(void)
{
	struct bx_env env;

	memset(&env, 0, sizeof(env));
	env.e_uid = 1000;
	env.e_home = "/home/kyle";
	return env;
}

static void
resolves(const struct bx_env *env, const char *home, const char *dir)
{
	struct bx_defaults d;
	struct bx_error err;
	char want[BX_PATH_MAX + 1];

	if (bx_defaults_resolve(env, &d, &err) == -1)
		fail_msg("%s", err.msg);
	assert_string_equal(d.d_home, home);
	assert_string_equal(d.d_config_dir, dir);
	snprintf(want, sizeof(want), "%s/brokerd.toml", dir);
	assert_string_equal(d.d_brokerd_config, want);
	snprintf(want, sizeof(want), "%s/loopd.toml", dir);
	assert_string_equal(d.d_loopd_config, want);
}

static void
refuses(const struct bx_env *env, const char *why)
{
	struct bx_defaults d;
	struct bx_error err;

	memset(&d, 0x5a, sizeof(d));
	assert_int_equal(bx_defaults_resolve(env, &d, &err), -1);
	if (strstr(err.msg, why) == NULL)
		fail_msg("\"%s\" does not say \"%s\"", err.msg, why);
	assert_int_equal((unsigned char)d.d_home[0], 0x5a);
}

static void
test_root(void **state)
{
	struct bx_env env = owner();

	(void)state;
	env.e_uid = 0;
	env.e_home = "/root";
	resolves(&env, "/var/lib/boxmaker", "/etc/boxmaker");
	/* Root's XDG variables belong to its login, not to the service. */
	env.e_xdg_data_home = "/root/data";
	env.e_xdg_config_home = "/root/config";
	resolves(&env, "/var/lib/boxmaker", "/etc/boxmaker");
	env.e_boxmaker_home = "/srv/box";
	resolves(&env, "/srv/box", "/etc/boxmaker");
}

static void
test_owner(void **state)
{
	struct bx_env env = owner();

	(void)state;
	resolves(&env, "/home/kyle/.local/share/boxmaker",
	    "/home/kyle/.config/boxmaker");
	env.e_xdg_data_home = "/data";
	env.e_xdg_config_home = "/cfg/kyle";
	resolves(&env, "/data/boxmaker", "/cfg/kyle/boxmaker");
	/* Relative XDG values are ignored, as the specification asks. */
	env.e_xdg_data_home = "data";
	env.e_xdg_config_home = "";
	resolves(&env, "/home/kyle/.local/share/boxmaker",
	    "/home/kyle/.config/boxmaker");
	env.e_boxmaker_home = "/home/kyle/box";
	resolves(&env, "/home/kyle/box", "/home/kyle/.config/boxmaker");
	/* Empty counts as unset. */
	env.e_boxmaker_home = "";
	resolves(&env, "/home/kyle/.local/share/boxmaker",
	    "/home/kyle/.config/boxmaker");
	env.e_home = "/";
	resolves(&env, "/.local/share/boxmaker", "/.config/boxmaker");
	/* Trailing slashes join cleanly. */
	env.e_home = "/home/kyle//";
	env.e_xdg_config_home = "/";
	env.e_boxmaker_home = "/srv/box/";
	resolves(&env, "/srv/box", "/boxmaker");
}

static void
test_bad_values(void **state)
{
	struct bx_env env = owner();
	char *long_home;

	(void)state;
	env.e_boxmaker_home = "relative/home";
	refuses(&env, "BOXMAKER_HOME");
	env.e_boxmaker_home = "/a/../b";
	refuses(&env, "BOXMAKER_HOME gives /a/../b");
	env.e_boxmaker_home = NULL;
	env.e_xdg_config_home = "/cfg//x";
	refuses(&env, "XDG_CONFIG_HOME");
	env.e_xdg_config_home = NULL;
	long_home = malloc(BX_PATH_MAX);
	assert_non_null(long_home);
	memset(long_home, 'a', BX_PATH_MAX - 1);
	long_home[0] = '/';
	long_home[BX_PATH_MAX - 1] = '\0';
	env.e_home = long_home;
	refuses(&env, "longer than 4096 bytes");
	free(long_home);
}

/* No HOME: the password database's entry for this process's user. */
static void
test_passwd(void **state)
{
	struct bx_env env = owner();
	struct bx_defaults d;
	struct bx_error err;

	(void)state;
	env.e_uid = getuid() == 0 ? 1 : getuid();	/* daemon, or us */
	env.e_home = NULL;
	if (bx_defaults_resolve(&env, &d, &err) == -1)
		fail_msg("%s", err.msg);
	assert_non_null(strstr(d.d_home, "/.local/share/boxmaker"));
	env.e_uid = 2147483000;		/* no such user */
	refuses(&env, "no home directory");
}

static void
test_this_process(void **state)
{
	struct bx_defaults d;
	struct bx_error err;

	(void)state;
	assert_int_equal(setenv("BOXMAKER_HOME", "/tmp/boxmaker-x", 1), 0);
	if (bx_defaults_get(&d, &err) == -1)
		fail_msg("%s", err.msg);
	assert_string_equal(d.d_home, "/tmp/boxmaker-x");
	if (geteuid() == 0)
		assert_string_equal(d.d_config_dir, "/etc/boxmaker");
	assert_int_equal(unsetenv("BOXMAKER_HOME"), 0);
}

/* A home the file named stays; one given is copied; else the user's. */
static void
test_fill_home(void **state)
{
	struct bx_error err;
	char *home;

	(void)state;
	assert_non_null(home = strdup("/named"));
	assert_int_equal(bx_defaults_fill_home(&home, "/given", &err), 0);
	assert_string_equal(home, "/named");
	free(home);
	home = NULL;
	assert_int_equal(bx_defaults_fill_home(&home, "/given", &err), 0);
	assert_string_equal(home, "/given");
	free(home);
	home = NULL;
	assert_int_equal(setenv("BOXMAKER_HOME", "/tmp/boxmaker-y", 1), 0);
	assert_int_equal(bx_defaults_fill_home(&home, NULL, &err), 0);
	assert_string_equal(home, "/tmp/boxmaker-y");
	free(home);
	assert_int_equal(unsetenv("BOXMAKER_HOME"), 0);
}

/*
 * bx_defaults_config_file as a user other than root, whose configuration
 * home is dir: in a child, which drops to nobody when the test is root.
 * Returns the child's exit status: 0, or the step that failed.
 */
static int
config_file_as_owner(const char *dir)
{
	char path[BX_PATH_MAX + 1], got[BX_PATH_MAX + 1];
	struct bx_error err;

	if (geteuid() == 0 && (setgid(65534) == -1 || setuid(65534) == -1))
		return 1;
	setenv("XDG_CONFIG_HOME", dir, 1);
	if (bx_defaults_config_file("loopd", got, &err) != -1)
		return 2;
	snprintf(path, sizeof(path), "no configuration at %s/boxmaker/"
	    "loopd.toml: `bxctl init` writes one, or name one with --config;"
	    " see docs/runbook.md#no-configuration", dir);
	if (strcmp(err.msg, path) != 0)
		return 3;
	/* Whatever is there is the reader's to judge: a directory too. */
	snprintf(path, sizeof(path), "%s/boxmaker", dir);
	if (mkdir(path, 0700) == -1)
		return 4;
	snprintf(path, sizeof(path), "%s/boxmaker/brokerd.toml", dir);
	if (mkdir(path, 0700) == -1)
		return 5;
	if (bx_defaults_config_file("brokerd", got, &err) == -1 ||
	    strcmp(got, path) != 0)
		return 6;
	return 0;
}

static void
test_config_file(void **state)
{
	char dir[] = "/tmp/test-defaults.XXXXXX", cmd[128];
	int status;
	pid_t pid;

	(void)state;
	assert_non_null(mkdtemp(dir));
	if (geteuid() == 0)
		assert_int_equal(chown(dir, 65534, 65534), 0);
	pid = fork();
	assert_true(pid != -1);
	if (pid == 0)
		_exit(config_file_as_owner(dir));
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_root),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_passwd),
		cmocka_unit_test(test_this_process),
		cmocka_unit_test(test_fill_home),
		cmocka_unit_test(test_config_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
