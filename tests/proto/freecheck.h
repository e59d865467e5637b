/*
 * freecheck.h: for tests that a secret is overwritten before its memory
 * goes back to the allocator. A test linked with FREECHECK_LINK_ARGS (see
 * tests/proto/meson.build: -Wl,--wrap=free,--wrap=realloc,
 * --wrap=reallocarray) has every free(3), realloc(3) and reallocarray(3)
 * call of its own objects and of the project's static libraries pass
 * through freecheck.c first. While needles are watched, each block freed
 * or handed to realloc that still holds one is counted: realloc too,
 * since it may free the old copy as it was. Calls made inside the C
 * library (getline's growth, say) are not seen.
 *
 * Not thread-safe: for single-threaded tests.
 */
#ifndef TESTS_FREECHECK_H
#define TESTS_FREECHECK_H

#include <stddef.h>

#define FREECHECK_NEEDLES	8

/* Starts watching for the len bytes at needle (copied); up to 8. */
void	freecheck_watch(const void *needle, size_t len);
/* How many blocks held a needle since the first watch; stops watching. */
size_t	freecheck_stop(void);

#endif
