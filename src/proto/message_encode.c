/*
 * message_encode.c: a struct bx_msg into its one deterministic frame: kind
 * first, "final" next for the two streamed kinds, then the fields in the
 * order docs/protocol.md lists, every field present (null where absent);
 * and that frame sent.
 */
#include <stdlib.h>

#include "proto/frame.h"
#include "proto/json.h"
#include "proto/message_bridge_codec.h"
#include "proto/message_console_codec.h"
#include "proto/message_encode.h"
#include "proto/message_names.h"
#include "proto/message_write.h"

static int
encode_tool_request(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_tool_request *t = &m->tool_request;

	if (bx_json_set(o, "session", json_string(t->session), err) == -1 ||
	    bx_json_set(o, "call", json_string(t->call), err) == -1 ||
	    bx_json_set(o, "tool", json_string(t->tool), err) == -1 ||
	    bx_json_set(o, "arguments", json_string(t->arguments), err) == -1)
		return -1;
	return 0;
}

static int
encode_tool_response(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_tool_response *r = &m->tool_response;

	if (bx_json_set(o, "final", json_boolean(bx_msg_is_final(m)),
	    err) == -1 ||
	    bx_json_set(o, "status", bx_msge_name(bx_status_name(r->status)),
	    err) == -1)
		return -1;
	switch (r->status) {
	case BX_STATUS_PENDING_APPROVAL:
		if (bx_json_set(o, "approval", bx_json_u64_new(r->approval),
		    err) == -1)
			return -1;
		return bx_json_set(o, "expires", bx_json_time_new(r->expires),
		    err);
	case BX_STATUS_RESULT:
		if (bx_json_set(o, "content", json_string(r->content),
		    err) == -1 ||
		    bx_json_set(o, "class", bx_msge_name(bx_class_name(r->class)),
		    err) == -1 ||
		    bx_json_set(o, "untrusted", json_boolean(r->untrusted),
		    err) == -1)
			return -1;
		return bx_json_set(o, "truncated", json_boolean(r->truncated),
		    err);
	case BX_STATUS_FAILED:
		return bx_json_set(o, "message", json_string(r->message), err);
	case BX_STATUS_APPROVED:
		return 0;
	default:
		return bx_json_set(o, "reason", bx_msge_name(bx_deny_name(r->reason)),
		    err);
	}
}

static int
encode_empty(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	(void)m;
	(void)o;
	(void)err;
	return 0;
}

static int
encode_approval_list(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	return bx_msge_pending(o, "items", m->approval_list.items,
	    m->approval_list.nitems, err);
}

static int
encode_grants_report(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	return bx_msge_problems(o, "problems", m->grants_report.problems,
	    m->grants_report.nproblems, err);
}

static int
encode_approve(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	if (bx_json_set(o, "approval", bx_json_u64_new(m->approve.approval),
	    err) == -1)
		return -1;
	return bx_msge_by_post(o, m->approve.by, m->approve.post, err);
}

static int
encode_approve_result(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	return bx_json_set(o, "outcome",
	    bx_json_outcome_new(&m->approve_result), err);
}

static int
encode_refuse(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	if (bx_json_set(o, "approval", bx_json_u64_new(m->refuse.approval),
	    err) == -1)
		return -1;
	if (bx_json_set(o, "reason", bx_json_string_new(m->refuse.reason),
	    err) == -1)
		return -1;
	return bx_msge_by_post(o, m->refuse.by, m->refuse.post, err);
}

static int
encode_error(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	if (bx_json_set(o, "code", bx_msge_name(bx_code_name(m->error.code)),
	    err) == -1)
		return -1;
	return bx_json_set(o, "message", json_string(m->error.message), err);
}

static int
encode_chat(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	if (bx_json_set(o, "session", bx_json_string_new(m->chat.session),
	    err) == -1)
		return -1;
	return bx_json_set(o, "text", json_string(m->chat.text), err);
}

static int
encode_tool_result(const struct bx_turn_event *e, json_t *o,
    struct bx_error *err)
{
	if (!bx_status_is_final(e->status))
		return bx_fail(err, "field \"status\": a tool result cannot be "
		    "%s", bx_status_name(e->status));
	if (bx_json_set(o, "call", json_string(e->call), err) == -1 ||
	    bx_json_set(o, "status", bx_msge_name(bx_status_name(e->status)),
	    err) == -1 ||
	    bx_json_set(o, "content", json_string(e->content), err) == -1 ||
	    bx_json_set(o, "class", bx_msge_name(bx_class_name(e->class)),
	    err) == -1)
		return -1;
	return bx_json_set(o, "untrusted", json_boolean(e->untrusted), err);
}

