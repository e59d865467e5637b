/*
 * frame.h: reading and writing NDJSON frames on a file descriptor
 * (baseline.md section 3). A frame is one line ending in '\n', at most
 * BX_FRAME_MAX bytes including the newline.
 *
 * The reader holds a buffer that grows with the frame being read and never
 * past BX_FRAME_MAX bytes: a longer line is refused (BX_FRAME_TOO_LARGE)
 * once BX_FRAME_MAX bytes without a newline have arrived, and nothing more
 * is read. Bytes after a newline stay buffered for the next call, so a
 * peer may send several frames at once. A caller holding many readers may
 * cap each buffer lower for a while (bx_frame_reader_limit), so that their
 * sum stays bounded.
 *
 * Ownership: the caller owns the struct (usually on the stack or inside a
 * connection) and the descriptor; bx_frame_reader_init() allocates nothing,
 * bx_frame_reader_free() frees the buffer and leaves the descriptor open.
 * A line returned by bx_frame_read() points into the reader's buffer: it is
 * valid until the next bx_frame_read() or bx_frame_reader_free() on that
 * reader, is NUL-terminated in place of its '\n', and may contain other NUL
 * bytes (the decoder refuses them).
 *
 * Descriptors may be blocking or non-blocking: every read and write waits
 * with poll(2) first, retries on EINTR and EAGAIN, and loops over partial
 * transfers.
 */
#ifndef BX_FRAME_H
#define BX_FRAME_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

/* The longest frame, newline included: 1 MiB. */
#define BX_FRAME_MAX		1048576
/* The reader's first buffer; it doubles up to BX_FRAME_MAX. */
#define BX_FRAME_INITIAL	4096

enum bx_frame_status {
	BX_FRAME_OK,		/* a frame was read or written */
	BX_FRAME_EOF,		/* end of stream between frames: a clean close */
	BX_FRAME_PARTIAL,	/* end of stream in the middle of a frame */
	BX_FRAME_TIMEOUT,	/* the deadline passed */
	BX_FRAME_TOO_LARGE,	/* a line reached BX_FRAME_MAX bytes without '\n' */
	BX_FRAME_IO,		/* read, write or poll failed; err says why */
	BX_FRAME_FULL,		/* the buffer reached the reader's limit */
	BX_FRAME_STATUS_MAX
};

/* Fields are private to frame.c. */
struct bx_frame_reader {
	int	 fr_fd;
	char	*fr_buf;
	size_t	 fr_cap;	/* allocated bytes, at most BX_FRAME_MAX */
	size_t	 fr_start;	/* first unconsumed byte */
	size_t	 fr_len;	/* bytes in use from fr_buf */
	size_t	 fr_scanned;	/* bytes after fr_start known to hold no '\n' */
	size_t	 fr_limit;	/* fr_cap grows to this; 0: BX_FRAME_MAX */
	int	 fr_state;	/* sticky end state, or BX_FRAME_OK */
};

const char	*bx_frame_status_name(enum bx_frame_status);

void	bx_frame_reader_init(struct bx_frame_reader *, int fd);
void	bx_frame_reader_free(struct bx_frame_reader *);

/*
 * Reads the next frame. timeout_ms bounds the whole call (not each read), so
 * a peer sending one byte at a time cannot hold it open: -1 waits forever,
 * 0 takes only what is already readable. On BX_FRAME_OK, *ret_line and
 * *ret_len (without the newline) are set. On BX_FRAME_TIMEOUT and
 * BX_FRAME_FULL the bytes read so far stay buffered and a later call goes
 * on from them. BX_FRAME_EOF, BX_FRAME_PARTIAL, BX_FRAME_TOO_LARGE and
 * BX_FRAME_IO are final: every later call returns the same status. err is
 * filled for every status but BX_FRAME_OK.
 */
enum bx_frame_status	bx_frame_read(struct bx_frame_reader *, int timeout_ms,
			    const char **ret_line, size_t *ret_len,
			    struct bx_error *);

/*
 * Lets the buffer grow to limit bytes at the most, clamped to BX_FRAME_INITIAL
 * .. BX_FRAME_MAX (BX_FRAME_MAX, the default, is no limit). A buffer already
 * larger is kept. Below BX_FRAME_MAX, a frame whose bytes fill the limit
 * without a newline makes bx_frame_read return BX_FRAME_FULL, which is not
 * final: nothing is lost, and after the limit is raised a later call goes
 * on reading.
 */
void	bx_frame_reader_limit(struct bx_frame_reader *, size_t limit);

/* Bytes of a frame not yet complete that the reader holds. */
size_t	bx_frame_reader_pending(const struct bx_frame_reader *);
/* Bytes of memory the reader holds; never more than BX_FRAME_MAX. */
size_t	bx_frame_reader_held(const struct bx_frame_reader *);

/*
 * Writes all len bytes of buf (a whole frame, '\n' included, at most
 * BX_FRAME_MAX bytes: longer is BX_FRAME_TOO_LARGE and nothing is written)
 * within timeout_ms (-1: no limit). On sockets it sends with MSG_DONTWAIT
 * and MSG_NOSIGNAL: the deadline holds even on a blocking socket, and a
 * closed peer is BX_FRAME_IO (EPIPE), not SIGPIPE. On other descriptors it
 * uses write(2), and only a non-blocking one keeps the deadline exactly.
 * Returns BX_FRAME_OK, BX_FRAME_TIMEOUT, BX_FRAME_TOO_LARGE or BX_FRAME_IO.
 */
enum bx_frame_status	bx_frame_write(int fd, const char *buf, size_t len,
			    int timeout_ms, struct bx_error *);

#endif
