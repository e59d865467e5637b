/*
 * frame.c: one NDJSON frame at a time over a descriptor, with a bounded
 * buffer and a deadline. Every wait is a poll(2), so blocking and
 * non-blocking descriptors behave the same, and a deadline covers the whole
 * frame rather than each read; only a socket is first tried without a
 * wait (MSG_DONTWAIT never blocks, whatever the descriptor's flags).
 */
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/frame.h"

static const char *status_names[BX_FRAME_STATUS_MAX] = {
	"ok", "end of stream", "end of stream inside a frame", "timed out",
	"frame too large", "I/O error", "buffer at its limit",
};

const char *
bx_frame_status_name(enum bx_frame_status s)
{
	return s < BX_FRAME_STATUS_MAX ? status_names[s] : "?";
}

void
bx_frame_reader_init(struct bx_frame_reader *r, int fd)
{
	memset(r, 0, sizeof(*r));
	r->fr_fd = fd;
	r->fr_state = BX_FRAME_OK;
}

void
bx_frame_reader_limit(struct bx_frame_reader *r, size_t limit)
{
	if (limit < BX_FRAME_INITIAL)
		limit = BX_FRAME_INITIAL;
	r->fr_limit = limit < BX_FRAME_MAX ? limit : BX_FRAME_MAX;
}

void
bx_frame_reader_free(struct bx_frame_reader *r)
{
	if (r == NULL)
		return;
	free(r->fr_buf);
	r->fr_buf = NULL;
	r->fr_cap = r->fr_start = r->fr_len = r->fr_scanned = 0;
}

size_t
bx_frame_reader_pending(const struct bx_frame_reader *r)
{
	return r->fr_len - r->fr_start;
}

size_t
bx_frame_reader_held(const struct bx_frame_reader *r)
{
	return r->fr_cap;
}

static int64_t
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left before deadline (-1: none), for poll. */
static int
remaining(int64_t deadline)
{
	int64_t left;

	if (deadline < 0)
		return -1;
	left = deadline - now_ms();
	if (left <= 0)
		return 0;
	return left > 1000000000 ? 1000000000 : (int)left;
}

/*
 * Waits until fd is ready for events or the deadline passes. Returns 1 when
 * ready, 0 on timeout, -1 on error.
 */
static int
wait_fd(int fd, short events, int64_t deadline, struct bx_error *err)
{
	struct pollfd pfd;
	int n;

	for (;;) {
		pfd.fd = fd;
		pfd.events = events;
		pfd.revents = 0;
		n = poll(&pfd, 1, remaining(deadline));
		if (n > 0)
			return 1;
		if (n == 0)
			return 0;
		if (errno != EINTR)
			return bx_fail(err, "poll: %s", strerror(errno));
	}
}

/*
 * Whether a first try without waiting (recv or send with MSG_DONTWAIT)
 * found fd not ready, or not a socket: then it is waited for with poll.
 * Trying first saves a poll(2) when the peer is ahead, as a client that
 * writes its frame right after connecting is.
 */
static bool
must_wait(int e)
{
	return e == EAGAIN || e == EWOULDBLOCK || e == ENOTSOCK;
}

static enum bx_frame_status
finish(struct bx_frame_reader *r, enum bx_frame_status s)
{
	r->fr_state = s;
	return s;
}

static enum bx_frame_status
sticky(const struct bx_frame_reader *r, struct bx_error *err)
{
	switch (r->fr_state) {
	case BX_FRAME_EOF:
		bx_fail(err, "end of stream");
		break;
	case BX_FRAME_PARTIAL:
		bx_fail(err, "the stream ended inside a frame");
		break;
	case BX_FRAME_TOO_LARGE:
		bx_fail(err, "a frame is longer than %d bytes", BX_FRAME_MAX);
		break;
	default:
		bx_fail(err, "an earlier read failed");
		break;
	}
	return r->fr_state;
}

/*
 * Makes room for more bytes: drops consumed bytes first, then doubles the
 * buffer, never past the limit. Returns 1 when the limit leaves no room,
 * and -1 if memory ran out.
 */
static int
make_room(struct bx_frame_reader *r, struct bx_error *err)
{
	size_t cap;
	char *p;

	if (r->fr_start > 0) {
		memmove(r->fr_buf, r->fr_buf + r->fr_start,
		    r->fr_len - r->fr_start);
		r->fr_len -= r->fr_start;
		r->fr_start = 0;
	}
	if (r->fr_len < r->fr_cap)
		return 0;
	cap = r->fr_cap == 0 ? BX_FRAME_INITIAL : r->fr_cap * 2;
	/* 0, as a zeroed reader has it, is no limit. */
	if (r->fr_limit != 0 && cap > r->fr_limit)
		cap = r->fr_limit;
	if (cap > BX_FRAME_MAX)
		cap = BX_FRAME_MAX;
	if (cap <= r->fr_cap)
		return 1;
	if ((p = realloc(r->fr_buf, cap)) == NULL)
		return bx_fail(err, "out of memory for a %zu-byte frame buffer",
		    cap);
	r->fr_buf = p;
	r->fr_cap = cap;
	return 0;
}