static int
encode_turn_event(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_turn_event *e = &m->turn_event;

	if (bx_json_set(o, "final", json_boolean(bx_msg_is_final(m)),
	    err) == -1 ||
	    bx_json_set(o, "type", bx_msge_name(bx_event_name(e->type)), err) == -1)
		return -1;
	switch (e->type) {
	case BX_EVENT_STARTED:
		return bx_json_set(o, "session", json_string(e->session), err);
	case BX_EVENT_TEXT:
	case BX_EVENT_TEXT_DELTA:
		return bx_json_set(o, "text", json_string(e->text), err);
	case BX_EVENT_TOOL_CALL:
	case BX_EVENT_TOOL_RUNNING:
		if (bx_json_set(o, "call", json_string(e->call), err) == -1 ||
		    bx_json_set(o, "tool", json_string(e->tool), err) == -1)
			return -1;
		return e->type == BX_EVENT_TOOL_RUNNING ? 0 : bx_json_set(o,
		    "arguments", json_string(e->arguments), err);
	case BX_EVENT_TOOL_RESULT:
		return encode_tool_result(e, o, err);
	case BX_EVENT_APPROVAL_PENDING:
		if (bx_json_set(o, "approval", bx_json_u64_new(e->approval),
		    err) == -1 ||
		    bx_json_set(o, "tool", json_string(e->tool), err) == -1)
			return -1;
		return bx_json_set(o, "expires", bx_json_time_new(e->expires),
		    err);
	case BX_EVENT_DONE:
		return bx_json_set(o, "reply", json_string(e->text), err);
	default:
		return bx_json_set(o, "message", json_string(e->text), err);
	}
}

static int (*const encoders[BX_MSG_MAX])(const struct bx_msg *, json_t *,
    struct bx_error *) = {
	[BX_MSG_TOOL_REQUEST] = encode_tool_request,
	[BX_MSG_TOOL_RESPONSE] = encode_tool_response,
	[BX_MSG_APPROVALS] = encode_empty,
	[BX_MSG_APPROVAL_LIST] = encode_approval_list,
	[BX_MSG_APPROVE] = encode_approve,
	[BX_MSG_APPROVE_RESULT] = encode_approve_result,
	[BX_MSG_REFUSE] = encode_refuse,
	[BX_MSG_OK] = encode_empty,
	[BX_MSG_CHECK_GRANTS] = encode_empty,
	[BX_MSG_GRANTS_REPORT] = encode_grants_report,
	[BX_MSG_ERROR] = encode_error,
	[BX_MSG_CHAT] = encode_chat,
	[BX_MSG_TURN_EVENT] = encode_turn_event,
	[BX_MSG_SESSIONS] = encode_empty,
	[BX_MSG_SESSION_LIST] = bx_msge_session_list,
	[BX_MSG_EXPLAIN] = bx_msge_explain,
	[BX_MSG_EXPLANATION] = bx_msge_explanation,
	[BX_MSG_STATUS] = encode_empty,
	[BX_MSG_BROKER_STATUS] = bx_msge_broker_status,
	[BX_MSG_LIST_GRANTS] = encode_empty,
	[BX_MSG_GRANT_LIST] = bx_msge_grant_list,
	[BX_MSG_APPROVALS_WAIT] = bx_msge_approvals_wait,
	[BX_MSG_APPROVAL_CHANGES] = bx_msge_approval_changes,
};

int
bx_msg_encode(const struct bx_msg *m, char **ret, size_t *ret_len,
    struct bx_error *err)
{
	json_t *o = NULL;
	char *line = NULL;
	size_t len;
	int rc = -1;

	if (m->kind >= BX_MSG_MAX) {
		bx_fail(err, "cannot encode message kind %d", (int)m->kind);
		goto out;
	}
	if ((o = json_object()) == NULL) {
		bx_fail(err, "out of memory");
		goto out;
	}
	if (bx_json_set(o, "kind", json_string(bx_msg_kind_name(m->kind)),
	    err) == -1 || encoders[m->kind](m, o, err) == -1) {
		bx_error_prefix(err, "%s", bx_msg_kind_name(m->kind));
		goto out;
	}
	if ((line = bx_json_encode_line(o, &len, err)) == NULL)
		goto out;
	if (len > BX_FRAME_MAX) {
		bx_fail(err, "%s: the frame would be %zu bytes, more than %d",
		    bx_msg_kind_name(m->kind), len, BX_FRAME_MAX);
		free(line);
		goto out;
	}
	*ret = line;
	*ret_len = len;
	rc = 0;
out:
	json_decref(o);
	return rc;
}

int
bx_msg_send(int fd, const struct bx_msg *m, int timeout_ms,
    struct bx_error *err)
{
	enum bx_frame_status s;
	size_t len;
	char *buf;

	if (bx_msg_encode(m, &buf, &len, err) == -1)
		return -1;
	s = bx_frame_write(fd, buf, len, timeout_ms, err);
	free(buf);
	return s == BX_FRAME_OK ? 0 : -1;
}
