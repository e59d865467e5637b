/*
 * audit_follow.c: one look at a log being followed, and the wait between
 * two (audit_follow.h).
 */
#include <sys/inotify.h>

#include <poll.h>
#include <unistd.h>

#include "bxctl/audit/audit_follow.h"
#include "bxctl/audit/audit_read.h"

int
audit_follow_step(const char *dir, struct bx_audit_walk *w,
    struct bx_chain *c, struct bx_error *err)
{
	struct bx_error why;

	if (bx_audit_walk_step(w, c, true, err) == -1)
		return -1;
	/* No brokerd: nothing is being written, so read once more and end. */
	if (!bx_chain_settle(c, false) || audit_writer(dir, &why) != 0)
		return 0;
	if (bx_audit_walk_step(w, c, true, err) == -1)
		return -1;
	(void)bx_chain_settle(c, true);
	return 0;
}

int
audit_follow_watch(const char *dir)
{
	int fd;

	if ((fd = inotify_init1(IN_CLOEXEC | IN_NONBLOCK)) == -1)
		return -1;
	if (inotify_add_watch(fd, dir, IN_MODIFY | IN_CREATE | IN_MOVED_TO |
	    IN_CLOSE_WRITE) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

void
audit_follow_wait(int fd)
{
	struct pollfd p = { fd, POLLIN, 0 };
	char buf[4096];

	if (fd == -1 || poll(&p, 1, AUDIT_FOLLOW_POLL_MS) <= 0)
		return;
	while (read(fd, buf, sizeof(buf)) > 0)
		continue;
}
