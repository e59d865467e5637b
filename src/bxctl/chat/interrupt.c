/*
 * interrupt.c: SIGINT through a signalfd (interrupt.h).
 */
#include <sys/signalfd.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <unistd.h>

#include "bxctl/chat/interrupt.h"

static int	sigint_fd = -1;
static bool	sigint_seen;

int
interrupt_install(void)
{
	sigset_t set;

	if (sigint_fd != -1)
		return 0;
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	if (sigprocmask(SIG_BLOCK, &set, NULL) == -1)
		return -1;
	sigint_fd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	return sigint_fd == -1 ? -1 : 0;
}

int
interrupt_fd(void)
{
	return sigint_fd;
}

/* Moves what the signalfd holds into sigint_seen. */
static void
collect(void)
{
	struct signalfd_siginfo si;

	if (sigint_fd == -1)
		return;
	while (read(sigint_fd, &si, sizeof(si)) == (ssize_t)sizeof(si))
		sigint_seen = true;
}

bool
interrupt_take(void)
{
	bool was;

	collect();
	was = sigint_seen;
	sigint_seen = false;
	return was;
}

bool
interrupt_pending(void)
{
	collect();
	return sigint_seen;
}

int
interrupt_wait(int fd)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = sigint_fd, .events = POLLIN },
	};

	for (;;) {
		if (interrupt_pending())
			return 0;
		if (poll(pfd, 2, -1) >= 0) {
			if (interrupt_pending())
				return 0;
			if (pfd[0].revents != 0)
				return 1;
			continue;
		}
		if (errno != EINTR)
			return -1;
	}
}
