/*
 * message_names.c: the wire names of the message enums, and which frames
 * end their answer (message_names.h).
 */
#include "proto/message_names.h"

static const char *kind_names[BX_MSG_MAX] = {
	"tool_request", "tool_response", "approvals", "approval_list",
	"approve", "approve_result", "refuse", "ok", "check_grants",
	"grants_report", "error", "chat", "turn_event", "sessions",
	"session_list", "explain", "explanation", "status", "broker_status",
	"list_grants", "grant_list", "approvals_wait", "approval_changes",
};

static const char *status_names[BX_STATUS_MAX] = {
	"pending_approval", "result", "failed", "denied", "approved",
};

static const char *code_names[BX_CODE_MAX] = {
	"bad_request", "frame_too_large", "forbidden", "no_such_approval",
	"busy", "unavailable", "internal",
};

static const char *event_names[BX_EVENT_MAX] = {
	"started", "text", "tool_call", "tool_result", "approval_pending",
	"done", "error", "text_delta", "tool_running",
};

static const char *end_names[BX_END_MAX] = {
	"approved", "refused", "expired", "abandoned", "forgotten",
};

const char *
bx_end_name(enum bx_end e)
{
	return e < BX_END_MAX ? end_names[e] : "?";
}

const char *
bx_msg_kind_name(enum bx_msg_kind k)
{
	return k < BX_MSG_MAX ? kind_names[k] : "?";
}

const char *
bx_status_name(enum bx_status s)
{
	return s < BX_STATUS_MAX ? status_names[s] : "?";
}

const char *
bx_code_name(enum bx_code c)
{
	return c < BX_CODE_MAX ? code_names[c] : "?";
}

const char *
bx_event_name(enum bx_event e)
{
	return e < BX_EVENT_MAX ? event_names[e] : "?";
}

bool
bx_status_is_final(enum bx_status s)
{
	return s != BX_STATUS_PENDING_APPROVAL && s != BX_STATUS_APPROVED;
}

bool
bx_msg_is_final(const struct bx_msg *m)
{
	if (m->kind == BX_MSG_TOOL_RESPONSE)
		return bx_status_is_final(m->tool_response.status);
	if (m->kind == BX_MSG_TURN_EVENT)
		return m->turn_event.type == BX_EVENT_DONE ||
		    m->turn_event.type == BX_EVENT_ERROR;
	return true;
}
