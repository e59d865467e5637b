/*
 * freecheck.c: free(3), realloc(3) and reallocarray(3) seen by a test
 * before they happen (freecheck.h).
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>

#include "freecheck.h"

void	*__real_realloc(void *, size_t);
void	*__real_reallocarray(void *, size_t, size_t);
void	 __real_free(void *);
void	*__wrap_realloc(void *, size_t);
void	*__wrap_reallocarray(void *, size_t, size_t);
void	 __wrap_free(void *);

static struct {
	unsigned char	 text[64];
	size_t		 len;
} needles[FREECHECK_NEEDLES];
static size_t nneedles, found;

void
freecheck_watch(const void *needle, size_t len)
{
	if (nneedles == FREECHECK_NEEDLES || len == 0 ||
	    len > sizeof(needles[0].text))
		abort();
	memcpy(needles[nneedles].text, needle, len);
	needles[nneedles].len = len;
	nneedles++;
}

size_t
freecheck_stop(void)
{
	size_t n = found;

	nneedles = 0;
	found = 0;
	return n;
}

/* Counts p when the block still holds a needle. */
static void
look(void *p)
{
	size_t i, size;

	if (p == NULL || nneedles == 0)
		return;
	size = malloc_usable_size(p);
	for (i = 0; i < nneedles; i++)
		if (memmem(p, size, needles[i].text, needles[i].len) != NULL) {
			found++;
			return;
		}
}

void
__wrap_free(void *p)
{
	look(p);
	__real_free(p);
}

void *
__wrap_realloc(void *p, size_t size)
{
	look(p);
	return __real_realloc(p, size);
}

void *
__wrap_reallocarray(void *p, size_t n, size_t size)
{
	look(p);
	return __real_reallocarray(p, n, size);
}
