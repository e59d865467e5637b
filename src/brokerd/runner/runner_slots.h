/*
 * runner_slots.h: the max_running slots of the sandbox runtime, handed
 * out first come, first served. A call joins the queue when it asks and
 * gets a slot only when a slot is free and every call that asked before it
 * has one or has left; a call whose caller hangs up while it waits leaves
 * the queue. Before this, every waiter raced for a freed slot, and under
 * 16 clients the slowest wait was many times the mean.
 *
 * Ownership: the caller owns the struct; slots_init() and slots_destroy()
 * set it up and tear it down (no call may be waiting then). Waiters live on
 * their own thread's stack while they wait. Thread-safe.
 */
#ifndef BROKERD_RUNNER_SLOTS_H
#define BROKERD_RUNNER_SLOTS_H

#include <sys/queue.h>

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* How often a waiting call looks at its caller. */
#define SLOTS_POLL_MS	100

struct slot_waiter {
	TAILQ_ENTRY(slot_waiter)	sw_link;
};

struct runner_slots {
	pthread_mutex_t			sl_lock;
	pthread_cond_t			sl_changed;	/* a slot or the head */
	int64_t				sl_max;
	int64_t				sl_running;
	size_t				sl_waiting;
	TAILQ_HEAD(, slot_waiter)	sl_queue;	/* arrival order */
};

void	slots_init(struct runner_slots *, int64_t max);
void	slots_destroy(struct runner_slots *);

/*
 * Waits for a slot in arrival order. hangup_fd (-1: none) is the caller's
 * connection: if it shows a hang-up while the call waits, the call leaves
 * the queue and this returns false, holding no slot.
 */
bool	slots_take(struct runner_slots *, int hangup_fd);
void	slots_give(struct runner_slots *);

/* How many calls wait now. */
size_t	slots_waiting(struct runner_slots *);

#endif
