/*
 * message_encode.h: a struct bx_msg into its one deterministic frame, and
 * that frame sent. The buffer returned is the caller's to free().
 */
#ifndef BX_MESSAGE_ENCODE_H
#define BX_MESSAGE_ENCODE_H

#include <stddef.h>

#include "proto/error.h"
#include "proto/message_types.h"

/*
 * Encodes msg in its compact form with the trailing "\n" into a new,
 * NUL-terminated buffer; *ret_len counts the newline. Fails if a value
 * cannot be encoded (a string that is not UTF-8, a Timestamp out of range)
 * or the frame would pass BX_FRAME_MAX.
 */
int	bx_msg_encode(const struct bx_msg *, char **ret, size_t *ret_len,
	    struct bx_error *);

/* Encodes msg and writes it with bx_frame_write(); 0 or -1. */
int	bx_msg_send(int fd, const struct bx_msg *, int timeout_ms,
	    struct bx_error *);

#endif
