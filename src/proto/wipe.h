/*
 * wipe.h: freeing memory that held a secret (a secret's value, anything
 * made from it, text that may echo it), overwritten first with
 * explicit_bzero(3) so that the allocator never gets it back as it was.
 */
#ifndef BX_WIPE_H
#define BX_WIPE_H

#include <stddef.h>

/* Overwrites the len bytes at p, then frees p. NULL is allowed. */
void	bx_wipe_free(void *p, size_t len);

#endif
