/*
 * test-strlist.c: a list of strings copied into one allocation: the copy
 * equals the original, does not alias it, and one free releases it.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/strlist.h"

static void
test_copy_is_equal_and_separate(void **state)
{
	char a[] = "/home/kyle/notes", b[] = "", c[] = "*.example.org";
	const char *from[] = { a, b, c };
	struct bx_error err;
	char **list = NULL;
	size_t i;

	(void)state;
	assert_int_equal(bx_strlist_copy(from, 3, &list, &err), 0);
	assert_non_null(list);
	for (i = 0; i < 3; i++) {
		assert_string_equal(list[i], from[i]);
		assert_ptr_not_equal(list[i], from[i]);
	}
	/* The strings lie after the pointers, in order, inside the block. */
	assert_true((char *)list[0] == (char *)(list + 3));
	assert_true(list[1] == list[0] + sizeof(a));
	assert_true(list[2] == list[1] + sizeof(b));
	a[0] = 'X';
	assert_string_equal(list[0], "/home/kyle/notes");
	free(list);
}

static void
test_empty_list_is_null(void **state)
{
	struct bx_error err;
	char *sentinel = "x", **list = &sentinel;

	(void)state;
	assert_int_equal(bx_strlist_copy(NULL, 0, &list, &err), 0);
	assert_null(list);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_copy_is_equal_and_separate),
		cmocka_unit_test(test_empty_list_is_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
