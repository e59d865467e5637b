/*
 * log_json.c: one entry of `bxctl log --json` as a JSON object
 * (log_json.h).
 * A call is flat, so that a script can select on any field:
 *
 *	{"type":"call","time":T,"decision":SEQ,"file":F,"line":N,
 *	 "session":S,"call":C,"tool":T,"arguments":A,"outcome":O,
 *	 "reason":R,"grant":G,"taint":T,"answer":A,"by":B,"post":P,
 *	 "status":S,
 *	 "bytes":N,"class":C,"untrusted":U,"truncated":T,"taint_after":T}
 *
 * with null where the call has no such thing (no ask, no Result). A
 * record that is no call is {"type":"recovery"|"accepted_break"|
 * "approval"|"result","time":T,"seq":SEQ,"file":F,"line":N,...}.
 * Times are the wire's UTC Timestamps.
 */
#include "bxctl/common/jsonout.h"
#include "bxctl/log/log_entry.h"
#include "bxctl/log/log_json.h"

/* Adds key: value to o, where value is a new reference (NULL: null). */
static void
set(json_t *o, const char *key, json_t *value)
{
	json_object_set_new(o, key, value != NULL ? value : json_null());
}

static json_t *
string_or_null(const char *s)
{
	return s != NULL ? json_string(s) : json_null();
}

static json_t *
head(const char *type, const struct log_entry *e, const char *seq_key)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	set(o, "type", json_string(type));
	set(o, "time", jsonout_time(e->rec.time));
	set(o, seq_key, json_integer((json_int_t)e->rec.seq));
	set(o, "file", json_string(e->at.file));
	set(o, "line", json_integer((json_int_t)e->at.line));
	return o;
}

/* The Approval's and the Result's fields of a call. */
static void
outcome_fields(const struct log_entry *e, const char *answer, json_t *o)
{
	const struct bx_ev_result *r = &e->result.event.result;
	enum bx_deny reason;
	bool has = e->has_result;

	set(o, "reason", log_denied(e, &reason) ?
	    json_string(bx_deny_name(reason)) : NULL);
	set(o, "grant", string_or_null(e->rec.event.decision.grant));
	set(o, "taint", json_string(bx_class_name(
	    e->rec.event.decision.taint)));
	set(o, "answer", string_or_null(answer));
	set(o, "by", string_or_null(e->has_approval ?
	    e->approval.event.approval.by : NULL));
	set(o, "post", string_or_null(e->has_approval ?
	    e->approval.event.approval.post : NULL));
	set(o, "status", has ? json_string(bx_result_status_name(r->status)) :
	    NULL);
	set(o, "bytes", has ? json_integer((json_int_t)r->bytes) : NULL);
	set(o, "class", has ? json_string(bx_class_name(r->class)) : NULL);
	set(o, "untrusted", has ? json_boolean(r->untrusted) : NULL);
	set(o, "truncated", has ? json_boolean(r->truncated) : NULL);
	set(o, "taint_after", has ? json_string(bx_class_name(
	    r->taint_after)) : NULL);
}

static json_t *
call(const struct log_entry *e, const char *answer)
{
	const struct bx_ev_decision *d = &e->rec.event.decision;
	json_t *o = head("call", e, "decision");

	if (o == NULL)
		return NULL;
	set(o, "session", json_string(d->session));
	set(o, "call", json_string(d->call));
	set(o, "tool", json_string(d->tool));
	set(o, "arguments", json_string(d->arguments));
	set(o, "outcome", json_string(bx_outcome_name(d->outcome.kind)));
	outcome_fields(e, answer, o);
	return o;
}

json_t *
log_json(const struct log_entry *e, const char *answer)
{
	const struct bx_audit_event *ev = &e->rec.event;
	json_t *o;

	if (e->kind == LOG_CALL)
		return call(e, answer);
	if ((o = head(bx_event_type_name(ev->type), e, "seq")) == NULL)
		return NULL;
	switch (ev->type) {
	case BX_AUDIT_RECOVERY:
		set(o, "torn_bytes", json_integer(
		    (json_int_t)ev->recovery.torn_bytes));
		break;
	case BX_AUDIT_ACCEPTED_BREAK:
		set(o, "accepted_file", json_string(ev->accepted_break.file));
		set(o, "accepted_line", json_integer(
		    (json_int_t)ev->accepted_break.line));
		break;
	case BX_AUDIT_APPROVAL:
		set(o, "of_decision", json_integer(
		    (json_int_t)ev->approval.decision));
		set(o, "answer", json_string(bx_answer_name(
		    ev->approval.answer)));
		break;
	default:
		set(o, "of_decision", json_integer(
		    (json_int_t)ev->result.decision));
		set(o, "status", json_string(bx_result_status_name(
		    ev->result.status)));
		break;
	}
	return o;
}
