/*
 * peer-client.h: a client of another uid, for the peer-check tests of each
 * daemon's sockets (brokerd's admin.sock and broker.sock, loopd's
 * loop.sock; roles.md section 4). As root, a forked child setresuid()s to
 * the uid before it connects, so SO_PEERCRED names that uid; the sockets'
 * modes are opened by hand first, so that only the peer check can stop it.
 *
 * Header-only, like tests/brokerd/serve-client.h: include it after
 * <cmocka.h>. Each function fails the running test on an error. The
 * message returned is the caller's to bx_msg_free.
 */
#ifndef TESTS_PROTO_PEER_CLIENT_H
#define TESTS_PROTO_PEER_CLIENT_H

#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/frame.h"
#include "proto/message.h"
#include "proto/unixsock.h"

/* Generous: an answer should take a moment. */
#define PEER_CLIENT_WAIT_MS	20000
/* What the child passes back: one frame, well under this. */
#define PEER_CLIENT_FRAME_MAX	(64 * 1024)

/*
 * Opens socket (a path under top) to everyone: the socket 0777, each
 * directory from its own up to top 0711.
 */
static inline void
peer_open_modes(const char *top, const char *socket)
{
	char dir[PATH_MAX], *slash;

	if (chmod(socket, 0777) == -1)
		fail_msg("chmod %s: %m", socket);
	snprintf(dir, sizeof(dir), "%s", socket);
	while ((slash = strrchr(dir, '/')) != NULL && slash != dir) {
		*slash = '\0';
		if (chmod(dir, 0711) == -1)
			fail_msg("chmod %s: %m", dir);
		if (strcmp(dir, top) == 0)
			return;
	}
	fail_msg("%s is not under %s", socket, top);
}

/* The child's part: 0 when it wrote a frame it got back to out. */
static inline int
peer_child(uid_t uid, const char *path, const char *line, int out)
{
	struct bx_frame_reader r;
	struct bx_error err;
	const char *frame;
	size_t len;
	int fd;

	if (setresgid(uid, uid, uid) == -1 || setresuid(uid, uid, uid) == -1 ||
	    bx_unix_connect(path, 0, &fd, &err) == -1)
		return 1;
	/*
	 * A refused client may find the connection closed before it writes:
	 * that is no failure, the answer is in already.
	 */
	if (line != NULL)
		(void)send(fd, line, strlen(line), MSG_NOSIGNAL);
	bx_frame_reader_init(&r, fd);
	if (bx_frame_read(&r, PEER_CLIENT_WAIT_MS, &frame, &len, &err) !=
	    BX_FRAME_OK)
		return 3;
	if (write(out, frame, len) != (ssize_t)len)
		return 4;
	return 0;
}

/*
 * Connects to path as uid, sends line (a whole frame with its newline; NULL
 * sends nothing) and returns the first frame that comes back, decoded.
 */
static inline struct bx_msg *
peer_exchange(uid_t uid, const char *path, const char *line)
{
	char *buf;
	struct bx_msg *m;
	struct bx_error err;
	size_t len = 0;
	ssize_t n;
	pid_t pid;
	int p[2], status;

	if ((buf = malloc(PEER_CLIENT_FRAME_MAX)) == NULL)
		fail_msg("out of memory");
	assert_int_equal(pipe2(p, O_CLOEXEC), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		close(p[0]);
		_exit(peer_child(uid, path, line, p[1]));
	}
	close(p[1]);
	while (len < PEER_CLIENT_FRAME_MAX &&
	    (n = read(p[0], buf + len, PEER_CLIENT_FRAME_MAX - len)) > 0)
		len += (size_t)n;
	close(p[0]);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
		fail_msg("the client as uid %u on %s failed (status %d)",
		    (unsigned)uid, path, status);
	if (bx_msg_decode(buf, len, &m, &err) == -1)
		fail_msg("bad frame from %s: %s", path, err.msg);
	free(buf);
	return m;
}

/* Asserts m is error forbidden naming socket, uid and the runbook entry. */
static inline void
peer_expect_forbidden(struct bx_msg *m, const char *socket, uid_t uid)
{
	char want[128];

	assert_int_equal(m->kind, BX_MSG_ERROR);
	assert_int_equal(m->error.code, BX_CODE_FORBIDDEN);
	snprintf(want, sizeof(want), "refused a connection on %s from uid %u",
	    socket, (unsigned)uid);
	if (strstr(m->error.message, want) == NULL ||
	    strstr(m->error.message, "see docs/runbook.md#socket-forbidden") ==
	    NULL)
		fail_msg("not the refusal wanted (%s): %s", want,
		    m->error.message);
	bx_msg_free(m);
}

#endif
