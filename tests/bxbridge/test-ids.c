/* test-ids.c: the form of a Mattermost id (src/bxbridge/ids.h). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

#include "bxbridge/ids.h"

static void
test_ids(void **state)
{
	static const char *const bad[] = {
		"", "abc", "k4d3m7x9p2q8r5s1t6u0v3w8y",
		"k4d3m7x9p2q8r5s1t6u0v3w8yzz", "K4d3m7x9p2q8r5s1t6u0v3w8yz",
		"k4d3m7x9p2q8r5s1t6u0v3w8y_", "k4d3m7x9p2q8r5s1t6u0v3w8y/",
		"../../../api/v4/users/me00", "k4d3m7x9p2q8r5s1t6u0v3w8y\xc3",
	};
	size_t i;

	(void)state;
	assert_true(bridge_id_valid("k4d3m7x9p2q8r5s1t6u0v3w8yz", 26));
	assert_true(bridge_id_valid("00000000000000000000000000", 26));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_false(bridge_id_valid(bad[i], strlen(bad[i])));
	/* A NUL inside is not an id, whatever its length says. */
	assert_false(bridge_id_valid("k4d3m7x9p2q8\0r5s1t6u0v3w8y", 26));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
