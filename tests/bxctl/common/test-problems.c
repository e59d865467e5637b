/*
 * test-problems.c: src/bxctl/common/problems.h, the problems bxctl gathers
 * from brokerd's readers: each held once, copied, printed as
 * FILE:LINE: PROBLEM as data after a prefix, and the refusal of a file
 * about to be written in `bxctl grants add` and `bxctl secrets add` words.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxctl/common/problems.h"

/* What problems_print() writes for l after prefix. */
static char *
printed(const struct problem_list *l, const char *prefix)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp;

	assert_non_null(fp = open_memstream(&mem, &memlen));
	problems_print(fp, l, prefix);
	assert_int_equal(fclose(fp), 0);
	return mem;
}

/* The same file, line and text once; any difference is another. */
static void
test_held_once(void **state)
{
	struct problem_list l = { NULL, 0 };
	char text[] = "mode 0755, not 0700";
	char *out;

	(void)state;
	assert_int_equal(problems_add(&l, "/c/secrets", 0, text), 0);
	text[5] = 'X';		/* the list holds its own copy */
	assert_int_equal(problems_add(&l, "/c/secrets", 0,
	    "mode 0755, not 0700"), 0);
	assert_int_equal(problems_add(&l, "/c/secrets", 3,
	    "mode 0755, not 0700"), 0);
	assert_int_equal(problems_add(&l, "/c/secrets/a.toml", 3,
	    "mode 0755, not 0700"), 0);
	assert_int_equal(l.pl_len, 3);
	out = printed(&l, NULL);
	assert_string_equal(out, "/c/secrets: mode 0755, not 0700\n"
	    "/c/secrets:3: mode 0755, not 0700\n"
	    "/c/secrets/a.toml:3: mode 0755, not 0700\n");
	free(out);
	problems_clear(&l);
	assert_null(l.pl_items);
	assert_int_equal(l.pl_len, 0);
}

/* add_all keeps from's order and drops what to holds already. */
static void
test_add_all(void **state)
{
	struct problem_list a = { NULL, 0 }, b = { NULL, 0 };
	char *out;

	(void)state;
	assert_int_equal(problems_add(&a, "f", 1, "one"), 0);
	assert_int_equal(problems_add(&b, "f", 1, "one"), 0);
	assert_int_equal(problems_add(&b, "g", 2, "two"), 0);
	assert_int_equal(problems_add_all(&a, &b), 0);
	out = printed(&a, "problem: ");
	assert_string_equal(out, "problem: f:1: one\nproblem: g:2: two\n");
	free(out);
	problems_clear(&a);
	problems_clear(&b);
}

/* A file name and a problem from a file are printed as data. */
static void
test_printed_as_data(void **state)
{
	struct problem_list l = { NULL, 0 };
	char *out;

	(void)state;
	assert_int_equal(problems_add(&l, "a\x1b[2J.toml", 7, "bad\rline"),
	    0);
	out = printed(&l, "x: ");
	assert_string_equal(out, "x: a\\u001b[2J.toml:7: bad\\u000dline\n");
	free(out);
	problems_clear(&l);
}

/* The refusal on standard error: each problem, then why nothing was written. */
static void
test_refused(void **state)
{
	struct problem_list l = { NULL, 0 };
	char buf[512];
	ssize_t n;
	int fds[2], saved;

	(void)state;
	assert_int_equal(problems_add(&l, "/g/x.toml", 4, "unknown key"), 0);
	assert_int_equal(pipe(fds), 0);
	fflush(stderr);
	assert_true((saved = dup(STDERR_FILENO)) != -1);
	assert_int_equal(dup2(fds[1], STDERR_FILENO), STDERR_FILENO);
	problems_refused(&l, "grants add", "grant");
	fflush(stderr);
	assert_int_equal(dup2(saved, STDERR_FILENO), STDERR_FILENO);
	close(saved);
	close(fds[1]);
	n = read(fds[0], buf, sizeof(buf) - 1);
	close(fds[0]);
	assert_true(n > 0);
	buf[n] = '\0';
	assert_string_equal(buf, "bxctl grants add: /g/x.toml:4: unknown key\n"
	    "bxctl grants add: brokerd would refuse this grant, so nothing "
	    "was written\n");
	problems_clear(&l);
}

/* How bxctl says it wrote a file: the directory as data, not the name. */
static void
test_written(void **state)
{
	char *mem = NULL;
	size_t memlen = 0;
	FILE *fp;

	(void)state;
	assert_non_null(fp = open_memstream(&mem, &memlen));
	problems_written(fp, "added grant", "notes", "/home/k/\x1b[2Jgrants");
	assert_int_equal(fclose(fp), 0);
	assert_string_equal(mem, "added grant notes (/home/k/\\u001b[2Jgrants/"
	    "notes.toml)\n");
	free(mem);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_written),
		cmocka_unit_test(test_held_once),
		cmocka_unit_test(test_add_all),
		cmocka_unit_test(test_printed_as_data),
		cmocka_unit_test(test_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
