/*
 * approvals.c: the pending-approval table. One mutex guards the table, every
 * entry and the ring of ends (approvals_ends.h); one condition variable is
 * broadcast on every change, since the waiters are few (one per pending
 * call, per answering admin and per waiting bridge) and each rechecks what
 * it waits for.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "brokerd/approvals.h"
#include "brokerd/approvals_ends.h"
#include "proto/clock.h"

struct approval {
	struct approvals_item	 a_item;
	enum approvals_answer	 a_answer;
	struct approvals_from	 a_from;	/* the answering thread's */
	bool			 a_posted;
	struct bx_outcome	 a_outcome;
	int			 a_refs;
	struct approval		*a_next;	/* pending list only */
};

struct approvals {
	pthread_mutex_t		 t_lock;
	pthread_cond_t		 t_changed;
	struct approval		*t_head;	/* pending, oldest first */
	struct approvals_ends	*t_ends;
	size_t			 t_pending;
	bool			 t_closed;	/* brokerd is stopping */
};

struct approvals *
approvals_new(void)
{
	struct approvals *t;

	if ((t = calloc(1, sizeof(*t))) == NULL)
		return NULL;
	if ((t->t_ends = approvals_ends_new()) == NULL) {
		free(t);
		return NULL;
	}
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
	approvals_ends_free(t->t_ends);
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

/*
 * Answers a pending entry, takes it off the list and keeps how it ended;
 * the caller has t_lock.
 */
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
	approvals_ends_add(t->t_ends, a->a_item.approval, ans, &a->a_from);
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
	pthread_cond_broadcast(&t->t_changed);
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
    void *ctx, struct approvals_from *ret_from)
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
	*ret_from = a->a_from;
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
	approvals_ends_recorded(t->t_ends, a->a_item.approval, outcome);
	pthread_cond_broadcast(&t->t_changed);
	unref(a);
	pthread_mutex_unlock(&t->t_lock);
}

int
approvals_answer(struct approvals *t, uint64_t id, enum approvals_answer ans,
    const struct approvals_from *from, struct bx_outcome *ret,
    struct bx_error *err)
{
	struct approval *a;

	pthread_mutex_lock(&t->t_lock);
	if ((a = find(t, id)) == NULL) {
		pthread_mutex_unlock(&t->t_lock);
		return bx_fail(err, "approval %llu is not pending",
		    (unsigned long long)id);
	}
	a->a_refs++;
	if (from != NULL)
		a->a_from = *from;
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

/* Copies the pending entries, oldest first; the caller has t_lock. */
static int
copy_items(struct approvals *t, struct approvals_item **ret, size_t *ret_n)
{
	struct approvals_item *items = NULL;
	struct approval *a;
	size_t n = 0;

	if (t->t_pending > 0 &&
	    (items = calloc(t->t_pending, sizeof(*items))) == NULL)
		return -1;
	for (a = t->t_head; a != NULL; a = a->a_next, n++) {
		items[n] = a->a_item;
		if ((items[n].arguments = strdup(a->a_item.arguments)) == NULL) {
			approvals_items_free(items, n);
			return -1;
		}
	}
	*ret = items;
	*ret_n = n;
	return 0;
}

int
approvals_list(struct approvals *t, struct approvals_item **ret,
    size_t *ret_n, struct bx_error *err)
{
	int rc;

	pthread_mutex_lock(&t->t_lock);
	rc = copy_items(t, ret, ret_n);
	pthread_mutex_unlock(&t->t_lock);
	if (rc == -1)
		return bx_fail(err, "approvals: out of memory");
	return 0;
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

static int
id_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static bool
known_has(const uint64_t *known, size_t n, uint64_t id)
{
	/* An empty known may be NULL, which bsearch must not be given. */
	return n > 0 && bsearch(&id, known, n, sizeof(*known), id_cmp) != NULL;
}

/*
 * Whether the pending entries are no longer known (sorted, no duplicates)
 * in a way a waiter is told of: a new one, or one of known ended with its
 * record written or forgotten. The caller has t_lock.
 */
static bool
changed(struct approvals *t, const uint64_t *known, size_t n)
{
	const struct approvals_ended *e;
	struct approval *a;
	size_t i, matched = 0;

	for (a = t->t_head; a != NULL; a = a->a_next, matched++)
		if (!known_has(known, n, a->a_item.approval))
			return true;
	if (matched == n)
		return false;
	for (i = 0; i < n; i++) {
		if (find(t, known[i]) != NULL)
			continue;
		e = approvals_ends_find(t->t_ends, known[i]);
		if (e == NULL || e->recorded)
			return true;
	}
	return false;
}

/* The pending entries and how each of known not pending ended; t_lock held. */
static int
fill(struct approvals *t, const uint64_t *known, size_t n,
    struct approvals_changes *c)
{
	const struct approvals_ended *e;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (copy_items(t, &c->items, &c->nitems) == -1)
		return -1;
	if (n > 0 && (c->ended = calloc(n, sizeof(*c->ended))) == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		if (find(t, known[i]) != NULL)
			continue;
		if ((e = approvals_ends_find(t->t_ends, known[i])) != NULL)
			c->ended[c->nended] = *e;
		else {
			c->ended[c->nended].approval = known[i];
			c->ended[c->nended].answer = APPROVALS_FORGOTTEN;
		}
		c->nended++;
	}
	return 0;
}

/* A sorted copy of known without duplicates into *ret, *ret_n. */
static int
sorted_set(const uint64_t *known, size_t n, uint64_t **ret, size_t *ret_n)
{
	uint64_t *k = NULL;
	size_t i, m = 0;

	if (n > 0 && (k = calloc(n, sizeof(*k))) == NULL)
		return -1;
	for (i = 0; i < n; i++)
		k[i] = known[i];
	if (n > 0)
		qsort(k, n, sizeof(*k), id_cmp);
	for (i = 0; i < n; i++)
		if (m == 0 || k[m - 1] != k[i])
			k[m++] = k[i];
	*ret = k;
	*ret_n = m;
	return 0;
}

int
approvals_changes(struct approvals *t, const uint64_t *known, size_t nknown,
    int timeout_ms, struct approvals_changes *ret, struct bx_error *err)
{
	struct approvals_changes c;
	struct timespec until;
	uint64_t *k;
	size_t n;
	int rc;

	if (sorted_set(known, nknown, &k, &n) == -1)
		return bx_fail(err, "approvals: out of memory");
	bx_clock_after(CLOCK_MONOTONIC, timeout_ms, &until);
	pthread_mutex_lock(&t->t_lock);
	while (!t->t_closed && !changed(t, k, n))
		if (pthread_cond_timedwait(&t->t_changed, &t->t_lock,
		    &until) == ETIMEDOUT)
			break;
	rc = fill(t, k, n, &c);
	pthread_mutex_unlock(&t->t_lock);
	free(k);
	if (rc == -1) {
		approvals_changes_clear(&c);
		return bx_fail(err, "approvals: out of memory");
	}
	*ret = c;
	return 0;
}

void
approvals_changes_clear(struct approvals_changes *c)
{
	if (c == NULL)
		return;
	approvals_items_free(c->items, c->nitems);
	free(c->ended);
	memset(c, 0, sizeof(*c));
}
