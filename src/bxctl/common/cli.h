/*
 * cli.h: what every bxctl command shares: its entry in the command table
 * (main.c), the usage and help texts, option errors, and the one-line
 * failure messages. Only these functions print bxctl's own messages, so
 * every command reports errors the same way:
 *
 *	bxctl approve: unknown option '--frob'		(stderr, exit 2)
 *	usage: bxctl approve [--admin-socket PATH] ID
 *
 *	bxctl: brokerd is not running at /x/admin.sock	(stderr, exit 1)
 *
 * Exit statuses: CLI_OK 0, CLI_FAIL 1 (the command ran and failed, or
 * found problems), CLI_USAGE 2 (the command line was wrong).
 *
 * Nothing here allocates. Every string a peer or the command line supplied
 * goes through escape.h before it is printed.
 */
#ifndef BXCTL_CLI_H
#define BXCTL_CLI_H

#include <stdio.h>

#define CLI_OK		0
#define CLI_FAIL	1
#define CLI_USAGE	2

/*
 * One command. name is one or two words ("approvals", "grants check");
 * run() gets argv with argv[0] the command's last word and the command's
 * options and operands after it, and returns the exit status. usage is the
 * whole usage line, starting with "bxctl ".
 */
struct cli_command {
	const char	*name;
	int		(*run)(const struct cli_command *, int argc, char **argv);
	const char	*usage;
};

/*
 * Prints "usage: <usage>" and, if details is not NULL, a blank line and
 * details (options, one per line) on stdout; returns CLI_OK. For --help.
 */
int	cli_help(const struct cli_command *, const char *details);

/*
 * Prints "bxctl <name>: <message>" and "usage: <usage>" on stderr; returns
 * CLI_USAGE.
 */
int	cli_usage_error(const struct cli_command *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/*
 * For getopt_long() called with opterr = 0 and an optstring starting with
 * ':': turns its '?' (unknown option) or ':' (missing argument) into a
 * usage error naming the option; returns CLI_USAGE.
 */
int	cli_option_error(const struct cli_command *, int ch, char **argv);

/* Prints "bxctl: <message>" on stderr; returns CLI_FAIL. */
int	cli_fail(const char *fmt, ...)
	    __attribute__((format(printf, 1, 2)));

#endif
