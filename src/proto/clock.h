/*
 * clock.h: the two clocks every program reads, in milliseconds. The wall
 * clock (CLOCK_REALTIME) gives Timestamps and expiry times; the monotonic
 * clock (CLOCK_MONOTONIC) measures deadlines and timeouts, which must not
 * jump when the wall clock is set.
 *
 * Nothing here allocates or fails.
 */
#ifndef BX_CLOCK_H
#define BX_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* Milliseconds since the epoch, UTC. */
int64_t	bx_clock_wall_ms(void);

/* Milliseconds on the monotonic clock, for deadlines only. */
int64_t	bx_clock_mono_ms(void);

/*
 * The time ms milliseconds from now on clock (CLOCK_REALTIME or
 * CLOCK_MONOTONIC), as pthread_cond_timedwait takes it: tv_nsec below one
 * second.
 */
void	bx_clock_after(clockid_t clock, int64_t ms, struct timespec *ret);

/*
 * Initializes cv so that its timed waits take a CLOCK_MONOTONIC time
 * (bx_clock_after(CLOCK_MONOTONIC, ...)): a wall clock set back does not
 * stretch a wait. The caller destroys it with pthread_cond_destroy.
 */
void	bx_clock_cond_init(pthread_cond_t *cv);

/*
 * Sleeps ms milliseconds on the monotonic clock, the whole of it: a signal
 * that interrupts the sleep does not shorten it. For the loops that poll
 * something no descriptor reports (a lock, a cgroup emptying, a container
 * list), so each waits the same way.
 */
void	bx_clock_sleep_ms(int64_t ms);

#endif
