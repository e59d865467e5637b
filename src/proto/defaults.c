/*
 * defaults.c: the default home and configuration files by user
 * (defaults.h).
 */
#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/defaults.h"

/* getpwuid_r's buffer: enough for any sane passwd line. */
#define PASSWD_BUF_MAX	16384

/*
 * slot = base without its trailing slashes, then rest ("/" if both are
 * empty then): so HOME=/home/kyle/ or XDG_DATA_HOME=/ join cleanly.
 */
static int
set_path(char *slot, const char *what, const char *base, const char *rest,
    struct bx_error *err)
{
	size_t blen = strnlen(base, BX_PATH_MAX + 1);
	int n;

	while (blen > 0 && base[blen - 1] == '/')
		blen--;
	n = snprintf(slot, BX_PATH_MAX + 1, "%.*s%s", (int)blen, base, rest);
	if (n == 0)
		n = snprintf(slot, BX_PATH_MAX + 1, "/");
	if (n < 0 || n > BX_PATH_MAX)
		return bx_fail(err, "%s gives a path longer than %d bytes",
		    what, BX_PATH_MAX);
	if (bx_path_check(slot, (size_t)n, err) == -1)
		return bx_error_prefix(err, "%s gives %s", what, slot);
	return 0;
}

static int
usable(const char *value)
{
	return value != NULL && value[0] == '/';
}

/* The user's home directory: $HOME, or the password database's. */
static int
user_dir(const struct bx_env *env, char *buf, struct bx_error *err)
{
	struct passwd pw, *found = NULL;
	char *pwbuf;
	int rc = -1;

	if (env->e_home != NULL && env->e_home[0] != '\0')
		return set_path(buf, "HOME", env->e_home, "", err);
	if ((pwbuf = malloc(PASSWD_BUF_MAX)) == NULL)
		return bx_fail(err, "out of memory");
	if (getpwuid_r(env->e_uid, &pw, pwbuf, PASSWD_BUF_MAX, &found) != 0 ||
	    found == NULL || pw.pw_dir == NULL || pw.pw_dir[0] == '\0')
		bx_fail(err, "HOME is unset and user %u has no home directory "
		    "in the password database", (unsigned)env->e_uid);
	else
		rc = set_path(buf, "the password database's home directory",
		    pw.pw_dir, "", err);
	free(pwbuf);
	return rc;
}

/*
 * Under an XDG base directory: $VAR/boxmaker, or ~<fallback> where
 * fallback starts with a slash.
 */
static int
xdg_dir(const struct bx_env *env, const char *var, const char *value,
    const char *fallback, char *slot, struct bx_error *err)
{
	char user[BX_PATH_MAX + 1];

	if (usable(value))
		return set_path(slot, var, value, "/boxmaker", err);
	if (user_dir(env, user, err) == -1)
		return -1;
	return set_path(slot, "HOME", user, fallback, err);
}

static int
config_files(struct bx_defaults *d, struct bx_error *err)
{
	if (set_path(d->d_brokerd_config, "the configuration directory",
	    d->d_config_dir, "/brokerd.toml", err) == -1 ||
	    set_path(d->d_loopd_config, "the configuration directory",
	    d->d_config_dir, "/loopd.toml", err) == -1)
		return -1;
	return 0;
}

int
bx_defaults_resolve(const struct bx_env *env, struct bx_defaults *ret,
    struct bx_error *err)
{
	struct bx_defaults d;

	if (env->e_uid == 0) {
		snprintf(d.d_home, sizeof(d.d_home), "%s", BX_ROOT_HOME);
		snprintf(d.d_config_dir, sizeof(d.d_config_dir), "%s",
		    BX_ROOT_CONFIG_DIR);
	} else if (xdg_dir(env, "XDG_DATA_HOME", env->e_xdg_data_home,
	    "/.local/share/boxmaker", d.d_home, err) == -1 ||
	    xdg_dir(env, "XDG_CONFIG_HOME", env->e_xdg_config_home,
	    "/.config/boxmaker", d.d_config_dir, err) == -1)
		return -1;
	if (env->e_boxmaker_home != NULL && env->e_boxmaker_home[0] != '\0' &&
	    set_path(d.d_home, "BOXMAKER_HOME", env->e_boxmaker_home, "",
	    err) == -1)
		return -1;
	if (config_files(&d, err) == -1)
		return -1;
	*ret = d;
	return 0;
}

int
bx_defaults_get(struct bx_defaults *ret, struct bx_error *err)
{
	struct bx_env env;

	env.e_uid = geteuid();
	env.e_boxmaker_home = getenv("BOXMAKER_HOME");
	env.e_home = getenv("HOME");
	env.e_xdg_data_home = getenv("XDG_DATA_HOME");
	env.e_xdg_config_home = getenv("XDG_CONFIG_HOME");
	return bx_defaults_resolve(&env, ret, err);
}

int
bx_defaults_fill_home(char **slot, const char *given, struct bx_error *err)
{
	struct bx_defaults d;

	if (*slot != NULL)
		return 0;
	if (given == NULL) {
		if (bx_defaults_get(&d, err) == -1)
			return -1;
		given = d.d_home;
	}
	if ((*slot = strdup(given)) == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

int
bx_defaults_config_file(const char *program, char ret[BX_PATH_MAX + 1],
    struct bx_error *err)
{
	struct bx_defaults d;
	const char *path;

	if (bx_defaults_get(&d, err) == -1)
		return -1;
	path = strcmp(program, "loopd") == 0 ? d.d_loopd_config :
	    d.d_brokerd_config;
	if (access(path, F_OK) == -1 && errno == ENOENT)
		return bx_fail(err, "no configuration at %s: `bxctl init` "
		    "writes one, or name one with --config; see "
		    "docs/runbook.md#no-configuration", path);
	memcpy(ret, path, strlen(path) + 1);
	return 0;
}
