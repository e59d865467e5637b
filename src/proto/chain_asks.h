/*
 * chain_asks.h: the ChainVerifier's table of ask decisions that have no
 * Approval record yet (chain.c's alone; the report lists what is left as
 * abandoned approvals). Seqs are added in rising order, so lookups are a
 * binary search; removed entries are flagged and compacted once they are
 * the majority.
 *
 * Ownership: the table owns its two arrays; chain_asks_free() frees them
 * and chain_asks_take() hands the seq array to the caller.
 */
#ifndef BX_CHAIN_ASKS_H
#define BX_CHAIN_ASKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct chain_asks {
	uint64_t	*seq;
	bool		*gone;
	size_t		 n, cap, ngone;
};

/* Adds seq (higher than any before); false when memory ran out. */
bool	chain_asks_add(struct chain_asks *, uint64_t seq);
/* Marks seq answered, if it is in the table. */
void	chain_asks_remove(struct chain_asks *, uint64_t seq);
/* The seqs left, ascending, as a malloc'd array; the table is emptied. */
uint64_t *chain_asks_take(struct chain_asks *, size_t *ret_n);
void	chain_asks_free(struct chain_asks *);

/*
 * Grows *arr (of size-byte elements, n in use, *cap allocated) to hold one
 * more; false when out of memory. Shared by the verifier's lists.
 */
bool	chain_grow(void *arr, size_t *cap, size_t n, size_t size);

#endif
