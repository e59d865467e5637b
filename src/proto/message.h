/*
 * message.h: every message kind of the wire protocol (design section 10,
 * baseline.md sections 3 and 7) as one tagged struct, with its strict
 * decoder and deterministic encoder. docs/protocol.md lists each kind with
 * its fields in encoded order and an example frame.
 *
 * Ownership: a struct bx_msg and every string and array inside it are heap
 * memory owned by the message; bx_msg_free() frees all of it (NULL is
 * fine). bx_msg_decode() and the constructors return a new message the
 * caller frees. Constructors copy the strings they are given. Strings that
 * are optional on the wire (chat.session, refuse.reason) are NULL when
 * null or absent. bx_msg_encode() returns a
 * malloc'd buffer the caller frees with free().
 *
 * Decoding is strict: an unknown kind, an unknown field, a duplicate key, a
 * missing required field, a wrong type, a "final" that does not match the status or
 * event type, an invalid session, call or grant id, or a bad Timestamp is
 * an error naming the key. Fields of another status or event type are
 * unknown fields. tool_request.tool is kept as received (brokerd denies an
 * unknown tool with invalid_arguments), and so is every "arguments" string.
 * The optional fields (chat.session, refuse.reason, GrantProblem.line) may
 * be absent, which decodes as null (baseline.md section 1); the encoder
 * always writes them, null where absent.
 *
 * The codec is in layers, each file knowing only those below it, and this
 * header includes them all for callers: the types (message_types.h);
 * names (message_names.c) and making and freeing a message
 * (message_alloc.c); the constructors (message.c, message_console.c,
 * message_bridge.c);
 * reading and writing one field (message_read.c, message_write.c); the
 * console's and the bridge's kinds on the wire (message_console_codec.c,
 * message_bridge_codec.c); and a whole frame
 * decoded or encoded and sent (message_decode.c, message_encode.c).
 */
#ifndef BX_MESSAGE_H
#define BX_MESSAGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/message_alloc.h"
#include "proto/message_bridge.h"
#include "proto/message_console.h"
#include "proto/message_decode.h"
#include "proto/message_encode.h"
#include "proto/message_names.h"
#include "proto/message_types.h"
#include "proto/types.h"

/*
 * Constructors. Each returns a new message, or NULL if memory ran out. They
 * copy their strings and do not validate them (the peer's decoder does).
 */
struct bx_msg	*bx_msg_tool_request(const char *session, const char *call,
		    const char *tool, const char *arguments);
struct bx_msg	*bx_msg_pending(uint64_t approval, int64_t expires);
struct bx_msg	*bx_msg_approved(void);
struct bx_msg	*bx_msg_result(const char *content, enum bx_class,
		    bool untrusted, bool truncated);
struct bx_msg	*bx_msg_failed(const char *message);
struct bx_msg	*bx_msg_denied(enum bx_deny);
struct bx_msg	*bx_msg_approve(uint64_t approval);
/* An answer from Mattermost (bridge.sock): by and post, or both NULL. */
struct bx_msg	*bx_msg_approve_from(uint64_t approval, const char *by,
		    const char *post);
struct bx_msg	*bx_msg_approve_result(const struct bx_outcome *);
struct bx_msg	*bx_msg_refuse(uint64_t approval, const char *reason);
struct bx_msg	*bx_msg_refuse_from(uint64_t approval, const char *reason,
		    const char *by, const char *post);
struct bx_msg	*bx_msg_error(enum bx_code, const char *message);
struct bx_msg	*bx_msg_chat(const char *session, const char *text);

/*
 * approval_list, approval_changes and grants_report start empty; this
 * appends a copy to the items of the first two, bx_msg_add_problem
 * (message_console.h) to the third.
 */
int	bx_msg_add_pending(struct bx_msg *approval_list,
	    const struct bx_pending_approval *);

/* turn_event, one constructor per type. */
struct bx_msg	*bx_msg_ev_started(const char *session);
struct bx_msg	*bx_msg_ev_text(const char *text);
/* A piece of the model's text as it arrives (whole UTF-8 characters). */
struct bx_msg	*bx_msg_ev_text_delta(const char *text);
struct bx_msg	*bx_msg_ev_tool_call(const char *call, const char *tool,
		    const char *arguments);
struct bx_msg	*bx_msg_ev_tool_running(const char *call, const char *tool);
struct bx_msg	*bx_msg_ev_tool_result(const char *call, enum bx_status,
		    const char *content, enum bx_class, bool untrusted);
struct bx_msg	*bx_msg_ev_approval_pending(uint64_t approval,
		    const char *tool, int64_t expires);
struct bx_msg	*bx_msg_ev_done(const char *reply);
struct bx_msg	*bx_msg_ev_error(const char *message);

#endif
