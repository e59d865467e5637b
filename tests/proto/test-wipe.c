/*
 * test-wipe.c: bx_wipe_free() (src/proto/wipe.h) gives the allocator back
 * no byte of what it frees, and freecheck.c, which the secret tests rely
 * on, does see a block freed as it was (so those tests can fail).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/wipe.h"
#include "freecheck.h"

#define NEEDLE	"ghp_wipeTEST42x"

/* Where a block passes, so that the compiler cannot drop malloc and free. */
static void *volatile kept;

static char *
holding_needle(size_t len)
{
	char *p = malloc(len);

	assert_non_null(p);
	memset(p, '.', len);
	memcpy(p + len - sizeof(NEEDLE), NEEDLE, sizeof(NEEDLE));
	kept = p;
	return kept;
}

static void
test_wiped(void **state)
{
	(void)state;
	freecheck_watch(NEEDLE, strlen(NEEDLE));
	bx_wipe_free(holding_needle(100), 100);
	bx_wipe_free(NULL, 0);
	assert_int_equal(freecheck_stop(), 0);
}

/* The harness itself: free(3) of a block holding the needle is seen. */
static void
test_plain_free_is_seen(void **state)
{
	char *p;

	(void)state;
	freecheck_watch(NEEDLE, strlen(NEEDLE));
	free(holding_needle(100));
	p = realloc(holding_needle(40), 4000);
	assert_non_null(p);
	bx_wipe_free(p, 40);
	assert_int_equal(freecheck_stop(), 2);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wiped),
		cmocka_unit_test(test_plain_free_is_seen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
