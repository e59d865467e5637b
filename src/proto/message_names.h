/*
 * message_names.h: the wire name of each value of the message enums ("?"
 * out of range), and whether a frame ends its answer. Nothing here
 * allocates.
 */
#ifndef BX_MESSAGE_NAMES_H
#define BX_MESSAGE_NAMES_H

#include <stdbool.h>

#include "proto/message_types.h"

const char	*bx_msg_kind_name(enum bx_msg_kind);
const char	*bx_status_name(enum bx_status);
/* Whether a tool_response of this status ends its call. */
bool		 bx_status_is_final(enum bx_status);
const char	*bx_code_name(enum bx_code);
const char	*bx_event_name(enum bx_event);
const char	*bx_end_name(enum bx_end);

/* Whether the frame ends its answer ("final": true on the wire). */
bool	bx_msg_is_final(const struct bx_msg *);

#endif
