/*
 * buf.c: the fixed buffer of one direction of a connection (bxegress.h).
 * Bytes are taken at b_end and given from b_start; once empty it starts
 * over, and when its end is reached the bytes left move to the front, so
 * a buffer never holds more than EGRESS_BUF_SIZE and never allocates.
 * buf_send empties one into a non-blocking socket.
 */
#include <sys/socket.h>

#include <errno.h>
#include <string.h>

#include "bxegress/bxegress.h"

size_t
buf_len(const struct buf *b)
{
	return b->b_end - b->b_start;
}

size_t
buf_room(struct buf *b)
{
	if (b->b_end == sizeof(b->b_data) && b->b_start > 0) {
		memmove(b->b_data, b->b_data + b->b_start, buf_len(b));
		b->b_end -= b->b_start;
		b->b_start = 0;
	}
	return sizeof(b->b_data) - b->b_end;
}

void
buf_drop(struct buf *b, size_t n)
{
	b->b_start += n;
	if (b->b_start == b->b_end)
		b->b_start = b->b_end = 0;
}

/* Only for the proxy's own replies, which always fit. */
void
buf_put(struct buf *b, const void *data, size_t n)
{
	if (n > buf_room(b))
		fatal("a reply does not fit its buffer");
	memcpy(b->b_data + b->b_end, data, n);
	b->b_end += n;
}

/*
 * Sends from b until it is empty or fd would block; the bytes sent, or
 * -1 when the peer is gone or the connection broke.
 */
ssize_t
buf_send(int fd, struct buf *b)
{
	ssize_t n, sent = 0;

	while (buf_len(b) > 0) {
		n = send(fd, b->b_data + b->b_start, buf_len(b), MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			break;
		if (n <= 0)
			return -1;
		buf_drop(b, (size_t)n);
		sent += n;
	}
	return sent;
}
