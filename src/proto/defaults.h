/*
 * defaults.h: where Boxmaker's files are when no flag and no file names
 * them. One rule serves brokerd, loopd and every bxctl command, so that the
 * owner's shell, the systemd user units and bxctl find the same home with
 * no variable and no flag:
 *
 *	who		home				configuration directory
 *	root		/var/lib/boxmaker		/etc/boxmaker
 *	anyone else	${XDG_DATA_HOME:-~/.local/share}/boxmaker
 *							${XDG_CONFIG_HOME:-~/.config}/boxmaker
 *
 * The configuration directory holds brokerd.toml and loopd.toml.
 * BOXMAKER_HOME, when set and not empty, overrides the home (never the
 * configuration directory); [paths] home in a file, --home and --config
 * override these defaults where a program takes them. An XDG variable that
 * is not an absolute path is ignored, as the XDG Base Directory
 * specification asks. ~ is $HOME, or the password database's entry for the
 * user when HOME is unset or empty. "Root" is the effective user id 0.
 *
 * Nothing here allocates: the paths go into the caller's struct.
 */
#ifndef BX_PROTO_DEFAULTS_H
#define BX_PROTO_DEFAULTS_H

#include <sys/types.h>

#include "proto/error.h"
#include "proto/path.h"

#define BX_ROOT_HOME		"/var/lib/boxmaker"
#define BX_ROOT_CONFIG_DIR	"/etc/boxmaker"

/*
 * The home's layout, relative to the home: where brokerd, loopd and bxctl
 * look when no configuration file names the path.
 */
#define BX_HOME_GRANTS		"grants"
#define BX_HOME_BROKER_SOCKET	"run/loop-broker/broker.sock"
#define BX_HOME_ADMIN_SOCKET	"run/owner-broker/admin.sock"
/* brokerd serves it to bxbridge's jail (issue 42). */
#define BX_HOME_BRIDGE_SOCKET	"run/bridge-broker/bridge.sock"
#define BX_HOME_LOOP_SOCKET	"run/owner-loop/loop.sock"

/* What the rule reads: the process's values, or a test's. */
struct bx_env {
	uid_t		 e_uid;
	const char	*e_boxmaker_home;	/* BOXMAKER_HOME, or NULL */
	const char	*e_home;		/* HOME, or NULL */
	const char	*e_xdg_data_home;	/* XDG_DATA_HOME, or NULL */
	const char	*e_xdg_config_home;	/* XDG_CONFIG_HOME, or NULL */
};

struct bx_defaults {
	char	d_home[BX_PATH_MAX + 1];
	char	d_config_dir[BX_PATH_MAX + 1];
	char	d_brokerd_config[BX_PATH_MAX + 1];	/* <dir>/brokerd.toml */
	char	d_loopd_config[BX_PATH_MAX + 1];	/* <dir>/loopd.toml */
};

/*
 * Applies the rule to env. Fails, naming the variable, when a path it
 * gives is not in proto/path.h's form or is too long, or when a non-root
 * user has no home directory to start from.
 */
int	bx_defaults_resolve(const struct bx_env *env, struct bx_defaults *ret,
	    struct bx_error *err);

/* bx_defaults_resolve() with this process's user and environment. */
int	bx_defaults_get(struct bx_defaults *ret, struct bx_error *err);

/*
 * A configuration's home: when *slot is NULL (the file named none), a
 * malloc'd copy of given or, when given is NULL, of this user's d_home.
 * The user's default is looked up only then, so a file that names its home
 * needs no HOME and no password entry. The caller frees *slot.
 */
int	bx_defaults_fill_home(char **slot, const char *given,
	    struct bx_error *err);

/*
 * The default configuration file of program ("brokerd" or "loopd") into
 * ret: d_brokerd_config or d_loopd_config. Fails, saying that `bxctl init`
 * writes one and pointing to the runbook, when nothing is there; anything
 * else wrong with the file is left to the reader that opens it.
 */
int	bx_defaults_config_file(const char *program, char ret[BX_PATH_MAX + 1],
	    struct bx_error *err);

#endif