/* Looks for a newline among the bytes not yet scanned; true if found. */
static bool
take_line(struct bx_frame_reader *r, const char **ret_line, size_t *ret_len)
{
	size_t avail = r->fr_len - r->fr_start;
	char *start, *nl;

	if (r->fr_buf == NULL || r->fr_scanned >= avail)
		return false;
	start = r->fr_buf + r->fr_start;
	nl = memchr(start + r->fr_scanned, '\n', avail - r->fr_scanned);
	if (nl == NULL) {
		r->fr_scanned = avail;
		return false;
	}
	*nl = '\0';
	*ret_line = start;
	*ret_len = (size_t)(nl - start);
	r->fr_start += *ret_len + 1;
	r->fr_scanned = 0;
	return true;
}

enum bx_frame_status
bx_frame_read(struct bx_frame_reader *r, int timeout_ms,
    const char **ret_line, size_t *ret_len, struct bx_error *err)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	ssize_t n;
	int ready, room;

	if (r->fr_state != BX_FRAME_OK)
		return sticky(r, err);
	for (;;) {
		if (take_line(r, ret_line, ret_len))
			return BX_FRAME_OK;
		if (r->fr_len - r->fr_start >= BX_FRAME_MAX) {
			finish(r, BX_FRAME_TOO_LARGE);
			return sticky(r, err);
		}
		if ((room = make_room(r, err)) == -1)
			return finish(r, BX_FRAME_IO);
		if (room == 1) {
			bx_fail(err, "%zu bytes without a newline fill the "
			    "reader's limit", r->fr_len - r->fr_start);
			return BX_FRAME_FULL;
		}
		n = recv(r->fr_fd, r->fr_buf + r->fr_len,
		    r->fr_cap - r->fr_len, MSG_DONTWAIT);
		if (n == -1 && must_wait(errno)) {
			/* A socket with nothing yet and no time to wait. */
			ready = timeout_ms == 0 && errno != ENOTSOCK ? 0 :
			    wait_fd(r->fr_fd, POLLIN, deadline, err);
			if (ready == -1)
				return finish(r, BX_FRAME_IO);
			if (ready == 0) {
				bx_fail(err, "no complete frame within %d ms",
				    timeout_ms);
				return BX_FRAME_TIMEOUT;
			}
			n = read(r->fr_fd, r->fr_buf + r->fr_len,
			    r->fr_cap - r->fr_len);
		}
		if (n > 0) {
			r->fr_len += (size_t)n;
			continue;
		}
		if (n == 0) {
			finish(r, r->fr_len > r->fr_start ? BX_FRAME_PARTIAL :
			    BX_FRAME_EOF);
			return sticky(r, err);
		}
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			continue;
		bx_fail(err, "read: %s", strerror(errno));
		return finish(r, BX_FRAME_IO);
	}
}

/*
 * send(2) where fd is a socket: MSG_DONTWAIT, so a blocking socket cannot
 * hold the call past its deadline, and MSG_NOSIGNAL, so a closed peer is
 * EPIPE rather than SIGPIPE. Anything else is written with write(2), but
 * only once poll said it can take bytes (waited): until then ENOTSOCK
 * says to wait.
 */
static ssize_t
put(int fd, const char *buf, size_t len, bool waited)
{
	ssize_t n = send(fd, buf, len, MSG_NOSIGNAL | MSG_DONTWAIT);

	if (n == -1 && errno == ENOTSOCK && waited)
		n = write(fd, buf, len);
	return n;
}

enum bx_frame_status
bx_frame_write(int fd, const char *buf, size_t len, int timeout_ms,
    struct bx_error *err)
{
	int64_t deadline = timeout_ms < 0 ? -1 : now_ms() + timeout_ms;
	size_t done = 0;
	bool waited = false;
	ssize_t n;
	int ready;

	if (len > BX_FRAME_MAX) {
		bx_fail(err, "a %zu-byte frame is longer than %d bytes", len,
		    BX_FRAME_MAX);
		return BX_FRAME_TOO_LARGE;
	}
	while (done < len) {
		n = put(fd, buf + done, len - done, waited);
		waited = false;
		if (n >= 0) {
			done += (size_t)n;
			continue;
		}
		if (errno == EINTR)
			continue;
		if (!must_wait(errno)) {
			bx_fail(err, "write: %s", strerror(errno));
			return BX_FRAME_IO;
		}
		ready = wait_fd(fd, POLLOUT, deadline, err);
		if (ready == -1)
			return BX_FRAME_IO;
		if (ready == 0) {
			bx_fail(err, "wrote %zu of %zu bytes within %d ms",
			    done, len, timeout_ms);
			return BX_FRAME_TIMEOUT;
		}
		waited = true;
	}
	return BX_FRAME_OK;
}
