/*
 * brokerd: the program's entry point, a table of subcommands. Each entry's
 * function is the top of the program for that subcommand: it gets argv
 * from the subcommand's name on and returns the exit status.
 */
#include <stdio.h>
#include <string.h>

#include "brokerd/explain.h"
#include "brokerd/serve.h"

struct command {
	const char	*cmd_name;
	int		(*cmd_main)(int, char **, FILE *, FILE *);
};

static const struct command commands[] = {
	{ "explain", explain_main },
	{ "serve", serve_main },
};

static int
usage(void)
{
	fprintf(stderr, "usage: brokerd explain --config PATH [--taint CLASS] "
	    "[--now TIMESTAMP] [--json] TOOL ARGUMENTS_JSON\n");
	fprintf(stderr, "       brokerd serve --config PATH [--accept-break]\n");
	return 2;
}

int
main(int argc, char **argv)
{
	size_t i;

	if (argc < 2)
		return usage();
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (strcmp(argv[1], commands[i].cmd_name) == 0)
			return commands[i].cmd_main(argc - 1, argv + 1,
			    stdout, stderr);
	fprintf(stderr, "brokerd: unknown command \"%s\"\n", argv[1]);
	return usage();
}
