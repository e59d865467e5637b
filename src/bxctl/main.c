/*
 * bxctl: the program's entry point. Until its issue lands it only prints
 * its usage and exits 2, so nothing pretends to work.
 */
#include <stdio.h>

int
main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	fprintf(stderr, "usage: bxctl serve --config PATH\n");
	fprintf(stderr, "bxctl: not implemented yet in this build\n");
	return 2;
}
