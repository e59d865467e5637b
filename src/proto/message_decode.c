/*
 * message_decode.c: one frame into a struct bx_msg, strictly. Each kind
 * (and each status of tool_response, each type of turn_event) has its own
 * field list; every key is checked against it before any value is read,
 * and every error names the key it is about.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "proto/message_alloc.h"
#include "proto/message_bridge_codec.h"
#include "proto/message_console_codec.h"
#include "proto/message_decode.h"
#include "proto/message_names.h"
#include "proto/message_read.h"

/* Reads a tag string at key and finds it among count names. */
static int
tag(const json_t *o, const char *key, const char *(*name)(int), int count,
    int *ret, struct bx_error *err)
{
	const char *s;
	int i;

	if (bx_json_string(o, key, &s, err) == -1)
		return -1;
	for (i = 0; i < count; i++)
		if (strcmp(s, name(i)) == 0) {
			*ret = i;
			return 0;
		}
	return bx_fail(err, "field \"%s\": unknown value \"%s\"", key, s);
}

static const char *
kind_name(int i)
{
	return bx_msg_kind_name((enum bx_msg_kind)i);
}

static const char *
status_name(int i)
{
	return bx_status_name((enum bx_status)i);
}

static const char *
code_name(int i)
{
	return bx_code_name((enum bx_code)i);
}

static const char *
event_name(int i)
{
	return bx_event_name((enum bx_event)i);
}

/* "final" must be present, a bool, and what the status or type implies. */
static int
check_final(const json_t *o, bool want, const char *what,
    struct bx_error *err)
{
	bool final;

	if (bx_json_bool(o, "final", &final, err) == -1)
		return -1;
	if (final != want)
		return bx_fail(err, "field \"final\": must be %s for %s",
		    want ? "true" : "false", what);
	return 0;
}

static const char *const tool_request_fields[] = {
	"kind", "session", "call", "tool", "arguments", NULL
};

static int
decode_tool_request(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_tool_request *t = &m->tool_request;

	if (bx_json_check_fields(o, tool_request_fields, err) == -1 ||
	    bx_msgd_id(o, "session", bx_session_id_check, &t->session, err) == -1 ||
	    bx_msgd_id(o, "call", bx_call_id_check, &t->call, err) == -1 ||
	    bx_msgd_string(o, "tool", &t->tool, err) == -1 ||
	    bx_msgd_string(o, "arguments", &t->arguments, err) == -1)
		return -1;
	return 0;
}

static const char *const response_fields[BX_STATUS_MAX][8] = {
	[BX_STATUS_PENDING_APPROVAL] = { "kind", "final", "status", "approval",
	    "expires", NULL },
	[BX_STATUS_RESULT] = { "kind", "final", "status", "content", "class",
	    "untrusted", "truncated", NULL },
	[BX_STATUS_FAILED] = { "kind", "final", "status", "message", NULL },
	[BX_STATUS_DENIED] = { "kind", "final", "status", "reason", NULL },
	[BX_STATUS_APPROVED] = { "kind", "final", "status", NULL },
};

static int
decode_tool_response(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_tool_response *r = &m->tool_response;
	int status = 0;

	if (tag(o, "status", status_name, BX_STATUS_MAX, &status, err) == -1)
		return -1;
	r->status = (enum bx_status)status;
	if (bx_json_check_fields(o, response_fields[status], err) == -1 ||
	    check_final(o, bx_status_is_final(r->status),
	    bx_status_name(r->status), err) == -1)
		return -1;
	switch (r->status) {
	case BX_STATUS_PENDING_APPROVAL:
		if (bx_json_u64(o, "approval", &r->approval, err) == -1 ||
		    bx_json_time(o, "expires", &r->expires, err) == -1)
			return -1;
		break;
	case BX_STATUS_RESULT:
		if (bx_msgd_string(o, "content", &r->content, err) == -1 ||
		    bx_json_class(o, "class", &r->class, err) == -1 ||
		    bx_json_bool(o, "untrusted", &r->untrusted, err) == -1 ||
		    bx_json_bool(o, "truncated", &r->truncated, err) == -1)
			return -1;
		break;
	case BX_STATUS_FAILED:
		if (bx_msgd_string(o, "message", &r->message, err) == -1)
			return -1;
		break;
	case BX_STATUS_APPROVED:
		break;
	default:
		if (bx_json_deny(o, "reason", &r->reason, err) == -1)
			return -1;
		break;
	}
	return 0;
}

static const char *const kind_only_fields[] = { "kind", NULL };

