/*
 * secrets_remove.c: `bxctl secrets remove NAME`, one secret file taken out
 * of the secrets directory: only <config_dir>/secrets/<NAME>.toml, a
 * regular file, for a NAME that is a secret name (putfile.h). A call
 * under a grant that still names it then fails before anything is sent.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bxctl/commands.h"
#include "proto/escape.h"
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

	if (options_config_only(cmd, argc, argv, secrets_remove_help, "NAME",
	    &config, &status) == -1)
		return status;
	if ((status = options_config_dirs(config, &config_dir,
	    &grants_dir)) != CLI_OK)
		return status;
	status = remove_secret(config_dir, argv[optind]);
	free(config_dir);
	free(grants_dir);
	return status;
}
