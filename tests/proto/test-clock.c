/*
 * test-clock.c: the wall and monotonic milliseconds of src/proto/clock.h
 * and the absolute times handed to pthread_cond_timedwait, and the
 * condition variables that take them on the monotonic clock. Bounds are
 * generous: they check units and clocks, not speed.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <cmocka.h>

#include "proto/clock.h"

static void
test_wall_is_milliseconds_since_the_epoch(void **state)
{
	int64_t before, ms, after;

	(void)state;
	before = (int64_t)time(NULL) * 1000;
	ms = bx_clock_wall_ms();
	after = ((int64_t)time(NULL) + 1) * 1000;
	assert_true(ms >= before && ms <= after);
}

static void
test_mono_is_the_monotonic_clock_and_never_goes_back(void **state)
{
	struct timespec ts;
	int64_t a, b, ref;

	(void)state;
	a = bx_clock_mono_ms();
	clock_gettime(CLOCK_MONOTONIC, &ts);
	ref = (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
	b = bx_clock_mono_ms();
	assert_true(a <= ref && ref <= b);
}

static void
test_after_is_normalised_and_ahead(void **state)
{
	static const clockid_t clocks[] = { CLOCK_REALTIME, CLOCK_MONOTONIC };
	static const int64_t ms[] = { 0, 1, 999, 1000, 1999, 86400001 };
	struct timespec now, t;
	size_t i, j;
	int64_t now_ms, t_ms;

	(void)state;
	for (i = 0; i < sizeof(clocks) / sizeof(clocks[0]); i++)
		for (j = 0; j < sizeof(ms) / sizeof(ms[0]); j++) {
			clock_gettime(clocks[i], &now);
			bx_clock_after(clocks[i], ms[j], &t);
			assert_true(t.tv_nsec >= 0 && t.tv_nsec < 1000000000L);
			now_ms = (int64_t)now.tv_sec * 1000 +
			    now.tv_nsec / 1000000;
			t_ms = (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
			/* At least ms ahead of before the call, within 10 s. */
			assert_true(t_ms >= now_ms + ms[j]);
			assert_true(t_ms <= now_ms + ms[j] + 10000);
		}
}

/*
 * A condition variable of bx_clock_cond_init waits until a monotonic
 * time: one on the wall clock would take that time (seconds since boot)
 * as long past and return at once.
 */
static void
test_cond_waits_on_the_monotonic_clock(void **state)
{
	pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
	pthread_cond_t cv;
	struct timespec until;
	int64_t start;
	int rc;

	(void)state;
	bx_clock_cond_init(&cv);
	pthread_mutex_lock(&lock);
	start = bx_clock_mono_ms();
	bx_clock_after(CLOCK_MONOTONIC, 200, &until);
	do
		rc = pthread_cond_timedwait(&cv, &lock, &until);
	while (rc == 0);	/* a spurious wake-up */
	assert_int_equal(rc, ETIMEDOUT);
	assert_true(bx_clock_mono_ms() - start >= 199);
	pthread_mutex_unlock(&lock);
	pthread_cond_destroy(&cv);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wall_is_milliseconds_since_the_epoch),
		cmocka_unit_test(
		    test_mono_is_the_monotonic_clock_and_never_goes_back),
		cmocka_unit_test(test_after_is_normalised_and_ahead),
		cmocka_unit_test(test_cond_waits_on_the_monotonic_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
