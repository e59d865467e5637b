/*
 * xorshift.h: the seeded generator of the property tests (xorshift64, as
 * Marsaglia gives it), so that a failing seed replays the same cases. One
 * generator per test program: its state is static in each file that
 * includes this. Nothing is allocated.
 */
#ifndef TESTS_BROKERD_XORSHIFT_H
#define TESTS_BROKERD_XORSHIFT_H

#include <stdbool.h>
#include <stdint.h>

static uint64_t xs_state;

/* xorshift never leaves 0, so a 0 seed takes fallback instead. */
static inline void
xs_seed(uint64_t seed, uint64_t fallback)
{
	xs_state = seed != 0 ? seed : fallback;
}

static inline uint64_t
xs_next(void)
{
	xs_state ^= xs_state << 13;
	xs_state ^= xs_state >> 7;
	xs_state ^= xs_state << 17;
	return xs_state;
}

/* A number below n. */
static inline unsigned
xs_pick(unsigned n)
{
	return (unsigned)(xs_next() % n);
}

/* True percent times in a hundred. */
static inline bool
xs_chance(unsigned percent)
{
	return xs_pick(100) < percent;
}

#endif