static int
decode_empty(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	(void)m;
	return bx_json_check_fields(o, kind_only_fields, err);
}

static const char *const approval_list_fields[] = { "kind", "items", NULL };

static int
decode_approval_list(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_approval_list *l = &m->approval_list;

	if (bx_json_check_fields(o, approval_list_fields, err) == -1)
		return -1;
	return bx_msgd_pending(o, "items", &l->items, &l->nitems, err);
}

static const char *const approve_fields[] = {
	"kind", "approval", "by", "post", NULL
};

static int
decode_approve(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_approve *a = &m->approve;

	if (bx_json_check_fields(o, approve_fields, err) == -1 ||
	    bx_json_u64(o, "approval", &a->approval, err) == -1)
		return -1;
	return bx_msgd_by_post(o, &a->by, &a->post, err);
}

static const char *const approve_result_fields[] = {
	"kind", "outcome", NULL
};

static int
decode_approve_result(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	if (bx_json_check_fields(o, approve_result_fields, err) == -1)
		return -1;
	return bx_json_outcome(o, "outcome", &m->approve_result, err);
}

static const char *const refuse_fields[] = {
	"kind", "approval", "reason", "by", "post", NULL
};

static int
decode_refuse(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_refuse *r = &m->refuse;

	if (bx_json_check_fields(o, refuse_fields, err) == -1 ||
	    bx_json_u64(o, "approval", &r->approval, err) == -1 ||
	    bx_msgd_string_or_null(o, "reason", &r->reason, err) == -1)
		return -1;
	return bx_msgd_by_post(o, &r->by, &r->post, err);
}

static const char *const grants_report_fields[] = {
	"kind", "problems", NULL
};

static int
decode_grants_report(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_grants_report *r = &m->grants_report;

	if (bx_json_check_fields(o, grants_report_fields, err) == -1)
		return -1;
	return bx_msgd_problems(o, "problems", &r->problems, &r->nproblems,
	    err);
}

static const char *const error_fields[] = { "kind", "code", "message", NULL };

static int
decode_error(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	int code = 0;

	if (bx_json_check_fields(o, error_fields, err) == -1 ||
	    tag(o, "code", code_name, BX_CODE_MAX, &code, err) == -1)
		return -1;
	m->error.code = (enum bx_code)code;
	return bx_msgd_string(o, "message", &m->error.message, err);
}

static const char *const chat_fields[] = { "kind", "session", "text", NULL };

static int
decode_chat(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	const char *session;

	if (bx_json_check_fields(o, chat_fields, err) == -1 ||
	    bx_json_string_or_null(o, "session", &session, err) == -1)
		return -1;
	if (session != NULL && bx_msgd_id(o, "session", bx_session_id_check,
	    &m->chat.session, err) == -1)
		return -1;
	return bx_msgd_string(o, "text", &m->chat.text, err);
}

static const char *const event_fields[BX_EVENT_MAX][9] = {
	[BX_EVENT_STARTED] = { "kind", "final", "type", "session", NULL },
	[BX_EVENT_TEXT] = { "kind", "final", "type", "text", NULL },
	[BX_EVENT_TOOL_CALL] = { "kind", "final", "type", "call", "tool",
	    "arguments", NULL },
	[BX_EVENT_TOOL_RESULT] = { "kind", "final", "type", "call", "status",
	    "content", "class", "untrusted", NULL },
	[BX_EVENT_APPROVAL_PENDING] = { "kind", "final", "type", "approval",
	    "tool", "expires", NULL },
	[BX_EVENT_DONE] = { "kind", "final", "type", "reply", NULL },
	[BX_EVENT_ERROR] = { "kind", "final", "type", "message", NULL },
	[BX_EVENT_TEXT_DELTA] = { "kind", "final", "type", "text", NULL },
	[BX_EVENT_TOOL_RUNNING] = { "kind", "final", "type", "call", "tool", NULL },
};

static int
decode_tool_result(const json_t *o, struct bx_turn_event *e,
    struct bx_error *err)
{
	int status = 0;

	if (bx_msgd_id(o, "call", bx_call_id_check, &e->call, err) == -1 ||
	    tag(o, "status", status_name, BX_STATUS_MAX, &status, err) == -1)
		return -1;
	if (!bx_status_is_final((enum bx_status)status))
		return bx_fail(err, "field \"status\": a tool result cannot be "
		    "%s", status_name(status));
	e->status = (enum bx_status)status;
	if (bx_msgd_string(o, "content", &e->content, err) == -1 ||
	    bx_json_class(o, "class", &e->class, err) == -1)
		return -1;
	return bx_json_bool(o, "untrusted", &e->untrusted, err);
}

