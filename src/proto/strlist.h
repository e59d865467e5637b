/*
 * strlist.h: a list of strings copied into one allocation (the pointers,
 * then the bytes they point at), so that a grant's paths or hosts cost one
 * malloc and one free rather than one per entry.
 *
 * Ownership: bx_strlist_copy() allocates *ret; the caller frees the whole
 * list, strings included, with one free(*ret).
 */
#ifndef BX_STRLIST_H
#define BX_STRLIST_H

#include <stddef.h>

#include "proto/error.h"

/*
 * Copies the n strings of from into *ret (NULL when n is 0). Fails only
 * when memory runs out.
 */
int	bx_strlist_copy(const char *const *from, size_t n, char ***ret,
	    struct bx_error *err);

#endif
