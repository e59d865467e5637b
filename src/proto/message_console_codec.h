/*
 * message_console_codec.h: the owner's console's kinds on the wire, one
 * decoder and one encoder per kind with fields, for the tables of
 * message_decode.c and message_encode.c.
 *
 * Ownership as in message.h: what a decoder fills is the message's, on
 * failure too, for bx_msg_free; an encoder only reads the message.
 */
#ifndef BX_MESSAGE_CONSOLE_CODEC_H
#define BX_MESSAGE_CONSOLE_CODEC_H

#include <jansson.h>

#include "proto/error.h"
#include "proto/message_types.h"

int	bx_msgd_session_list(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_explain(const json_t *, struct bx_msg *, struct bx_error *);
int	bx_msgd_explanation(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_broker_status(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_grant_list(const json_t *, struct bx_msg *, struct bx_error *);
int	bx_msge_session_list(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_explain(const struct bx_msg *, json_t *, struct bx_error *);
int	bx_msge_explanation(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_broker_status(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_grant_list(const struct bx_msg *, json_t *,
	    struct bx_error *);

#endif
