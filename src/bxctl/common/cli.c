/*
 * cli.c: bxctl's usage, help and error lines (cli.h). Messages are
 * formatted first and then escaped as a whole, so an option or operand
 * typed on the command line prints as data like everything else.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <getopt.h>

#include "bxctl/common/cli.h"
#include "proto/escape.h"
#include "proto/help.h"

/* The longest message line before escaping; longer ones are cut. */
#define CLI_LINE_MAX	1024

static void
vprint_line(const char *prefix, const char *fmt, va_list ap)
{
	char line[CLI_LINE_MAX], shown[CLI_LINE_MAX * ESCAPE_GROWTH];

	vsnprintf(line, sizeof(line), fmt, ap);
	fprintf(stderr, "%s: %s\n", prefix,
	    escape_buf(line, shown, sizeof(shown)));
}

int
cli_help(const struct cli_command *cmd, const char *details)
{
	bx_help_usage_line(stdout, 0, cmd->usage);
	if (details != NULL)
		printf("\n%s", details);
	return CLI_OK;
}

int
cli_usage_error(const struct cli_command *cmd, const char *fmt, ...)
{
	char prefix[64];
	va_list ap;

	snprintf(prefix, sizeof(prefix), "bxctl %s", cmd->name);
	va_start(ap, fmt);
	vprint_line(prefix, fmt, ap);
	va_end(ap);
	bx_help_usage_line(stderr, 0, cmd->usage);
	return CLI_USAGE;
}

int
cli_option_error(const struct cli_command *cmd, int ch, char **argv)
{
	const char *opt = argv[optind - 1];
	char shortopt[3] = { '-', (char)optopt, '\0' };

	/*
	 * For a short option getopt sets optopt; argv[optind - 1] may then be
	 * a bundle such as "-xv". For a long one optopt is 0 (or the value of
	 * a known option missing its argument).
	 */
	if (optopt != 0 && strncmp(opt, "--", 2) != 0)
		opt = shortopt;
	if (ch == ':')
		return cli_usage_error(cmd, "option '%s' needs an argument",
		    opt);
	return cli_usage_error(cmd, "unknown option '%s'", opt);
}

int
cli_fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vprint_line("bxctl", fmt, ap);
	va_end(ap);
	return CLI_FAIL;
}
