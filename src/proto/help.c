/*
 * help.c: what on a command line asks for help, and how usage looks
 * (help.h).
 */
#include <string.h>

#include "proto/help.h"

bool
bx_help_word(const char *arg)
{
	return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0;
}

bool
bx_help_asked(int argc, char **argv, int first)
{
	int i;

	for (i = first; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			return false;
		if (bx_help_word(argv[i]))
			return true;
	}
	return false;
}

void
bx_help_usage_line(FILE *fp, size_t i, const char *line)
{
	fprintf(fp, "%s%s\n", i == 0 ? "usage: " : "       ", line);
}
