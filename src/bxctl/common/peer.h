/*
 * peer.h: reading a daemon's answer frames, shared by the admin calls and
 * chat. Each failure (no answer, a frame too large, a frame that does not
 * decode) becomes one line naming the daemon.
 *
 * Ownership: on success *ret is a new message the caller frees with
 * bx_msg_free(). Messages in err may quote the peer and must be printed
 * through escape.h (cli_fail does).
 */
#ifndef BXCTL_PEER_H
#define BXCTL_PEER_H

#include "proto/error.h"
#include "proto/frame.h"
#include "proto/message.h"

/*
 * Reads and decodes the next frame within timeout_ms (-1: no limit). who
 * names the peer ("brokerd", "loopd"). An error frame is returned like any
 * other message. If ret_line is not NULL it is set to the frame's bytes
 * (ret_len of them, no newline), valid until the reader's next read.
 */
int	peer_read(struct bx_frame_reader *, int timeout_ms, const char *who,
	    struct bx_msg **ret, const char **ret_line, size_t *ret_len,
	    struct bx_error *);

/* Fills err with "<who> answered error <code>: <message>"; returns -1. */
int	peer_error(const struct bx_msg *error, const char *who,
	    struct bx_error *);

#endif
