/*
 * interrupt.h: Ctrl-C in bxctl chat. The handler only counts SIGINTs; it
 * is installed without SA_RESTART, so that a read or wait it interrupts
 * returns EINTR and its caller looks at the count. What a SIGINT means is
 * the caller's: during a turn the first stops the turn, at the prompt one
 * ends the chat (chat.c, turn.c).
 */
#ifndef BXCTL_INTERRUPT_H
#define BXCTL_INTERRUPT_H

#include <stdbool.h>

/* Catches SIGINT from now on; 0, or -1 with errno. */
int	interrupt_install(void);
/* Whether a SIGINT came since the last interrupt_take(); forgets it. */
bool	interrupt_take(void);
/* Whether a SIGINT came since the last interrupt_take(), keeping it. */
bool	interrupt_pending(void);

#endif
