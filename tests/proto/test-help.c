/*
 * test-help.c: what on a command line asks for help (proto/help.h): the
 * two words exactly, anywhere from the first word looked at, and never
 * after "--", where the words belong to a command being run.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <cmocka.h>

#include "proto/help.h"

#define NWORDS(a)	((int)(sizeof(a) / sizeof((a)[0])))

static void
test_words(void **state)
{
	(void)state;
	assert_true(bx_help_word("--help"));
	assert_true(bx_help_word("-h"));
	assert_false(bx_help_word("help"));
	assert_false(bx_help_word("--help=x"));
	assert_false(bx_help_word("-hv"));
	assert_false(bx_help_word("--HELP"));
	assert_false(bx_help_word(""));
}

static void
test_asked(void **state)
{
	char *serve[] = { "brokerd", "serve", "--config", "x", "-h" };
	char *first[] = { "brokerd", "--help" };
	char *none[] = { "brokerd", "serve", "--config", "-help" };

	(void)state;
	assert_true(bx_help_asked(NWORDS(serve), serve, 1));
	assert_true(bx_help_asked(NWORDS(serve), serve, 4));
	assert_true(bx_help_asked(NWORDS(first), first, 1));
	assert_false(bx_help_asked(NWORDS(first), first, 2));
	assert_false(bx_help_asked(NWORDS(none), none, 1));
	assert_false(bx_help_asked(0, NULL, 0));
}

static void
test_operands_after_dashes(void **state)
{
	char *run[] = { "bxtool", "run", "--", "ls", "--help" };
	char *before[] = { "bxtool", "run", "-h", "--", "ls" };

	(void)state;
	assert_false(bx_help_asked(NWORDS(run), run, 1));
	assert_true(bx_help_asked(NWORDS(before), before, 1));
}

/* The first line says "usage: ", the rest line up under it. */
static void
test_usage_lines(void **state)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&text, &len));
	bx_help_usage_line(fp, 0, "prog run FILE");
	bx_help_usage_line(fp, 1, "prog help [COMMAND]");
	bx_help_usage_line(fp, 2, "prog stop");
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(text, "usage: prog run FILE\n"
	    "       prog help [COMMAND]\n"
	    "       prog stop\n");
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_words),
		cmocka_unit_test(test_asked),
		cmocka_unit_test(test_operands_after_dashes),
		cmocka_unit_test(test_usage_lines),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
