/*
 * options.h: the option parsing the admin commands share: --admin-socket
 * PATH with its default, --help, an approval id operand, and the grants
 * and configuration directories of brokerd.toml. Only
 * options_grants_dir() and options_config_dirs() allocate; socket paths go
 * into the caller's buffer.
 */
#ifndef BXCTL_OPTIONS_H
#define BXCTL_OPTIONS_H

#include <stdbool.h>
#include <stdint.h>

#include "bxctl/common/cli.h"
#include "bxctl/common/sock.h"

/* The longest --reason text, in bytes. */
#define OPTIONS_REASON_MAX	4096

/*
 * Copies path, or the default <home>/rel when path is NULL, into buf
 * (SOCK_PATH_MAX bytes). Returns CLI_OK, or prints why not and returns
 * CLI_USAGE (a path too long) .
 */
int	options_socket(const struct cli_command *, const char *path,
	    const char *rel, char *buf);

/*
 * Parses an approval id: decimal digits only, no sign, 0 to INT64_MAX
 * (the largest integer on the wire). Returns CLI_OK and sets *ret, or
 * prints a usage error and returns CLI_USAGE.
 */
int	options_approval_id(const struct cli_command *, const char *,
	    uint64_t *ret);

/*
 * The whole command line of a console command that takes only
 * --admin-socket, --json and --help, and no operand (sessions, grants
 * list): 0 with the socket path in buf (SOCK_PATH_MAX bytes) and
 * *ret_json whether --json was given, or -1 with *ret_status the exit
 * status (help printed, or a usage error).
 */
int	options_admin_json(const struct cli_command *, int argc, char **argv,
	    const char *help, char *buf, bool *ret_json, int *ret_status);

/*
 * A command whose only option is --config PATH (and --help), then one
 * operand named what: 0 with *ret_config (NULL: the default) and the
 * operand at argv[optind], or -1 with *ret_status the exit status (help
 * printed, or a usage error).
 */
int	options_config_only(const struct cli_command *, int argc, char **argv,
	    const char *help, const char *what, const char **ret_config,
	    int *ret_status);

/*
 * Checks that argc - optind operands remain, exactly want of them; prints
 * a usage error and returns CLI_USAGE otherwise. what names the operand.
 */
int	options_operands(const struct cli_command *, int argc, char **argv,
	    int want, const char *what);

/*
 * The grants directory, as brokerd reads it from brokerd.toml: the file at
 * config_path, or brokerd's default when it is NULL (a missing default
 * says that `bxctl init` writes one). Returns CLI_OK with *ret a new
 * string the caller frees, or prints why not and returns CLI_FAIL.
 */
int	options_grants_dir(const char *config_path, char **ret);

/*
 * The same, and the directory brokerd.toml is in, whose secrets/ holds
 * the secret files (brokerd/secret.h): CLI_OK with both new strings the
 * caller frees, or CLI_FAIL, said.
 */
int	options_config_dirs(const char *config_path, char **ret_config_dir,
	    char **ret_grants_dir);

#endif
