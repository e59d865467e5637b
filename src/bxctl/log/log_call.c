/*
 * log_call.c: `bxctl log --call ID` (log_call.h). Call ids are the model's
 * and repeat across sessions, so every record whose own session and call
 * match is printed, whole: each field on a line of its own, nothing cut,
 * every string as data; with --json, each record as the log holds it,
 * with where it is.
 */
#include <inttypes.h>
#include <string.h>

#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/when.h"
#include "bxctl/log/log_call.h"
#include "proto/json.h"

/* "  name         value", value escaped; "-" for NULL. */
static void
field(FILE *fp, const char *name, const char *value)
{
	fprintf(fp, "  %-13s", name);
	escape_puts(fp, value != NULL ? value : "-");
	fputc('\n', fp);
}

static void
hash_field(FILE *fp, const char *name, const struct bx_hash *h)
{
	char hex[BX_HASH_HEX_LEN + 1];

	bx_hash_format(h, hex);
	field(fp, name, hex);
}

static void
outcome_field(FILE *fp, const struct bx_outcome *o)
{
	char buf[64];

	snprintf(buf, sizeof(buf), "%s%s%s", bx_outcome_name(o->kind),
	    o->kind == BX_OUTCOME_DENIED ? ": " : "",
	    o->kind == BX_OUTCOME_DENIED ? bx_deny_name(o->reason) : "");
	field(fp, "outcome", buf);
}

static void
decision(FILE *fp, const struct bx_ev_decision *d)
{
	field(fp, "session", d->session);
	field(fp, "call", d->call);
	field(fp, "tool", d->tool);
	field(fp, "arguments", d->arguments);
	outcome_field(fp, &d->outcome);
	field(fp, "grant", d->grant);
	if (d->has_grant_sha256)
		hash_field(fp, "grant sha256", &d->grant_sha256);
	field(fp, "taint", bx_class_name(d->taint));
	field(fp, "untrusted", d->untrusted ? "true" : "false");
}

static void
approval(FILE *fp, const struct bx_ev_approval *a)
{
	char seq[32];

	snprintf(seq, sizeof(seq), "%" PRIu64, a->decision);
	field(fp, "decision", seq);
	field(fp, "answer", bx_answer_name(a->answer));
	field(fp, "by", a->by);
	field(fp, "post", a->post);
	field(fp, "reason", a->reason);
	outcome_field(fp, &a->outcome);
}

static void
result(FILE *fp, const struct bx_ev_result *r)
{
	char num[32];

	snprintf(num, sizeof(num), "%" PRIu64, r->decision);
	field(fp, "decision", num);
	field(fp, "status", bx_result_status_name(r->status));
	field(fp, "class", bx_class_name(r->class));
	field(fp, "untrusted", r->untrusted ? "true" : "false");
	field(fp, "truncated", r->truncated ? "true" : "false");
	snprintf(num, sizeof(num), "%" PRIu64, r->bytes);
	field(fp, "bytes", num);
	hash_field(fp, "sha256", &r->sha256);
	field(fp, "taint after", bx_class_name(r->taint_after));
}

static void
text(struct log_call *lc, const struct bx_audit_record *rec,
    const struct bx_location *at)
{
	char when[WHEN_LOCAL_LEN];
	FILE *fp = lc->out;

	when_local(rec->time, when);
	fprintf(fp, "%s%s %" PRIu64 " at %s (", lc->found > 1 ? "\n" : "",
	    bx_event_type_name(rec->event.type), rec->seq, when);
	escape_puts(fp, at->file);
	fprintf(fp, ":%" PRIu64 ")\n", at->line);
	if (rec->event.type == BX_AUDIT_DECISION)
		decision(fp, &rec->event.decision);
	else if (rec->event.type == BX_AUDIT_APPROVAL)
		approval(fp, &rec->event.approval);
	else
		result(fp, &rec->event.result);
}

/* {"file":F,"line":N,"record":{...the record...}} */
static void
json(struct log_call *lc, const struct bx_chain_record *cr)
{
	json_t *o, *rec;

	if (bx_json_parse(cr->bytes, cr->len, &rec, NULL) == -1)
		return;
	if ((o = json_object()) != NULL) {
		json_object_set_new(o, "file", json_string(cr->at.file));
		json_object_set_new(o, "line", json_integer(
		    (json_int_t)cr->at.line));
		json_object_set(o, "record", rec);
		jsonout_print(lc->out, o);
	}
	json_decref(o);
	json_decref(rec);
}

/* The session and call of a call's record; false for any other. */
static bool
ids(const struct bx_audit_record *rec, const char **session,
    const char **call)
{
	switch (rec->event.type) {
	case BX_AUDIT_DECISION:
		*session = rec->event.decision.session;
		*call = rec->event.decision.call;
		return true;
	case BX_AUDIT_APPROVAL:
		*session = rec->event.approval.session;
		*call = rec->event.approval.call;
		return true;
	case BX_AUDIT_RESULT:
		*session = rec->event.result.session;
		*call = rec->event.result.call;
		return true;
	default:
		return false;
	}
}

void
log_call_record(void *ctx, const struct bx_chain_record *cr)
{
	struct log_call *lc = ctx;
	struct bx_audit_record rec;
	struct bx_error err;
	const char *session, *call;

	if (bx_audit_record_from_scan(cr->bytes, cr->len, cr->fast, &rec,
	    &err) == -1)
		return;
	if (ids(&rec, &session, &call) && strcmp(call, lc->call) == 0 &&
	    (lc->session == NULL || strcmp(session, lc->session) == 0)) {
		lc->found++;
		if (lc->json)
			json(lc, cr);
		else
			text(lc, &rec, &cr->at);
	}
	bx_audit_record_clear(&rec);
}
