/*
 * message_decode.h: one frame into a new struct bx_msg, strictly
 * (message.h says what strict means); the caller frees it.
 */
#ifndef BX_MESSAGE_DECODE_H
#define BX_MESSAGE_DECODE_H

#include <stddef.h>

#include "proto/error.h"
#include "proto/message_types.h"

/* Decodes one frame (len bytes, without the newline) into a new message. */
int	bx_msg_decode(const char *line, size_t len, struct bx_msg **ret,
	    struct bx_error *);

#endif
