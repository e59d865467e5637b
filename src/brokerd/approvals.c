/*
 * approvals.c: the pending-approval table. One mutex guards the table and
 * every entry; one condition variable is broadcast on every change, since the
 * waiters are few (one per pending call and per answering admin) and each
 * rechecks its own entry.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "brokerd/approvals.h"
#include "proto/clock.h"

struct approval {
	struct approvals_item	 a_item;
	enum approvals_answer	 a_answer;
	const char		*a_reason;	/* the answering admin's */
	bool			 a_posted;
	struct bx_outcome	 a_outcome;
	int			 a_refs;
	struct approval		*a_next;	/* pending list only */
};

struct approvals {
	pthread_mutex_t		 t_lock;
	pthread_cond_t		 t_changed;
	struct approval		*t_head;	/* pending, oldest first */
	size_t			 t_pending;
	bool			 t_closed;	/* brokerd is stopping */
};

struct approvals *
approvals_new(void)
{
	struct approvals *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	pthread_mutex_init(&t->t_lock, NULL);
	bx_clock_cond_init(&t->t_changed);
	return t;
}

static void
entry_free(struct approval *a)
{
	free(a->a_item.arguments);
	free(a);
}

void
approvals_free(struct approvals *t)
{
	struct approval *a, *next;

	if (t == NULL)
		return;
	for (a = t->t_head; a != NULL; a = next) {
		next = a->a_next;
		entry_free(a);
	}
	pthread_cond_destroy(&t->t_changed);
	pthread_mutex_destroy(&t->t_lock);
	free(t);
}

int64_t
approvals_expiry(int64_t now_ms, int64_t ttl_ms, int64_t grant_expires)
{
	int64_t e = now_ms + ttl_ms;

	return grant_expires < e ? grant_expires : e;
}

/* The pending entry with that id, or NULL; the caller has t_lock. */
static struct approval *
find(struct approvals *t, uint64_t id)
{
	struct approval *a;

	for (a = t->t_head; a != NULL; a = a->a_next)
		if (a->a_item.approval == id)
			return a;
	return NULL;
}

/* Answers a pending entry and takes it off the list; the caller has t_lock. */
static void
answer(struct approvals *t, struct approval *a, enum approvals_answer ans)
{
	struct approval **p;

	for (p = &t->t_head; *p != NULL; p = &(*p)->a_next)
		if (*p == a) {
			*p = a->a_next;
			break;
		}
	a->a_next = NULL;
	a->a_answer = ans;
	t->t_pending--;
	pthread_cond_broadcast(&t->t_changed);
}

/* Drops one reference; the caller has t_lock. */
static void
unref(struct approval *a)
{
	if (--a->a_refs == 0)
		entry_free(a);
}

struct approval *
approvals_add(struct approvals *t, const struct approvals_item *item,
    struct bx_error *err)
{
	struct approval *a, **p;

	if ((a = calloc(1, sizeof(*a))) == NULL) {
		bx_fail(err, "approvals: out of memory");
		return NULL;
	}
	a->a_item = *item;
	if ((a->a_item.arguments = strdup(item->arguments)) == NULL) {
		free(a);
		bx_fail(err, "approvals: out of memory");
		return NULL;
	}
	a->a_answer = APPROVALS_PENDING;
	a->a_refs = 1;
	pthread_mutex_lock(&t->t_lock);
	if (t->t_closed || find(t, item->approval) != NULL ||
	    t->t_pending >= APPROVALS_MAX) {
		pthread_mutex_unlock(&t->t_lock);
		bx_fail(err, "approvals: brokerd is stopping, approval %llu "
		    "is already pending, or %d are",
		    (unsigned long long)item->approval, APPROVALS_MAX);
		entry_free(a);
		return NULL;
	}
	for (p = &t->t_head; *p != NULL; p = &(*p)->a_next)
		continue;
	*p = a;
	t->t_pending++;
	pthread_mutex_unlock(&t->t_lock);
	return a;
}

/*
 * The watch time is kept across wake-ups: every change to the table wakes
 * every waiter, and a table that changes more often than APPROVALS_WATCH_MS
 * must not keep a waiter from ever looking at its connection.
 */
