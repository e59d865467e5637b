/*
 * clock.c: milliseconds from clock_gettime(2). The clocks asked for here
 * always exist on Linux, so a failure cannot happen and is not reported.
 */
#include <errno.h>

#include "proto/clock.h"

static int64_t
ms_of(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int64_t
bx_clock_wall_ms(void)
{
	return ms_of(CLOCK_REALTIME);
}

int64_t
bx_clock_mono_ms(void)
{
	return ms_of(CLOCK_MONOTONIC);
}

void
bx_clock_after(clockid_t clock, int64_t ms, struct timespec *ret)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	ts.tv_sec += (time_t)(ms / 1000);
	ts.tv_nsec += (long)(ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	*ret = ts;
}

void
bx_clock_sleep_ms(int64_t ms)
{
	struct timespec until;

	bx_clock_after(CLOCK_MONOTONIC, ms, &until);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until,
	    NULL) == EINTR)
		continue;
}

void
bx_clock_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t attr;

	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(cv, &attr);
	pthread_condattr_destroy(&attr);
}
