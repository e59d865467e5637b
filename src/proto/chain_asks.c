/*
 * chain_asks.c: the ask decisions waiting for an Approval record, for the
 * ChainVerifier (chain_asks.h).
 */
#include <stdlib.h>

#include "proto/chain_asks.h"

bool
chain_grow(void *arr, size_t *cap, size_t n, size_t size)
{
	void **p = arr, *q;
	size_t ncap;

	if (n < *cap)
		return true;
	ncap = *cap == 0 ? 16 : *cap * 2;
	if ((q = reallocarray(*p, ncap, size)) == NULL)
		return false;
	*p = q;
	*cap = ncap;
	return true;
}

bool
chain_asks_add(struct chain_asks *a, uint64_t seq)
{
	size_t cap = a->cap;

	if (!chain_grow(&a->seq, &cap, a->n, sizeof(*a->seq)))
		return false;
	cap = a->cap;
	if (!chain_grow(&a->gone, &cap, a->n, sizeof(*a->gone)))
		return false;
	a->cap = cap;
	a->seq[a->n] = seq;
	a->gone[a->n++] = false;
	return true;
}

/* Drops the flagged entries once they are the majority. */
static void
compact(struct chain_asks *a)
{
	size_t i, j = 0;

	if (a->ngone < 1024 || a->ngone * 2 < a->n)
		return;
	for (i = 0; i < a->n; i++)
		if (!a->gone[i]) {
			a->seq[j] = a->seq[i];
			a->gone[j++] = false;
		}
	a->n = j;
	a->ngone = 0;
}

void
chain_asks_remove(struct chain_asks *a, uint64_t seq)
{
	size_t lo = 0, hi = a->n, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (a->seq[mid] < seq)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo < a->n && a->seq[lo] == seq && !a->gone[lo]) {
		a->gone[lo] = true;
		a->ngone++;
		compact(a);
	}
}

uint64_t *
chain_asks_take(struct chain_asks *a, size_t *ret_n)
{
	uint64_t *seq = a->seq;
	size_t i, n = 0;

	for (i = 0; i < a->n; i++)
		if (!a->gone[i])
			seq[n++] = seq[i];
	*ret_n = n;
	a->seq = NULL;
	free(a->gone);
	a->gone = NULL;
	a->n = a->ngone = a->cap = 0;
	return seq;
}

void
chain_asks_free(struct chain_asks *a)
{
	free(a->seq);
	free(a->gone);
	a->seq = NULL;
	a->gone = NULL;
}
