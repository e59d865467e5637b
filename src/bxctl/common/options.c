/*
 * options.c: option helpers shared by the admin commands (options.h).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/config.h"
#include "bxctl/common/options.h"

int
options_socket(const struct cli_command *cmd, const char *path,
    const char *rel, char *buf)
{
	struct bx_error err;

	if (path == NULL) {
		if (sock_default_path(rel, buf, &err) == -1)
			return cli_usage_error(cmd, "%s", err.msg);
		return CLI_OK;
	}
	if (strlen(path) >= SOCK_PATH_MAX)
		return cli_usage_error(cmd, "the socket path is too long");
	memcpy(buf, path, strlen(path) + 1);
	return CLI_OK;
}

int
options_approval_id(const struct cli_command *cmd, const char *s,
    uint64_t *ret)
{
	uintmax_t v;
	char *end;

	if (s[0] < '0' || s[0] > '9')
		goto bad;
	errno = 0;
	v = strtoumax(s, &end, 10);
	if (errno != 0 || *end != '\0' || v > INT64_MAX)
		goto bad;
	*ret = (uint64_t)v;
	return CLI_OK;
bad:
	return cli_usage_error(cmd, "'%s' is not an approval id (a number)",
	    s);
}

int
options_admin_json(const struct cli_command *cmd, int argc, char **argv,
    const char *help, char *buf, bool *ret_json, int *ret_status)
{
	static const struct option longopts[] = {
		{ "admin-socket", required_argument, NULL, 'a' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	const char *socket = NULL;
	bool json = false;
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'a':
			socket = optarg;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			*ret_status = cli_help(cmd, help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	if ((*ret_status = options_operands(cmd, argc, argv, 0, "")) != CLI_OK)
		return -1;
	if ((*ret_status = options_socket(cmd, socket, BX_HOME_ADMIN_SOCKET,
	    buf)) != CLI_OK)
		return -1;
	*ret_json = json;
	return 0;
}

int
options_operands(const struct cli_command *cmd, int argc, char **argv,
    int want, const char *what)
{
	int have = argc - optind;

	if (have < want)
		return cli_usage_error(cmd, "missing %s", what);
	if (have > want)
		return cli_usage_error(cmd, "unexpected argument '%s'",
		    argv[optind + want]);
	return CLI_OK;
}

int
options_config_dirs(const char *config_path, char **ret_config_dir,
    char **ret_grants_dir)
{
	struct config *c;
	struct bx_error err;
	char *config_dir, *grants_dir, *slash;

	if (config_load(config_path, &c, &err) == -1)
		return cli_fail("%s", err.msg);
	config_dir = strdup(c->c_path);
	grants_dir = strdup(c->c_grants);
	config_free(c);
	if (config_dir == NULL || grants_dir == NULL) {
		free(config_dir);
		free(grants_dir);
		return cli_fail("out of memory");
	}
	/* brokerd.toml's directory: "." for a name with no slash. */
	if ((slash = strrchr(config_dir, '/')) == NULL)
		strcpy(config_dir, ".");
	else
		slash[slash == config_dir ? 1 : 0] = '\0';
	*ret_config_dir = config_dir;
	*ret_grants_dir = grants_dir;
	return CLI_OK;
}

int
options_config_only(const struct cli_command *cmd, int argc, char **argv,
    const char *help, const char *what, const char **ret_config,
    int *ret_status)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *config = NULL;
	int ch;

	optind = 0;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c':
			config = optarg;
			break;
		case 'h':
			*ret_status = cli_help(cmd, help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	if ((*ret_status = options_operands(cmd, argc, argv, 1, what)) !=
	    CLI_OK)
		return -1;
	*ret_config = config;
	return 0;
}

int
options_grants_dir(const char *config_path, char **ret)
{
	char *config_dir, *grants_dir;
	int status;

	if ((status = options_config_dirs(config_path, &config_dir,
	    &grants_dir)) != CLI_OK)
		return status;
	free(config_dir);
	*ret = grants_dir;
	return CLI_OK;
}
