/*
 * interrupt.c: the SIGINT count (interrupt.h).
 */
#include <signal.h>
#include <stddef.h>

#include "bxctl/chat/interrupt.h"

static volatile sig_atomic_t interrupts;

static void
on_sigint(int sig)
{
	(void)sig;
	interrupts = 1;
}

int
interrupt_install(void)
{
	struct sigaction sa;

	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: a blocked read sees EINTR */
	sa.sa_handler = on_sigint;
	return sigaction(SIGINT, &sa, NULL);
}

bool
interrupt_take(void)
{
	bool was = interrupts != 0;

	interrupts = 0;
	return was;
}

bool
interrupt_pending(void)
{
	return interrupts != 0;
}
