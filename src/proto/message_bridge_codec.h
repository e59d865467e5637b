/*
 * message_bridge_codec.h: the bridge's own kinds on the wire
 * (approvals_wait, approval_changes), one decoder and one encoder each, for
 * the tables of message_decode.c and message_encode.c.
 *
 * Ownership as in message.h: what a decoder fills is the message's, on
 * failure too, for bx_msg_free; an encoder only reads the message.
 */
#ifndef BX_MESSAGE_BRIDGE_CODEC_H
#define BX_MESSAGE_BRIDGE_CODEC_H

#include <jansson.h>

#include "proto/error.h"
#include "proto/message_types.h"

int	bx_msgd_approvals_wait(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_approval_changes(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msge_approvals_wait(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_approval_changes(const struct bx_msg *, json_t *,
	    struct bx_error *);

#endif
