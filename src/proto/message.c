/*
 * message.c: the names of the message enums, the constructors and the
 * destructor of struct bx_msg. Decoding is in message_decode.c, encoding in
 * message_encode.c; the console's kinds and the GrantProblem lists are in
 * message_console.c and message_console_codec.c.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/frame.h"
#include "proto/message.h"
#include "proto/message_impl.h"

static const char *kind_names[BX_MSG_MAX] = {
	"tool_request", "tool_response", "approvals", "approval_list",
	"approve", "approve_result", "refuse", "ok", "check_grants",
	"grants_report", "error", "chat", "turn_event", "sessions",
	"session_list", "explain", "explanation", "status", "broker_status",
	"list_grants", "grant_list",
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

void
bx_pending_approval_clear(struct bx_pending_approval *p)
{
	free(p->session);
	free(p->call);
	free(p->tool);
	free(p->arguments);
	free(p->grant);
}

static void
turn_event_clear(struct bx_turn_event *e)
{
	free(e->session);
	free(e->text);
	free(e->call);
	free(e->tool);
	free(e->arguments);
	free(e->content);
}

void
bx_msg_free(struct bx_msg *m)
{
	size_t i;

	if (m == NULL)
		return;
	switch (m->kind) {
	case BX_MSG_TOOL_REQUEST:
		free(m->tool_request.session);
		free(m->tool_request.call);
		free(m->tool_request.tool);
		free(m->tool_request.arguments);
		break;
	case BX_MSG_TOOL_RESPONSE:
		free(m->tool_response.content);
		free(m->tool_response.message);
		break;
	case BX_MSG_APPROVAL_LIST:
		for (i = 0; i < m->approval_list.nitems; i++)
			bx_pending_approval_clear(&m->approval_list.items[i]);
		free(m->approval_list.items);
		break;
	case BX_MSG_REFUSE:
		free(m->refuse.reason);
		break;
	case BX_MSG_GRANTS_REPORT:
		bx_msg_problems_free(m->grants_report.problems,
		    m->grants_report.nproblems);
		break;
	case BX_MSG_ERROR:
		free(m->error.message);
		break;
	case BX_MSG_CHAT:
		free(m->chat.session);
		free(m->chat.text);
		break;
	case BX_MSG_TURN_EVENT:
		turn_event_clear(&m->turn_event);
		break;
	default:
		bx_msg_console_clear(m);
		break;
	}
	free(m);
}

struct bx_msg *
bx_msg_new(enum bx_msg_kind kind)
{
	struct bx_msg *m = calloc(1, sizeof(*m));

	if (m != NULL)
		m->kind = kind;
	return m;
}

void
bx_msg_copy(char **dst, const char *s, bool *failed)
{
	if (s == NULL)
		return;
	if ((*dst = strdup(s)) == NULL)
		*failed = true;
}

struct bx_msg *
bx_msg_done(struct bx_msg *m, bool failed)
{
	if (!failed)
		return m;
	bx_msg_free(m);
	return NULL;
}

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
	struct bx_msg *m = bx_msg_new(BX_MSG_APPROVE);

	if (m != NULL)
		m->approve.approval = approval;
	return m;
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
	struct bx_msg *m = bx_msg_new(BX_MSG_REFUSE);
	bool failed = false;

	if (m == NULL)
		return NULL;
	m->refuse.approval = approval;
	bx_msg_copy(&m->refuse.reason, reason, &failed);
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

void *
bx_msg_grow(void *array, size_t n, size_t sz)
{
	char *p;

	if (n >= SIZE_MAX / sz - 1)
		return NULL;
	if ((p = realloc(array, (n + 1) * sz)) == NULL)
		return NULL;
	memset(p + n * sz, 0, sz);
	return p;
}

int
bx_msg_add_pending(struct bx_msg *m, const struct bx_pending_approval *p)
{
	struct bx_approval_list *l = &m->approval_list;
	struct bx_pending_approval *items, *q;
	bool failed = false;

	if ((items = bx_msg_grow(l->items, l->nitems, sizeof(*items))) == NULL)
		return -1;
	l->items = items;
	q = &items[l->nitems];
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
	l->nitems++;
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
