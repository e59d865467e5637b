/*
 * bridge_broker.c: requests on brokerd's bridge.sock (bridge_broker.h).
 */
#include <errno.h>
#include <poll.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bxbridge/bridge_broker.h"
#include "proto/frame.h"
#include "proto/unixsock.h"

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* 1 if stop_fd is readable before fd, 0 when fd is, -1 at the deadline. */
static int
wait_readable(int fd, int stop_fd, int64_t deadline)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	int64_t left;
	int r;

	for (;;) {
		if ((left = deadline - now_ms()) <= 0)
			return -1;
		r = poll(pfd, stop_fd >= 0 ? 2 : 1, (int)left);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -1;
		if (stop_fd >= 0 && pfd[1].revents != 0)
			return 1;
		if (pfd[0].revents != 0)
			return 0;
	}
}

int
bridge_broker_call(const char *path, const struct bx_msg *req, int wait_ms,
    int stop_fd, struct bx_msg **ret, struct bx_error *err)
{
	struct bx_frame_reader fr;
	enum bx_frame_status st;
	int64_t deadline = now_ms() + wait_ms + BRIDGE_BROKER_SLACK_MS;
	const char *line;
	size_t len;
	int fd, r, rc = -1;

	if (bx_unix_connect(path, 0, &fd, err) == -1)
		return bx_error_prefix(err, "brokerd's bridge socket");
	bx_frame_reader_init(&fr, fd);
	if (bx_msg_send(fd, req, BRIDGE_BROKER_SLACK_MS, err) == -1) {
		bx_error_prefix(err, "sending %s to brokerd at %s",
		    bx_msg_kind_name(req->kind), path);
		goto out;
	}
	if ((r = wait_readable(fd, stop_fd, deadline)) != 0) {
		if (r == 1)
			rc = 1;
		else
			bx_fail(err, "brokerd at %s did not answer %s",
			    path, bx_msg_kind_name(req->kind));
		goto out;
	}
	st = bx_frame_read(&fr, (int)(deadline - now_ms() > 0 ?
	    deadline - now_ms() : 1), &line, &len, err);
	if (st != BX_FRAME_OK) {
		if (st != BX_FRAME_IO)
			bx_fail(err, "brokerd at %s answered %s with %s", path,
			    bx_msg_kind_name(req->kind),
			    bx_frame_status_name(st));
		goto out;
	}
	if (bx_msg_decode(line, len, ret, err) == -1) {
		bx_error_prefix(err, "brokerd's answer at %s", path);
		goto out;
	}
	rc = 0;
out:
	bx_frame_reader_free(&fr);
	close(fd);
	return rc;
}

int
bridge_broker_wait(const char *path, const uint64_t *known, size_t n,
    int timeout_ms, int stop_fd, struct bx_msg **ret, struct bx_error *err)
{
	struct bx_msg *req, *answer = NULL;
	int r;

	if ((req = bx_msg_approvals_wait(known, n, timeout_ms)) == NULL)
		return bx_fail(err, "out of memory");
	r = bridge_broker_call(path, req, timeout_ms, stop_fd, &answer, err);
	bx_msg_free(req);
	if (r != 0)
		return r;
	if (answer->kind == BX_MSG_ERROR) {
		bx_fail(err, "brokerd answered error %s: %s",
		    bx_code_name(answer->error.code), answer->error.message);
		bx_msg_free(answer);
		return -1;
	}
	if (answer->kind != BX_MSG_APPROVAL_CHANGES) {
		bx_fail(err, "brokerd answered %s to approvals_wait",
		    bx_msg_kind_name(answer->kind));
		bx_msg_free(answer);
		return -1;
	}
	*ret = answer;
	return 0;
}
