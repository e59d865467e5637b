/*
 * message_alloc.h: a struct bx_msg made (zeroed) and freed, with
 * everything it points at (message.h says what it owns); and the helpers
 * the constructors (message.c, message_console.c) build with.
 */
#ifndef BX_MESSAGE_ALLOC_H
#define BX_MESSAGE_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/message_types.h"

/* A zeroed message, for fieldless kinds; NULL if memory ran out. */
struct bx_msg	*bx_msg_new(enum bx_msg_kind);
/* Frees m and everything it points at (NULL is fine). */
void		 bx_msg_free(struct bx_msg *);

/* Frees the strings of one PendingApproval (not the struct itself). */
void	bx_pending_approval_clear(struct bx_pending_approval *);
/* Frees n GrantProblems and their array. */
void	bx_msg_problems_free(struct bx_grant_problem *, size_t n);

/*
 * Copies s into *dst (NULL stays NULL); sets *failed when memory ran out,
 * so a constructor can copy all its strings and check once.
 */
void		 bx_msg_copy(char **dst, const char *s, bool *failed);
/* Frees m and returns NULL if any copy failed; else m. */
struct bx_msg	*bx_msg_done(struct bx_msg *m, bool failed);
/* Grows an array of n elements of size sz by one, zeroing the new one. */
void		*bx_msg_grow(void *array, size_t n, size_t sz);

#endif
