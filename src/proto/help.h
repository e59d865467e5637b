/*
 * help.h: the one rule every Boxmaker program follows for help.
 *
 *	PROG --help | -h | help		the whole usage on stdout, exit 0
 *	PROG help COMMAND		that command's usage on stdout, exit 0
 *	PROG COMMAND ... --help | -h	likewise
 *	an unknown command or option	usage on stderr, exit 2
 *
 * Each program keeps its own usage text; this reads the command line, so
 * the programs agree on what asks for help, and prints usage lines, so
 * they agree on how usage looks:
 *
 *	usage: prog first form
 *	       prog second form
 */
#ifndef BX_PROTO_HELP_H
#define BX_PROTO_HELP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* Whether arg is "--help" or "-h". */
bool	bx_help_word(const char *arg);

/*
 * Whether argv[first] to argv[argc - 1] holds "--help" or "-h" before any
 * "--" (after which every word is an operand, such as a command to run).
 */
bool	bx_help_asked(int argc, char **argv, int first);

/* Usage line i of a program's: "usage: " before the first, spaces after. */
void	bx_help_usage_line(FILE *fp, size_t i, const char *line);

#endif
