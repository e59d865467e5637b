/*
 * test-runner-slots.c: the max_running slots go in arrival order
 * (brokerd/runner_slots.h). Sixteen waiters join the queue one at a time,
 * each only once the one before it is seen waiting, and take their slots
 * in that order; a waiter whose caller hangs up leaves the queue and the
 * next one gets the slot; free slots go at once.
 */
#include <sys/socket.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/runner/runner_slots.h"
#include "proto/clock.h"

#define WAITERS		16
/* Generous: how long a thread may take to join the queue. */
#define WAIT_MS		30000

struct waiter {
	struct runner_slots	*w_slots;
	int			 w_index;
	int			 w_hangup_fd;
	bool			 w_got;
	pthread_t		 w_thread;
};

static pthread_mutex_t order_lock = PTHREAD_MUTEX_INITIALIZER;
static int order[WAITERS];
static int norder;

static void *
take_and_give(void *arg)
{
	struct waiter *w = arg;

	w->w_got = slots_take(w->w_slots, w->w_hangup_fd);
	if (!w->w_got)
		return NULL;
	pthread_mutex_lock(&order_lock);
	order[norder++] = w->w_index;
	pthread_mutex_unlock(&order_lock);
	slots_give(w->w_slots);
	return NULL;
}

/* Until n calls wait; fails the test past WAIT_MS. */
static void
await_waiting(struct runner_slots *s, size_t n)
{
	const struct timespec pause = { 0, 1000000 };
	int64_t deadline = bx_clock_mono_ms() + WAIT_MS;

	while (slots_waiting(s) != n) {
		if (bx_clock_mono_ms() > deadline)
			fail_msg("%zu calls wait, not %zu", slots_waiting(s), n);
		nanosleep(&pause, NULL);
	}
}

static void
start(struct waiter *w, struct runner_slots *s, int index, int hangup_fd)
{
	w->w_slots = s;
	w->w_index = index;
	w->w_hangup_fd = hangup_fd;
	w->w_got = false;
	assert_int_equal(pthread_create(&w->w_thread, NULL, take_and_give, w),
	    0);
}

static void
test_arrival_order(void **state)
{
	struct waiter w[WAITERS];
	struct runner_slots s;
	int i;

	(void)state;
	norder = 0;
	slots_init(&s, 1);
	assert_true(slots_take(&s, -1));
	for (i = 0; i < WAITERS; i++) {
		start(&w[i], &s, i, -1);
		await_waiting(&s, (size_t)i + 1);
	}
	slots_give(&s);
	for (i = 0; i < WAITERS; i++)
		assert_int_equal(pthread_join(w[i].w_thread, NULL), 0);
	assert_int_equal(norder, WAITERS);
	for (i = 0; i < WAITERS; i++)
		assert_int_equal(order[i], i);
	assert_int_equal(slots_waiting(&s), 0);
	slots_destroy(&s);
}

static void
test_hangup_leaves_the_queue(void **state)
{
	struct waiter first, second;
	struct runner_slots s;
	int sv[2];

	(void)state;
	norder = 0;
	slots_init(&s, 1);
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	assert_true(slots_take(&s, -1));
	start(&first, &s, 0, sv[0]);
	await_waiting(&s, 1);
	start(&second, &s, 1, -1);
	await_waiting(&s, 2);
	close(sv[1]);		/* the first caller hangs up */
	assert_int_equal(pthread_join(first.w_thread, NULL), 0);
	assert_false(first.w_got);
	assert_int_equal(slots_waiting(&s), 1);
	slots_give(&s);
	assert_int_equal(pthread_join(second.w_thread, NULL), 0);
	assert_true(second.w_got);
	assert_int_equal(norder, 1);
	assert_int_equal(order[0], 1);
	close(sv[0]);
	slots_destroy(&s);
}

static void
test_free_slots_go_at_once(void **state)
{
	struct runner_slots s;

	(void)state;
	slots_init(&s, 2);
	assert_true(slots_take(&s, -1));
	assert_true(slots_take(&s, -1));
	assert_int_equal(slots_waiting(&s), 0);
	slots_give(&s);
	assert_true(slots_take(&s, -1));
	slots_give(&s);
	slots_give(&s);
	slots_destroy(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arrival_order),
		cmocka_unit_test(test_hangup_leaves_the_queue),
		cmocka_unit_test(test_free_slots_go_at_once),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
