/*
 * brokerd: the program's entry point, a table of subcommands. Each entry's
 * function is the top of the program for that subcommand: it gets argv
 * from the subcommand's name on and returns the exit status. Help follows
 * proto/help.h: usage on stdout and 0 when asked for, on stderr and 2 when
 * the command line is wrong.
 */
#include <stdio.h>
#include <string.h>

#include "brokerd/explain.h"
#include "brokerd/serve.h"
#include "proto/help.h"

struct command {
	const char	*cmd_name;
	int		(*cmd_main)(int, char **, FILE *, FILE *);
	const char	*cmd_usage;
};

static const struct command commands[] = {
	{ "explain", explain_main, EXPLAIN_USAGE },
	{ "serve", serve_main, SERVE_USAGE },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *fp)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		bx_help_usage_line(fp, i, commands[i].cmd_usage);
	bx_help_usage_line(fp, i, "brokerd help [COMMAND]");
}

static const struct command *
find(const char *name)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		if (strcmp(name, commands[i].cmd_name) == 0)
			return &commands[i];
	return NULL;
}

static int
unknown(const char *name)
{
	fprintf(stderr, "brokerd: unknown command \"%s\"\n", name);
	usage(stderr);
	return 2;
}

/* `brokerd help [COMMAND]`: argv[0] is "help". */
static int
help(int argc, char **argv)
{
	const struct command *cmd;

	if (argc == 1) {
		usage(stdout);
		return 0;
	}
	if (argc > 2) {
		fprintf(stderr, "brokerd: help takes at most one command\n");
		usage(stderr);
		return 2;
	}
	if ((cmd = find(argv[1])) == NULL)
		return unknown(argv[1]);
	bx_help_usage_line(stdout, 0, cmd->cmd_usage);
	return 0;
}

int
main(int argc, char **argv)
{
	const struct command *cmd;

	if (argc < 2) {
		usage(stderr);
		return 2;
	}
	if (bx_help_word(argv[1]) || strcmp(argv[1], "help") == 0)
		return help(argc - 1, argv + 1);
	if ((cmd = find(argv[1])) == NULL)
		return unknown(argv[1]);
	if (bx_help_asked(argc, argv, 2)) {
		bx_help_usage_line(stdout, 0, cmd->cmd_usage);
		return 0;
	}
	return cmd->cmd_main(argc - 1, argv + 1, stdout, stderr);
}
