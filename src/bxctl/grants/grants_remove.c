/*
 * grants_remove.c: `bxctl grants remove ID`, one grant file taken out of
 * the grants directory: only <grants>/<ID>.toml, a regular file, for an ID
 * that is a grant id (grantwrite.h). The change applies to the next call,
 * as every edit of the grant files does.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "bxctl/commands.h"
#include "bxctl/common/escape.h"
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

/* Returns 0 with *ret_config, or -1 with *ret_status. */
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
			*ret_status = cli_help(cmd, grants_remove_help);
			return -1;
		default:
			*ret_status = cli_option_error(cmd, ch, argv);
			return -1;
		}
	}
	if ((*ret_status = options_operands(cmd, argc, argv, 1, "grant ID")) !=
	    CLI_OK)
		return -1;
	*ret_config = config;
	return 0;
}

int
cmd_grants_remove(const struct cli_command *cmd, int argc, char **argv)
{
	const char *config, *id;
	struct bx_error err;
	char *dir;
	int status;

	if (parse(cmd, argc, argv, &config, &status) == -1)
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