enum approvals_answer
approvals_wait(struct approvals *t, struct approval *a, bool (*gone)(void *),
    void *ctx, const char **ret_reason)
{
	struct timespec until;
	enum approvals_answer ans;
	bool left;

	pthread_mutex_lock(&t->t_lock);
	bx_clock_after(CLOCK_MONOTONIC, APPROVALS_WATCH_MS, &until);
	while (a->a_answer == APPROVALS_PENDING) {
		if (gone == NULL) {
			pthread_cond_wait(&t->t_changed, &t->t_lock);
			continue;
		}
		if (pthread_cond_timedwait(&t->t_changed, &t->t_lock,
		    &until) != ETIMEDOUT)
			continue;
		pthread_mutex_unlock(&t->t_lock);
		left = gone(ctx);
		pthread_mutex_lock(&t->t_lock);
		if (left && a->a_answer == APPROVALS_PENDING)
			answer(t, a, APPROVALS_ABANDONED);
		bx_clock_after(CLOCK_MONOTONIC, APPROVALS_WATCH_MS, &until);
	}
	ans = a->a_answer;
	*ret_reason = a->a_reason;
	pthread_mutex_unlock(&t->t_lock);
	return ans;
}

void
approvals_finish(struct approvals *t, struct approval *a,
    const struct bx_outcome *outcome)
{
	pthread_mutex_lock(&t->t_lock);
	if (a->a_answer == APPROVALS_PENDING)
		answer(t, a, APPROVALS_ABANDONED);
	a->a_outcome = *outcome;
	a->a_posted = true;
	pthread_cond_broadcast(&t->t_changed);
	unref(a);
	pthread_mutex_unlock(&t->t_lock);
}

int
approvals_answer(struct approvals *t, uint64_t id, enum approvals_answer ans,
    const char *reason, struct bx_outcome *ret, struct bx_error *err)
{
	struct approval *a;

	pthread_mutex_lock(&t->t_lock);
	if ((a = find(t, id)) == NULL) {
		pthread_mutex_unlock(&t->t_lock);
		return bx_fail(err, "approval %llu is not pending",
		    (unsigned long long)id);
	}
	a->a_refs++;
	a->a_reason = reason;
	answer(t, a, ans);
	while (!a->a_posted)
		pthread_cond_wait(&t->t_changed, &t->t_lock);
	*ret = a->a_outcome;
	unref(a);
	pthread_mutex_unlock(&t->t_lock);
	return 0;
}

size_t
approvals_expire(struct approvals *t, int64_t now_ms)
{
	struct approval *a, *next;
	size_t n = 0;

	pthread_mutex_lock(&t->t_lock);
	for (a = t->t_head; a != NULL; a = next) {
		next = a->a_next;
		if (a->a_item.expires <= now_ms) {
			answer(t, a, APPROVALS_EXPIRED);
			n++;
		}
	}
	pthread_mutex_unlock(&t->t_lock);
	return n;
}

void
approvals_abandon_all(struct approvals *t)
{
	pthread_mutex_lock(&t->t_lock);
	t->t_closed = true;
	while (t->t_head != NULL)
		answer(t, t->t_head, APPROVALS_ABANDONED);
	pthread_mutex_unlock(&t->t_lock);
}

void
approvals_items_free(struct approvals_item *items, size_t n)
{
	size_t i;

	if (items == NULL)
		return;
	for (i = 0; i < n; i++)
		free(items[i].arguments);
	free(items);
}

int
approvals_list(struct approvals *t, struct approvals_item **ret,
    size_t *ret_n, struct bx_error *err)
{
	struct approvals_item *items = NULL;
	struct approval *a;
	size_t n = 0;

	pthread_mutex_lock(&t->t_lock);
	if (t->t_pending > 0 &&
	    (items = calloc(t->t_pending, sizeof(*items))) == NULL)
		goto nomem;
	for (a = t->t_head; a != NULL; a = a->a_next, n++) {
		items[n] = a->a_item;
		if ((items[n].arguments = strdup(a->a_item.arguments)) == NULL)
			goto nomem;
	}
	pthread_mutex_unlock(&t->t_lock);
	*ret = items;
	*ret_n = n;
	return 0;
nomem:
	pthread_mutex_unlock(&t->t_lock);
	approvals_items_free(items, n);
	return bx_fail(err, "approvals: out of memory");
}

size_t
approvals_pending(struct approvals *t)
{
	size_t n;

	pthread_mutex_lock(&t->t_lock);
	n = t->t_pending;
	pthread_mutex_unlock(&t->t_lock);
	return n;
}