static int
decode_turn_event(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_turn_event *e = &m->turn_event;
	int type = 0;

	if (tag(o, "type", event_name, BX_EVENT_MAX, &type, err) == -1)
		return -1;
	e->type = (enum bx_event)type;
	if (bx_json_check_fields(o, event_fields[type], err) == -1 ||
	    check_final(o, bx_msg_is_final(m), bx_event_name(e->type),
	    err) == -1)
		return -1;
	switch (e->type) {
	case BX_EVENT_STARTED:
		return bx_msgd_id(o, "session", bx_session_id_check, &e->session,
		    err);
	case BX_EVENT_TEXT:
	case BX_EVENT_TEXT_DELTA:
		return bx_msgd_string(o, "text", &e->text, err);
	case BX_EVENT_TOOL_CALL:
	case BX_EVENT_TOOL_RUNNING:
		if (bx_msgd_id(o, "call", bx_call_id_check, &e->call, err) == -1 ||
		    bx_msgd_string(o, "tool", &e->tool, err) == -1)
			return -1;
		return e->type == BX_EVENT_TOOL_RUNNING ? 0 :
		    bx_msgd_string(o, "arguments", &e->arguments, err);
	case BX_EVENT_TOOL_RESULT:
		return decode_tool_result(o, e, err);
	case BX_EVENT_APPROVAL_PENDING:
		if (bx_json_u64(o, "approval", &e->approval, err) == -1 ||
		    bx_msgd_string(o, "tool", &e->tool, err) == -1)
			return -1;
		return bx_json_time(o, "expires", &e->expires, err);
	case BX_EVENT_DONE:
		return bx_msgd_string(o, "reply", &e->text, err);
	default:
		return bx_msgd_string(o, "message", &e->text, err);
	}
}

static int (*const decoders[BX_MSG_MAX])(const json_t *, struct bx_msg *,
    struct bx_error *) = {
	[BX_MSG_TOOL_REQUEST] = decode_tool_request,
	[BX_MSG_TOOL_RESPONSE] = decode_tool_response,
	[BX_MSG_APPROVALS] = decode_empty,
	[BX_MSG_APPROVAL_LIST] = decode_approval_list,
	[BX_MSG_APPROVE] = decode_approve,
	[BX_MSG_APPROVE_RESULT] = decode_approve_result,
	[BX_MSG_REFUSE] = decode_refuse,
	[BX_MSG_OK] = decode_empty,
	[BX_MSG_CHECK_GRANTS] = decode_empty,
	[BX_MSG_GRANTS_REPORT] = decode_grants_report,
	[BX_MSG_ERROR] = decode_error,
	[BX_MSG_CHAT] = decode_chat,
	[BX_MSG_TURN_EVENT] = decode_turn_event,
	[BX_MSG_SESSIONS] = decode_empty,
	[BX_MSG_SESSION_LIST] = bx_msgd_session_list,
	[BX_MSG_EXPLAIN] = bx_msgd_explain,
	[BX_MSG_EXPLANATION] = bx_msgd_explanation,
	[BX_MSG_STATUS] = decode_empty,
	[BX_MSG_BROKER_STATUS] = bx_msgd_broker_status,
	[BX_MSG_LIST_GRANTS] = decode_empty,
	[BX_MSG_GRANT_LIST] = bx_msgd_grant_list,
	[BX_MSG_APPROVALS_WAIT] = bx_msgd_approvals_wait,
	[BX_MSG_APPROVAL_CHANGES] = bx_msgd_approval_changes,
};

int
bx_msg_decode(const char *line, size_t len, struct bx_msg **ret,
    struct bx_error *err)
{
	struct bx_msg *m = NULL;
	json_t *o = NULL;
	int kind = 0, rc = -1;

	if (bx_json_parse(line, len, &o, err) == -1)
		goto out;
	if (tag(o, "kind", kind_name, BX_MSG_MAX, &kind, err) == -1)
		goto out;
	if ((m = bx_msg_new((enum bx_msg_kind)kind)) == NULL) {
		bx_fail(err, "out of memory");
		goto out;
	}
	if (decoders[kind](o, m, err) == -1) {
		bx_error_prefix(err, "%s", bx_msg_kind_name(m->kind));
		goto out;
	}
	*ret = m;
	m = NULL;
	rc = 0;
out:
	bx_msg_free(m);
	json_decref(o);
	return rc;
}
