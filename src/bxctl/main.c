/*
 * bxctl: the owner's command line. main() only finds the command in the
 * table below and hands it the rest of the command line; each command
 * parses its own options (cli.h). Adding a command is one line here.
 */
#include <stdio.h>
#include <string.h>

#include "bxctl/audit/audit_verify.h"
#include "bxctl/commands.h"
#include "bxctl/common/cli.h"
#include "bxctl/log/log_args.h"
#include "proto/help.h"

static const struct cli_command commands[] = {
	{ "init", cmd_init, "bxctl init [--runtime podman|bwrap] [--force]" },
	{ "audit verify", cmd_audit_verify,
	    "bxctl audit verify [--home PATH] [--anchor SEQ:HASH]... "
	    "[--anchors FILE]" },
	{ "audit head", cmd_audit_head, "bxctl audit head [--home PATH]" },
	{ "log", cmd_log, LOG_USAGE },
	{ "status", cmd_status, "bxctl status [--home PATH] "
	    "[--admin-socket PATH] [--loop-socket PATH] [--json]" },
	{ "sessions", cmd_sessions,
	    "bxctl sessions [--json] [--admin-socket PATH]" },
	{ "explain", cmd_explain, "bxctl explain [--session ID] [--json] "
	    "[--admin-socket PATH] TOOL ARGUMENTS_JSON" },
	{ "grants list", cmd_grants_list,
	    "bxctl grants list [--json] [--admin-socket PATH]" },
	{ "approvals", cmd_approvals,
	    "bxctl approvals [--follow [--json] [--home PATH]] "
	    "[--admin-socket PATH]" },
	{ "approve", cmd_approve,
	    "bxctl approve [--for DURATION [--config PATH]] "
	    "[--admin-socket PATH] ID" },
	{ "refuse", cmd_refuse,
	    "bxctl refuse [--admin-socket PATH] [--reason TEXT] ID" },
	{ "grants check", cmd_grants_check,
	    "bxctl grants check [--admin-socket PATH] [--config PATH]" },
	{ "grants add", cmd_grants_add,
	    "bxctl grants add TOOL (--path P... | --host H...) "
	    "--mode auto|ask|deny --expires DURATION|TIME [--max-taint C] "
	    "[--class C] [--untrusted] [--secret NAME] [--id ID] "
	    "[--config PATH]" },
	{ "grants remove", cmd_grants_remove,
	    "bxctl grants remove [--config PATH] ID" },
	{ "grants prune", cmd_grants_prune,
	    "bxctl grants prune [--expired-for DURATION] [--dry-run] "
	    "[--config PATH]" },
	{ "secrets add", cmd_secrets_add,
	    "bxctl secrets add NAME --host H... (--bearer | --header NAME | "
	    "--basic USER) [--replace] [--config PATH]" },
	{ "secrets list", cmd_secrets_list,
	    "bxctl secrets list [--json] [--config PATH]" },
	{ "secrets remove", cmd_secrets_remove,
	    "bxctl secrets remove [--config PATH] NAME" },
	{ "chat", cmd_chat,
	    "bxctl chat [--session ID] [--say TEXT] [--json] "
	    "[--loop-socket PATH] [--admin-socket PATH]" },
};

#define NCOMMANDS	(sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *fp)
{
	size_t i;

	for (i = 0; i < NCOMMANDS; i++)
		bx_help_usage_line(fp, i, commands[i].usage);
	bx_help_usage_line(fp, i, "bxctl COMMAND --help");
	bx_help_usage_line(fp, i, "bxctl help [COMMAND]");
}

/*
 * Whether argv names cmd: its one word, or its two words. *ret_words is
 * how many words of argv the name used.
 */
static int
matches(const struct cli_command *cmd, int argc, char **argv, int *ret_words)
{
	const char *space = strchr(cmd->name, ' ');
	size_t first;

	if (space == NULL) {
		if (strcmp(argv[0], cmd->name) != 0)
			return 0;
		*ret_words = 1;
		return 1;
	}
	first = (size_t)(space - cmd->name);
	if (strlen(argv[0]) != first || strncmp(argv[0], cmd->name, first) != 0)
		return 0;
	if (argc < 2 || strcmp(argv[1], space + 1) != 0)
		return 0;
	*ret_words = 2;
	return 1;
}

/* A command's output that could not be written is a failure. */
static int
finish(int status)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		return cli_fail("cannot write to standard output");
	return status;
}

/* Says what is wrong with a command line that names no command. */
static void
unknown(int argc, char **argv)
{
	size_t i, first;

	for (i = 0; i < NCOMMANDS; i++) {
		first = strcspn(commands[i].name, " ");
		if (commands[i].name[first] == '\0' ||
		    strlen(argv[1]) != first ||
		    strncmp(argv[1], commands[i].name, first) != 0)
			continue;
		if (argc < 3)
			cli_fail("'%s' needs a subcommand", argv[1]);
		else
			cli_fail("unknown command '%s %s'", argv[1], argv[2]);
		return;
	}
	cli_fail("unknown command '%s'", argv[1]);
}

/*
 * `bxctl help COMMAND`: the command's own --help, so that both say the
 * same. argv[0] is "help".
 */
static int
help(int argc, char **argv)
{
	char *help_argv[3] = { NULL, "--help", NULL };
	size_t i;
	int words;

	for (i = 0; i < NCOMMANDS; i++) {
		if (!matches(&commands[i], argc - 1, argv + 1, &words) ||
		    argc - 1 != words)
			continue;
		help_argv[0] = argv[words];
		return finish(commands[i].run(&commands[i], 2, help_argv));
	}
	unknown(argc, argv);
	usage(stderr);
	return CLI_USAGE;
}

int
main(int argc, char **argv)
{
	size_t i;
	int words;

	if (argc < 2) {
		usage(stderr);
		return CLI_USAGE;
	}
	if (bx_help_word(argv[1]) ||
	    (strcmp(argv[1], "help") == 0 && argc == 2)) {
		usage(stdout);
		return finish(CLI_OK);
	}
	if (strcmp(argv[1], "help") == 0)
		return help(argc - 1, argv + 1);
	for (i = 0; i < NCOMMANDS; i++)
		if (matches(&commands[i], argc - 1, argv + 1, &words))
			return finish(commands[i].run(&commands[i],
			    argc - words, argv + words));
	unknown(argc, argv);
	usage(stderr);
	return CLI_USAGE;
}
