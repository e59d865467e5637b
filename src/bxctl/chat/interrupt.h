/*
 * interrupt.h: Ctrl-C in bxctl chat. SIGINT is blocked and taken from a
 * signalfd rather than by a handler: every wait of the chat polls
 * interrupt_fd() beside what it waits for, so no SIGINT can come between
 * a look at the count and the wait that follows (a handler's flag is seen
 * only by a wait it happens to interrupt), and none can be lost to a
 * handler whose delivery is deferred (ThreadSanitizer defers handlers,
 * and lost one in 1 of 20 chats; docs/decisions.md). What a SIGINT means
 * is the caller's: during a turn the first stops the turn, at the prompt
 * one ends the chat (chat.c, turn.c).
 *
 * The mask is the process's: bxctl chat starts no program, which would
 * inherit SIGINT blocked.
 */
#ifndef BXCTL_INTERRUPT_H
#define BXCTL_INTERRUPT_H

#include <stdbool.h>

/* Takes SIGINT from now on; 0, or -1 with errno. */
int	interrupt_install(void);
/* The descriptor that is readable while a SIGINT waits; -1 before. */
int	interrupt_fd(void);
/* Whether a SIGINT came since the last interrupt_take(); forgets it. */
bool	interrupt_take(void);
/* Whether a SIGINT came since the last interrupt_take(), keeping it. */
bool	interrupt_pending(void);
/*
 * Waits until fd is readable (1) or a SIGINT came (0, kept pending);
 * -1 with errno.
 */
int	interrupt_wait(int fd);

#endif
