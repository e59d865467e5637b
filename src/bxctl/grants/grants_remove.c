/*
 * grants_remove.c: `bxctl grants remove ID`, one grant file taken out of
 * the grants directory: only <grants>/<ID>.toml, a regular file, for an ID
 * that is a grant id (grantwrite.h). The change applies to the next call,
 * as every edit of the grant files does.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "bxctl/commands.h"
#include "proto/escape.h"
#include "bxctl/common/options.h"
#include "bxctl/grants/grantwrite.h"

static const char grants_remove_help[] =
    "Removes the grant ID: the file grants/ID.toml, and nothing else (a\n"
    "name that is not a grant id, or anything but a regular file there,\n"
    "is refused). The next call no longer finds it.\n"
    "\n"
    "  --config PATH        brokerd.toml, for the grants directory\n"
    "                       (default: brokerd's own default)\n"
    "  --help               this text\n";

int
cmd_grants_remove(const struct cli_command *cmd, int argc, char **argv)
{
	const char *config, *id;
	struct bx_error err;
	char *dir;
	int status;

	if (options_config_only(cmd, argc, argv, grants_remove_help, "grant ID",
	    &config, &status) == -1)
		return status;
	id = argv[optind];
	if ((status = options_grants_dir(config, &dir)) != CLI_OK)
		return status;
	if (grantwrite_remove(dir, id, &err) == -1)
		status = cli_fail("%s", err.msg);
	else {
		printf("removed grant %s (", id);
		escape_puts(stdout, dir);
		printf("/%s.toml)\n", id);
	}
	free(dir);
	return status;
}
