/*
 * runner_slots.c: first come, first served slots (runner_slots.h). One
 * condition variable serves every waiter: a freed slot, a new head of the
 * queue or a waiter leaving wakes them all, and only the head may take a
 * free slot. The queue is at most the calls in progress (64), so the
 * broadcast costs little.
 */
#include <poll.h>

#include "brokerd/runner/runner_slots.h"
#include "proto/clock.h"

/*
 * The waits are timed on the monotonic clock: a wall clock set back must
 * not hold a waiter past its next look at the caller's hang-up.
 */
void
slots_init(struct runner_slots *s, int64_t max)
{
	pthread_mutex_init(&s->sl_lock, NULL);
	bx_clock_cond_init(&s->sl_changed);
	s->sl_max = max;
	s->sl_running = 0;
	s->sl_waiting = 0;
	TAILQ_INIT(&s->sl_queue);
}

void
slots_destroy(struct runner_slots *s)
{
	pthread_cond_destroy(&s->sl_changed);
	pthread_mutex_destroy(&s->sl_lock);
}

static bool
hung_up(int fd)
{
	struct pollfd p = { fd, 0, 0 };

	return fd != -1 && poll(&p, 1, 0) == 1 &&
	    (p.revents & (POLLHUP | POLLERR | POLLNVAL)) != 0;
}

static bool
my_turn(const struct runner_slots *s, const struct slot_waiter *me)
{
	return TAILQ_FIRST(&s->sl_queue) == me && s->sl_running < s->sl_max;
}

bool
slots_take(struct runner_slots *s, int hangup_fd)
{
	struct slot_waiter me;
	struct timespec until;
	bool gone = false;

	pthread_mutex_lock(&s->sl_lock);
	TAILQ_INSERT_TAIL(&s->sl_queue, &me, sw_link);
	s->sl_waiting++;
	while (!my_turn(s, &me) && !gone) {
		bx_clock_after(CLOCK_MONOTONIC, SLOTS_POLL_MS, &until);
		pthread_cond_timedwait(&s->sl_changed, &s->sl_lock, &until);
		gone = !my_turn(s, &me) && hung_up(hangup_fd);
	}
	TAILQ_REMOVE(&s->sl_queue, &me, sw_link);
	s->sl_waiting--;
	if (!gone)
		s->sl_running++;
	/* The next in line may take another free slot, or is now head. */
	pthread_cond_broadcast(&s->sl_changed);
	pthread_mutex_unlock(&s->sl_lock);
	return !gone;
}

void
slots_give(struct runner_slots *s)
{
	pthread_mutex_lock(&s->sl_lock);
	s->sl_running--;
	pthread_cond_broadcast(&s->sl_changed);
	pthread_mutex_unlock(&s->sl_lock);
}

size_t
slots_waiting(struct runner_slots *s)
{
	size_t n;

	pthread_mutex_lock(&s->sl_lock);
	n = s->sl_waiting;
	pthread_mutex_unlock(&s->sl_lock);
	return n;
}
