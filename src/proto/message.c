/*
 * message.c: the constructors of struct bx_msg for the daemons' kinds
 * (message.h). Making and freeing one is message_alloc.c's; the console's
 * kinds are message_console.c's; decoding and encoding are
 * message_decode.c's and message_encode.c's.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/message.h"

struct bx_msg *
bx_msg_tool_request(const char *session, const char *call, const char *tool,
    const char *arguments)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_TOOL_REQUEST);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->tool_request.session, session, &failed);
	bx_msg_copy(&m->tool_request.call, call, &failed);
	bx_msg_copy(&m->tool_request.tool, tool, &failed);
	bx_msg_copy(&m->tool_request.arguments, arguments, &failed);
	return bx_msg_done(m, failed);
}

static struct bx_msg *
response(enum bx_status status)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_TOOL_RESPONSE);

	if (m != NULL)
		m->tool_response.status = status;
	return m;
}

struct bx_msg *
bx_msg_pending(uint64_t approval, int64_t expires)
{
	struct bx_msg *m = response(BX_STATUS_PENDING_APPROVAL);

	if (m == NULL)
		return NULL;
	m->tool_response.approval = approval;
	m->tool_response.expires = expires;
	return m;
}

/* Sent once the owner's approval is recorded, before the call runs. */
struct bx_msg *
bx_msg_approved(void)
{
	return response(BX_STATUS_APPROVED);
}

struct bx_msg *
bx_msg_result(const char *content, enum bx_class class, bool untrusted,
    bool truncated)
{
	struct bx_msg *m = response(BX_STATUS_RESULT);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->tool_response.content, content, &failed);
	m->tool_response.class = class;
	m->tool_response.untrusted = untrusted;
	m->tool_response.truncated = truncated;
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_failed(const char *message)
{
	struct bx_msg *m = response(BX_STATUS_FAILED);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->tool_response.message, message, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_denied(enum bx_deny reason)
{
	struct bx_msg *m = response(BX_STATUS_DENIED);

	if (m != NULL)
		m->tool_response.reason = reason;
	return m;
}

struct bx_msg *
bx_msg_approve(uint64_t approval)
{
	return bx_msg_approve_from(approval, NULL, NULL);
}

struct bx_msg *
bx_msg_approve_from(uint64_t approval, const char *by, const char *post)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_APPROVE);
	bool failed = false;

	if (m == NULL)
		return NULL;
	m->approve.approval = approval;
	bx_msg_copy(&m->approve.by, by, &failed);
	bx_msg_copy(&m->approve.post, post, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_approve_result(const struct bx_outcome *outcome)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_APPROVE_RESULT);

	if (m != NULL)
		m->approve_result = *outcome;
	return m;
}

struct bx_msg *
bx_msg_refuse(uint64_t approval, const char *reason)
{
	return bx_msg_refuse_from(approval, reason, NULL, NULL);
}

struct bx_msg *
bx_msg_refuse_from(uint64_t approval, const char *reason, const char *by,
    const char *post)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_REFUSE);
	bool failed = false;

	if (m == NULL)
		return NULL;
	m->refuse.approval = approval;
	bx_msg_copy(&m->refuse.reason, reason, &failed);
	bx_msg_copy(&m->refuse.by, by, &failed);
	bx_msg_copy(&m->refuse.post, post, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_error(enum bx_code code, const char *message)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_ERROR);
	bool failed = false;

	if (m == NULL)
		return NULL;
	m->error.code = code;
	bx_msg_copy(&m->error.message, message, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_chat(const char *session, const char *text)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_CHAT);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->chat.session, session, &failed);
	bx_msg_copy(&m->chat.text, text, &failed);
	return bx_msg_done(m, failed);
}

int
bx_msg_add_pending(struct bx_msg *m, const struct bx_pending_approval *p)
{
	struct bx_pending_approval **itemsp = &m->approval_list.items;
	struct bx_pending_approval *items, *q;
	size_t *np = &m->approval_list.nitems;
	bool failed = false;

	if (m->kind == BX_MSG_APPROVAL_CHANGES) {
		itemsp = &m->approval_changes.items;
		np = &m->approval_changes.nitems;
	}
	if ((items = bx_msg_grow(*itemsp, *np, sizeof(*items))) == NULL)
		return -1;
	*itemsp = items;
	q = &items[*np];
	q->approval = p->approval;
	q->taint = p->taint;
	q->created = p->created;
	q->expires = p->expires;
	bx_msg_copy(&q->session, p->session, &failed);
	bx_msg_copy(&q->call, p->call, &failed);
	bx_msg_copy(&q->tool, p->tool, &failed);
	bx_msg_copy(&q->arguments, p->arguments, &failed);
	bx_msg_copy(&q->grant, p->grant, &failed);
	if (failed) {
		bx_pending_approval_clear(q);
		return -1;
	}
	(*np)++;
	return 0;
}

static struct bx_msg *
event(enum bx_event type)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_TURN_EVENT);

	if (m != NULL)
		m->turn_event.type = type;
	return m;
}

/*
 * A turn_event whose one field is text: text, text_delta, done (reply),
 * error.
 */
static struct bx_msg *
event_text(enum bx_event type, const char *text)
{
	struct bx_msg *m = event(type);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->turn_event.text, text, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_ev_started(const char *session)
{
	struct bx_msg *m = event(BX_EVENT_STARTED);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->turn_event.session, session, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_ev_text(const char *text)
{
	return event_text(BX_EVENT_TEXT, text);
}

struct bx_msg *
bx_msg_ev_text_delta(const char *text)
{
	return event_text(BX_EVENT_TEXT_DELTA, text);
}

struct bx_msg *
bx_msg_ev_done(const char *reply)
{
	return event_text(BX_EVENT_DONE, reply);
}

struct bx_msg *
bx_msg_ev_error(const char *message)
{
	return event_text(BX_EVENT_ERROR, message);
}

struct bx_msg *
bx_msg_ev_tool_call(const char *call, const char *tool, const char *arguments)
{
	struct bx_msg *m = event(BX_EVENT_TOOL_CALL);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->turn_event.call, call, &failed);
	bx_msg_copy(&m->turn_event.tool, tool, &failed);
	bx_msg_copy(&m->turn_event.arguments, arguments, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_ev_tool_running(const char *call, const char *tool)
{
	struct bx_msg *m = event(BX_EVENT_TOOL_RUNNING);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->turn_event.call, call, &failed);
	bx_msg_copy(&m->turn_event.tool, tool, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_ev_tool_result(const char *call, enum bx_status status,
    const char *content, enum bx_class class, bool untrusted)
{
	struct bx_msg *m = event(BX_EVENT_TOOL_RESULT);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->turn_event.call, call, &failed);
	bx_msg_copy(&m->turn_event.content, content, &failed);
	m->turn_event.status = status;
	m->turn_event.class = class;
	m->turn_event.untrusted = untrusted;
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_ev_approval_pending(uint64_t approval, const char *tool,
    int64_t expires)
{
	struct bx_msg *m = event(BX_EVENT_APPROVAL_PENDING);
	bool failed = false;

	if (m == NULL)
		return NULL;
	m->turn_event.approval = approval;
	m->turn_event.expires = expires;
	bx_msg_copy(&m->turn_event.tool, tool, &failed);
	return bx_msg_done(m, failed);
}

