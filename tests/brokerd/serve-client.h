/*
 * serve-client.h: the client side of brokerd's sockets for the serve tests
 * (test-serve.c in-process, test-serve-main.c against the program): dial,
 * send a message, read the next frame decoded, see the connection closed,
 * and one request on a connection of its own. Each fails the test on an
 * error, within SERVE_CLIENT_WAIT_MS (generous: nothing should take more
 * than a moment). The messages returned are the caller's to bx_msg_free;
 * messages sent are freed here.
 */
#ifndef TESTS_BROKERD_SERVE_CLIENT_H
#define TESTS_BROKERD_SERVE_CLIENT_H

#include <unistd.h>

#include "proto/frame.h"
#include "proto/message.h"
#include "proto/unixsock.h"

#define SERVE_CLIENT_WAIT_MS	20000

static inline int
dial(const char *path)
{
	struct bx_error err;
	int fd;

	if (bx_unix_connect(path, 0, &fd, &err) == -1)
		fail_msg("%s", err.msg);
	return fd;
}

static inline void
send_msg(int fd, struct bx_msg *m)
{
	struct bx_error err;

	assert_non_null(m);
	if (bx_msg_send(fd, m, SERVE_CLIENT_WAIT_MS, &err) == -1)
		fail_msg("send: %s", err.msg);
	bx_msg_free(m);
}

/* The next frame on the connection, decoded. */
static inline struct bx_msg *
next_frame(struct bx_frame_reader *r)
{
	struct bx_msg *m;
	struct bx_error err;
	const char *line;
	size_t len;

	if (bx_frame_read(r, SERVE_CLIENT_WAIT_MS, &line, &len, &err) !=
	    BX_FRAME_OK)
		fail_msg("no frame: %s", err.msg);
	if (bx_msg_decode(line, len, &m, &err) == -1)
		fail_msg("bad frame: %s", err.msg);
	return m;
}

/* After the answer, brokerd closes the connection. */
static inline void
expect_closed(struct bx_frame_reader *r)
{
	struct bx_error err;
	const char *line;
	size_t len;

	assert_int_equal(bx_frame_read(r, SERVE_CLIENT_WAIT_MS, &line, &len,
	    &err), BX_FRAME_EOF);
}

/* Sends one request on a new connection; returns the answer, and closes. */
static inline struct bx_msg *
one(const char *path, struct bx_msg *req)
{
	struct bx_frame_reader r;
	struct bx_msg *m;
	int fd = dial(path);

	bx_frame_reader_init(&r, fd);
	send_msg(fd, req);
	m = next_frame(&r);
	expect_closed(&r);
	bx_frame_reader_free(&r);
	close(fd);
	return m;
}

#endif
