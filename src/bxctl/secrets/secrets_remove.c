/*
 * secrets_remove.c: `bxctl secrets remove NAME`, one secret file taken out
 * of the secrets directory: only <config_dir>/secrets/<NAME>.toml, a
 * regular file, for a NAME that is a secret name (putfile.h). A call
 * under a grant that still names it then fails before anything is sent.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "bxctl/commands.h"
#include "bxctl/common/escape.h"
#include "bxctl/common/options.h"
#include "bxctl/common/putfile.h"
#include "bxctl/secrets/secretdir.h"
#include "proto/types.h"

static const char secrets_remove_help[] =
    "Removes the secret NAME: the file secrets/NAME.toml beside\n"
    "brokerd.toml, and nothing else (a name that is not a secret name, or\n"
    "anything but a regular file there, is refused). A call under a grant\n"
    "that names it then fails before sending anything.\n"
    "\n"
    "  --config PATH        brokerd.toml, whose directory holds secrets/\n"
    "                       (default: brokerd's own default)\n"
    "  --help               this text\n";

/* 0 with *ret_config, or -1 with *ret_status. */
static int
parse(const struct cli_command *cmd, int argc, char **argv,
    const char **ret_config, int *ret_status)
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
			*ret_status = cli_help(cmd, secrets_remove_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	if ((*ret_status = options_operands(cmd, argc, argv, 1, "NAME")) !=
	    CLI_OK)
		return -1;
	*ret_config = config;
	return 0;
}

static int
remove_secret(const char *config_dir, const char *name)
{
	char dir[4096], entry[BX_ID_MAX + 6], what[BX_ID_MAX + 8];
	struct bx_error err;

	if (bx_secret_name_check(name, &err) == -1)
		return cli_fail("'%s' is not a secret name (1 to %d characters "
		    "of a-z, 0-9 and -)", name, BX_ID_MAX);
	if (secretdir_path(config_dir, dir, sizeof(dir), &err) == -1)
		return cli_fail("%s", err.msg);
	snprintf(entry, sizeof(entry), "%s.toml", name);
	snprintf(what, sizeof(what), "secret %s", name);
	if (putfile_remove(dir, entry, what, &err) == -1)
		return cli_fail("%s", err.msg);
	printf("removed secret %s (", name);
	escape_puts(stdout, dir);
	printf("/%s)\n", entry);
	return CLI_OK;
}

int
cmd_secrets_remove(const struct cli_command *cmd, int argc, char **argv)
{
	const char *config;
	char *config_dir, *grants_dir;
	int status;

	if (parse(cmd, argc, argv, &config, &status) == -1)
		return status;
	if ((status = options_config_dirs(config, &config_dir,
	    &grants_dir)) != CLI_OK)
		return status;
	status = remove_secret(config_dir, argv[optind]);
	free(config_dir);
	free(grants_dir);
	return status;
}
