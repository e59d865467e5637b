/*
 * descendants.c: bxtool is the subreaper of everything its command starts,
 * and before its final status line it kills and reaps all of it. A process
 * left running could otherwise write a status line of its own after
 * bxtool's last one, through /proc/1/fd/2 (pid 1, podman's init or bwrap,
 * holds the same stderr), and brokerd takes the last line as the answer.
 * Only bxtool's own descendants are touched, never kill(-1): bxtool also
 * runs outside a sandbox (its tests), where that would reach everything.
 */
#include <sys/prctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"

/* Bytes of the children list read at once; the rest comes next round. */
#define CHILDREN_LIST_MAX	(64 * 1024)

int
bxt_descendants_adopt(struct bxt_outcome *out)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == -1) {
		bxt_fail(out, "cannot become the subreaper: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

/* SIGKILL to each child /proc lists; -1 if the list cannot be read. */
static int
kill_children(void)
{
	static char list[CHILDREN_LIST_MAX];
	char *p, *end;
	size_t len = 0;
	ssize_t n;
	long pid;
	int fd;

	/* bxtool is one thread: its children are this thread's. */
	if ((fd = open("/proc/thread-self/children", O_RDONLY |
	    O_CLOEXEC)) == -1)
		return -1;
	while (len < sizeof(list) - 1) {
		n = read(fd, list + len, sizeof(list) - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	close(fd);
	list[len] = '\0';
	for (p = list;; p = end) {
		pid = strtol(p, &end, 10);
		if (end == p)
			break;
		if (pid > 0)
			(void)kill((pid_t)pid, SIGKILL);
	}
	return 0;
}

/*
 * Kills the children, reaps one, and again, until none is left: a killed
 * child's own children are ours before it can be reaped, so ECHILD means
 * no descendant is alive. Without /proc nothing can be listed, and bxtool
 * goes on as before this existed rather than wait for a daemon forever.
 */
void
bxt_descendants_end(void)
{
	pid_t pid;

	for (;;) {
		if (kill_children() == -1)
			return;
		pid = waitpid(-1, NULL, 0);
		if (pid == -1 && errno != EINTR)
			return;
	}
}
