/*
 * test-linein.c: plain lines with Ctrl-C heard while waiting (linein.h,
 * interrupt.h): lines split across reads, a last line without a newline,
 * a line over LINEIN_MAX cut and its rest dropped, and a SIGINT that came
 * before the wait ending it at once instead of being lost (the chat-tty
 * flake's shape: a signal between a look at the flag and a blocking
 * read).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxctl/chat/interrupt.h"
#include "bxctl/chat/linein.h"

static void
put(int fd, const char *text, size_t len)
{
	assert_int_equal(write(fd, text, len), (ssize_t)len);
}

static void
expect_line(struct linein *li, const char *want)
{
	const char *line;
	size_t len;

	assert_int_equal(linein_read(li, &line, &len), 1);
	assert_int_equal(len, strlen(want));
	assert_string_equal(line, want);
}

static void
test_lines_and_last_line_without_newline(void **state)
{
	struct linein *li;
	const char *line;
	size_t len;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	put(p[1], "one\ntw", 6);
	assert_non_null(li = linein_open(p[0]));
	expect_line(li, "one");
	put(p[1], "o\n\nthree", 8);
	close(p[1]);
	expect_line(li, "two");
	expect_line(li, "");
	expect_line(li, "three");
	assert_int_equal(linein_read(li, &line, &len), 0);
	linein_close(li);
	close(p[0]);
}

/* A writer in a child: the line is longer than a pipe holds. */
static void
test_long_line_cut_and_rest_dropped(void **state)
{
	struct linein *li;
	const char *line;
	char *big;
	size_t len;
	pid_t pid;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	if ((pid = fork()) == 0) {
		close(p[0]);
		big = malloc(LINEIN_MAX + 10);
		memset(big, 'x', LINEIN_MAX + 10);
		put(p[1], big, LINEIN_MAX + 10);
		put(p[1], "\nnext\n", 6);
		_exit(0);
	}
	close(p[1]);
	assert_non_null(li = linein_open(p[0]));
	assert_int_equal(linein_read(li, &line, &len), 1);
	assert_int_equal(len, LINEIN_MAX);
	assert_int_equal(line[0], 'x');
	assert_int_equal(line[LINEIN_MAX - 1], 'x');
	expect_line(li, "next");
	assert_int_equal(linein_read(li, &line, &len), 0);
	linein_close(li);
	close(p[0]);
}

/*
 * The SIGINT comes before anything waits, with the writer still open: a
 * handler's flag would be missed by the blocking read that follows.
 */
static void
test_sigint_before_the_wait_ends_it(void **state)
{
	struct linein *li;
	const char *line;
	size_t len;
	int p[2];

	(void)state;
	assert_int_equal(interrupt_install(), 0);
	assert_true(interrupt_fd() >= 0);
	assert_false(interrupt_take());
	assert_int_equal(pipe(p), 0);
	assert_non_null(li = linein_open(p[0]));
	assert_int_equal(kill(getpid(), SIGINT), 0);
	assert_int_equal(linein_read(li, &line, &len), -1);
	assert_true(interrupt_pending());
	/* Kept until taken, then gone: the next read sees the line. */
	assert_true(interrupt_take());
	assert_false(interrupt_pending());
	put(p[1], "after\n", 6);
	expect_line(li, "after");
	/* Data and a SIGINT both waiting: the SIGINT wins. */
	put(p[1], "x", 1);
	assert_int_equal(kill(getpid(), SIGINT), 0);
	assert_int_equal(interrupt_wait(p[0]), 0);
	assert_true(interrupt_take());
	assert_int_equal(interrupt_wait(p[0]), 1);
	linein_close(li);
	close(p[0]);
	close(p[1]);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lines_and_last_line_without_newline),
		cmocka_unit_test(test_long_line_cut_and_rest_dropped),
		cmocka_unit_test(test_sigint_before_the_wait_ends_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
