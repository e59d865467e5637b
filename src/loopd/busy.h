/*
 * busy.h: the sessions that have a turn in progress, so that a second chat
 * on a busy session is answered error busy instead of interleaving two
 * turns in one log. Safe to use from several threads.
 *
 * Ownership: busy_new() allocates, busy_free() frees (NULL allowed).
 */
#ifndef LOOPD_BUSY_H
#define LOOPD_BUSY_H

#include "proto/types.h"

struct busy;

struct busy	*busy_new(void);
void		 busy_free(struct busy *);

/* Marks id busy: 0, or -1 if it already was (or memory ran out). */
int	busy_claim(struct busy *, const char *id);
void	busy_release(struct busy *, const char *id);

/*
 * Makes a new session id "chat-<unix ms>" that is neither busy nor has a
 * log under home (counting the milliseconds up past any that are), claims
 * it and writes it to buf (BX_ID_MAX + 1 bytes). 0, or -1 on no memory.
 */
int	busy_new_session(struct busy *, const char *home, char *buf);

#endif
