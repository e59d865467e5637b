/*
 * audit_record.c: the AuditRecord codec (design section 5) over jansson.
 * Encoding builds the object in the design's field order and dumps it
 * compact; decoding checks every key of every object against its kind's
 * field list. Both go through the shared helpers of json.h, as the message
 * codec does, so the two codecs read and write JSON by the same rules.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/audit_record.h"
#include "proto/json.h"

static const char *type_names[BX_AUDIT_EVENT_MAX] = {
	"decision", "approval", "result", "recovery", "accepted_break",
};

static const char *answer_names[BX_ANSWER_MAX] = {
	"approved", "refused", "expired",
};

static const char *status_names[BX_RESULT_STATUS_MAX] = {
	"result", "failed",
};

/*
 * The keys of each object, for bx_json_check_fields. The Option fields
 * (grant, grant_sha256, by, post, reason) may be absent, which decodes as
 * null (baseline.md section 1); every other key is required, and its
 * getter says so when it is missing.
 */
static const char *const record_fields[] = {
	"seq", "time", "prev", "event", NULL,
};

static const char *const decision_fields[] = {
	"type", "session", "call", "tool", "arguments", "outcome", "grant",
	"grant_sha256", "taint", "untrusted", NULL,
};

static const char *const approval_fields[] = {
	"type", "session", "call", "decision", "answer", "by", "post",
	"reason", "outcome", NULL,
};

static const char *const result_fields[] = {
	"type", "session", "call", "decision", "status", "class", "untrusted",
	"truncated", "bytes", "sha256", "taint_after", NULL,
};

static const char *const recovery_fields[] = {
	"type", "torn_bytes", "torn_sha256", NULL,
};

static const char *const break_fields[] = {
	"type", "file", "line", "last_good", NULL,
};

static const char *const *const event_fields[BX_AUDIT_EVENT_MAX] = {
	decision_fields, approval_fields, result_fields, recovery_fields,
	break_fields,
};

const char *
bx_event_type_name(enum bx_event_type t)
{
	return t < BX_AUDIT_EVENT_MAX ? type_names[t] : "?";
}

const char *
bx_answer_name(enum bx_answer a)
{
	return a < BX_ANSWER_MAX ? answer_names[a] : "?";
}

const char *
bx_result_status_name(enum bx_result_status s)
{
	return s < BX_RESULT_STATUS_MAX ? status_names[s] : "?";
}

/* A file name for AcceptedBreak.file: 1 to BX_AUDIT_FILE_MAX bytes, no '/'. */
static int
file_name_check(const char *s, struct bx_error *err)
{
	size_t len = strlen(s);

	if (len == 0 || len > BX_AUDIT_FILE_MAX || strchr(s, '/') != NULL)
		return bx_fail(err, "a file name is 1 to %d bytes without '/'",
		    BX_AUDIT_FILE_MAX);
	return 0;
}

/* ---- encoding ---- */

/* Sets key to v (stolen); errors say which record field failed. */
static int
put(json_t *obj, const char *key, json_t *v, struct bx_error *err)
{
	if (bx_json_set(obj, key, v, err) == -1)
		return bx_error_prefix(err, "audit record");
	return 0;
}

static int
put_str(json_t *obj, const char *key, const char *s, struct bx_error *err)
{
	if (s == NULL)
		return bx_fail(err, "audit record: \"%s\" is missing", key);
	return put(obj, key, json_string(s), err);
}

static int
put_id(json_t *obj, const char *key, const char *s,
    int (*check)(const char *, struct bx_error *), struct bx_error *err)
{
	if (s == NULL)
		return bx_fail(err, "audit record: \"%s\" is missing", key);
	if (check(s, err) == -1)
		return bx_error_prefix(err, "audit record: \"%s\"", key);
	return put(obj, key, json_string(s), err);
}

static int
put_class(json_t *obj, const char *key, enum bx_class c, struct bx_error *err)
{
	if (c >= BX_CLASS_MAX)
		return bx_fail(err, "audit record: \"%s\" is not a data class",
		    key);
	return put(obj, key, json_string(bx_class_name(c)), err);
}

static int
put_outcome(json_t *obj, const struct bx_outcome *o, struct bx_error *err)
{
	if (o->kind >= BX_OUTCOME_MAX ||
	    (o->kind == BX_OUTCOME_DENIED && o->reason >= BX_DENY_MAX))
		return bx_fail(err, "audit record: \"outcome\" is not a "
		    "decision record");
	return put(obj, "outcome", bx_json_outcome_new(o), err);
}

static int
encode_decision(json_t *ev, const struct bx_ev_decision *d,
    struct bx_error *err)
{
	if (put_id(ev, "session", d->session, bx_session_id_check, err) ||
	    put_id(ev, "call", d->call, bx_call_id_check, err) ||
	    put_str(ev, "tool", d->tool, err) ||
	    put_str(ev, "arguments", d->arguments, err) ||
	    put_outcome(ev, &d->outcome, err))
		return -1;
	if (d->grant == NULL) {
		if (put(ev, "grant", json_null(), err))
			return -1;
	} else if (put_id(ev, "grant", d->grant, bx_grant_id_check, err))
		return -1;
	if (put(ev, "grant_sha256", d->has_grant_sha256 ?
	    bx_json_hash_new(&d->grant_sha256) : json_null(), err) ||
	    put_class(ev, "taint", d->taint, err) ||
	    put(ev, "untrusted", json_boolean(d->untrusted), err))
		return -1;
	return 0;
}

static int
encode_approval(json_t *ev, const struct bx_ev_approval *a,
    struct bx_error *err)
{
	if (a->answer >= BX_ANSWER_MAX)
		return bx_fail(err, "audit record: \"answer\" is not one of "
		    "approved, refused, expired");
	if (put_id(ev, "session", a->session, bx_session_id_check, err) ||
	    put_id(ev, "call", a->call, bx_call_id_check, err) ||
	    put(ev, "decision", bx_json_u64_new(a->decision), err) ||
	    put(ev, "answer", json_string(bx_answer_name(a->answer)), err) ||
	    put(ev, "by", bx_json_string_new(a->by), err) ||
	    put(ev, "post", bx_json_string_new(a->post), err) ||
	    put(ev, "reason", bx_json_string_new(a->reason), err) ||
	    put_outcome(ev, &a->outcome, err))
		return -1;
	return 0;
}

static int
encode_result(json_t *ev, const struct bx_ev_result *r, struct bx_error *err)
{
	if (r->status >= BX_RESULT_STATUS_MAX)
		return bx_fail(err, "audit record: \"status\" is not one of "
		    "result, failed");
	if (put_id(ev, "session", r->session, bx_session_id_check, err) ||
	    put_id(ev, "call", r->call, bx_call_id_check, err) ||
	    put(ev, "decision", bx_json_u64_new(r->decision), err) ||
	    put(ev, "status", json_string(bx_result_status_name(r->status)),
	    err) ||
	    put_class(ev, "class", r->class, err) ||
	    put(ev, "untrusted", json_boolean(r->untrusted), err) ||
	    put(ev, "truncated", json_boolean(r->truncated), err) ||
	    put(ev, "bytes", bx_json_u64_new(r->bytes), err) ||
	    put(ev, "sha256", bx_json_hash_new(&r->sha256), err) ||
	    put_class(ev, "taint_after", r->taint_after, err))
		return -1;
	return 0;
}

static int
encode_event(json_t *ev, const struct bx_audit_event *e, struct bx_error *err)
{
	const struct bx_ev_accepted_break *b = &e->accepted_break;

	if (e->type >= BX_AUDIT_EVENT_MAX)
		return bx_fail(err, "audit record: unknown event type");
	if (put(ev, "type", json_string(type_names[e->type]), err))
		return -1;
	switch (e->type) {
	case BX_AUDIT_DECISION:
		return encode_decision(ev, &e->decision, err);
	case BX_AUDIT_APPROVAL:
		return encode_approval(ev, &e->approval, err);
	case BX_AUDIT_RESULT:
		return encode_result(ev, &e->result, err);
	case BX_AUDIT_RECOVERY:
		if (put(ev, "torn_bytes", bx_json_u64_new(e->recovery.torn_bytes),
		    err) ||
		    put(ev, "torn_sha256",
		    bx_json_hash_new(&e->recovery.torn_sha256), err))
			return -1;
		return 0;
	default:
		if (b->file == NULL)
			return bx_fail(err, "audit record: \"file\" is missing");
		if (file_name_check(b->file, err) == -1)
			return bx_error_prefix(err, "audit record: \"file\"");
		if (put_str(ev, "file", b->file, err) ||
		    put(ev, "line", bx_json_u64_new(b->line), err) ||
		    put(ev, "last_good", bx_json_hash_new(&b->last_good), err))
			return -1;
		return 0;
	}
}

int
bx_audit_record_encode(const struct bx_audit_record *rec, char **ret_line,
    size_t *ret_len, struct bx_error *err)
{
	char *line;
	size_t len;

	if (bx_audit_record_encode_line(rec, &line, &len, err) == -1)
		return -1;
	line[--len] = '\0';
	*ret_line = line;
	*ret_len = len;
	return 0;
}

int
bx_audit_record_encode_line(const struct bx_audit_record *rec,
    char **ret_line, size_t *ret_len, struct bx_error *err)
{
	json_t *obj = NULL, *ev = NULL;
	char *line;
	size_t len;
	int rv = -1;

	if ((obj = json_object()) == NULL || (ev = json_object()) == NULL) {
		bx_fail(err, "audit record: out of memory");
		goto out;
	}
	if (put(obj, "seq", bx_json_u64_new(rec->seq), err) ||
	    put(obj, "time", bx_json_time_new(rec->time), err) ||
	    put(obj, "prev", bx_json_hash_new(&rec->prev), err) ||
	    encode_event(ev, &rec->event, err))
		goto out;
	rv = put(obj, "event", ev, err);
	ev = NULL;
	if (rv == -1)
		goto out;
	/* The line is the frame form: the record and its "\n". */
	if ((line = bx_json_encode_line(obj, &len, err)) == NULL) {
		rv = bx_error_prefix(err, "audit record");
		goto out;
	}
	if (len - 1 > BX_AUDIT_LINE_MAX) {
		free(line);
		rv = bx_fail(err, "audit record: the line would be longer than "
		    "%u bytes", BX_AUDIT_LINE_MAX);
		goto out;
	}
	*ret_line = line;
	*ret_len = len;
	rv = 0;
out:
	json_decref(ev);
	json_decref(obj);
	return rv;
}

/* ---- decoding ---- */

/* Strings found while decoding, copied into one block at the end. */
#define DECODE_STRINGS_MAX	8

struct decoding {
	const char	**slots[DECODE_STRINGS_MAX];
	size_t		  nslots;
	struct bx_error	 *err;
};

/* A string kept in the record's storage (NULL stays NULL). */
static int
keep(int rv, const char **s, struct decoding *d)
{
	if (rv == 0 && *s != NULL)
		d->slots[d->nslots++] = s;
	return rv;
}

static int
get_id(const json_t *obj, const char *key, int (*check)(const char *,
    struct bx_error *), const char **ret, struct decoding *d)
{
	if (bx_json_string(obj, key, ret, d->err) == -1)
		return -1;
	if (check(*ret, d->err) == -1)
		return bx_error_prefix(d->err, "field \"%s\"", key);
	return keep(0, ret, d);
}

/* A tag string at key, one of count names; its index in *ret. */
static int
get_name(const json_t *obj, const char *key, const char **names, int count,
    int *ret, struct decoding *d)
{
	const char *s;
	int i;

	if (bx_json_string(obj, key, &s, d->err) == -1)
		return -1;
	if ((i = bx_name_index(s, names, count)) < 0)
		return bx_fail(d->err, "field \"%s\": unknown value \"%s\"",
		    key, s);
	*ret = i;
	return 0;
}

static int
decode_decision(const json_t *ev, struct bx_ev_decision *x,
    struct decoding *d)
{
	if (get_id(ev, "session", bx_session_id_check, &x->session, d) ||
	    get_id(ev, "call", bx_call_id_check, &x->call, d) ||
	    keep(bx_json_string(ev, "tool", &x->tool, d->err), &x->tool, d) ||
	    keep(bx_json_string(ev, "arguments", &x->arguments, d->err),
	    &x->arguments, d) ||
	    bx_json_outcome(ev, "outcome", &x->outcome, d->err) ||
	    keep(bx_json_string_or_null(ev, "grant", &x->grant, d->err),
	    &x->grant, d))
		return -1;
	if (x->grant != NULL && bx_grant_id_check(x->grant, d->err) == -1)
		return bx_error_prefix(d->err, "field \"grant\"");
	if (bx_json_hash_or_null(ev, "grant_sha256", &x->has_grant_sha256,
	    &x->grant_sha256, d->err) ||
	    bx_json_class(ev, "taint", &x->taint, d->err) ||
	    bx_json_bool(ev, "untrusted", &x->untrusted, d->err))
		return -1;
	return 0;
}

static int
decode_approval(const json_t *ev, struct bx_ev_approval *x,
    struct decoding *d)
{
	int answer;

	if (get_id(ev, "session", bx_session_id_check, &x->session, d) ||
	    get_id(ev, "call", bx_call_id_check, &x->call, d) ||
	    bx_json_u64(ev, "decision", &x->decision, d->err) ||
	    get_name(ev, "answer", answer_names, BX_ANSWER_MAX, &answer, d) ||
	    keep(bx_json_string_or_null(ev, "by", &x->by, d->err), &x->by,
	    d) ||
	    keep(bx_json_string_or_null(ev, "post", &x->post, d->err),
	    &x->post, d) ||
	    keep(bx_json_string_or_null(ev, "reason", &x->reason, d->err),
	    &x->reason, d) ||
	    bx_json_outcome(ev, "outcome", &x->outcome, d->err))
		return -1;
	x->answer = (enum bx_answer)answer;
	return 0;
}

static int
decode_result(const json_t *ev, struct bx_ev_result *x, struct decoding *d)
{
	int status;

	if (get_id(ev, "session", bx_session_id_check, &x->session, d) ||
	    get_id(ev, "call", bx_call_id_check, &x->call, d) ||
	    bx_json_u64(ev, "decision", &x->decision, d->err) ||
	    get_name(ev, "status", status_names, BX_RESULT_STATUS_MAX, &status,
	    d) ||
	    bx_json_class(ev, "class", &x->class, d->err) ||
	    bx_json_bool(ev, "untrusted", &x->untrusted, d->err) ||
	    bx_json_bool(ev, "truncated", &x->truncated, d->err) ||
	    bx_json_u64(ev, "bytes", &x->bytes, d->err) ||
	    bx_json_hash(ev, "sha256", &x->sha256, d->err) ||
	    bx_json_class(ev, "taint_after", &x->taint_after, d->err))
		return -1;
	x->status = (enum bx_result_status)status;
	return 0;
}

static int
decode_break(const json_t *ev, struct bx_ev_accepted_break *x,
    struct decoding *d)
{
	if (keep(bx_json_string(ev, "file", &x->file, d->err), &x->file, d))
		return -1;
	if (file_name_check(x->file, d->err) == -1)
		return bx_error_prefix(d->err, "field \"file\"");
	if (bx_json_u64(ev, "line", &x->line, d->err) ||
	    bx_json_hash(ev, "last_good", &x->last_good, d->err))
		return -1;
	return 0;
}

static int
decode_fields(const json_t *ev, struct bx_audit_event *x, struct decoding *d)
{
	switch (x->type) {
	case BX_AUDIT_DECISION:
		return decode_decision(ev, &x->decision, d);
	case BX_AUDIT_APPROVAL:
		return decode_approval(ev, &x->approval, d);
	case BX_AUDIT_RESULT:
		return decode_result(ev, &x->result, d);
	case BX_AUDIT_RECOVERY:
		if (bx_json_u64(ev, "torn_bytes", &x->recovery.torn_bytes,
		    d->err) ||
		    bx_json_hash(ev, "torn_sha256", &x->recovery.torn_sha256,
		    d->err))
			return -1;
		return 0;
	default:
		return decode_break(ev, &x->accepted_break, d);
	}
}

/* The event object; errors say "the event" and name the key. */
static int
decode_event(const json_t *rec, struct bx_audit_event *x, struct decoding *d)
{
	json_t *ev;
	int type;

	if (bx_json_object(rec, "event", &ev, d->err) == -1)
		return -1;
	if (get_name(ev, "type", type_names, BX_AUDIT_EVENT_MAX, &type,
	    d) == -1)
		goto fail;
	x->type = (enum bx_event_type)type;
	if (bx_json_check_fields(ev, event_fields[type], d->err) == -1 ||
	    decode_fields(ev, x, d) == -1)
		goto fail;
	return 0;
fail:
	return bx_error_prefix(d->err, "the event");
}

/* Copies the kept strings into one block and points the record at it. */
static int
take_strings(struct bx_audit_record *rec, struct decoding *d)
{
	size_t i, total = 0, n;
	char *p;

	for (i = 0; i < d->nslots; i++)
		total += strlen(*d->slots[i]) + 1;
	if ((rec->storage = p = malloc(total > 0 ? total : 1)) == NULL)
		return bx_fail(d->err, "out of memory");
	for (i = 0; i < d->nslots; i++) {
		n = strlen(*d->slots[i]) + 1;
		memcpy(p, *d->slots[i], n);
		*d->slots[i] = p;
		p += n;
	}
	return 0;
}

int
bx_audit_record_decode(const char *line, size_t len,
    struct bx_audit_record *ret, struct bx_error *err)
{
	struct decoding d = { .err = err };
	struct bx_audit_record rec = { 0 };
	json_t *obj = NULL;
	int rv = -1;

	if (len > BX_AUDIT_LINE_MAX)
		return bx_fail(err, "audit record: the line is longer than "
		    "%u bytes", BX_AUDIT_LINE_MAX);
	if (bx_json_parse(line, len, &obj, err) == -1)
		return bx_error_prefix(err, "audit record");
	if (bx_json_check_fields(obj, record_fields, err) == -1 ||
	    bx_json_u64(obj, "seq", &rec.seq, err) == -1 ||
	    bx_json_time(obj, "time", &rec.time, err) == -1 ||
	    bx_json_hash(obj, "prev", &rec.prev, err) == -1 ||
	    decode_event(obj, &rec.event, &d) == -1 ||
	    take_strings(&rec, &d) == -1) {
		bx_error_prefix(err, "audit record");
		goto out;
	}
	*ret = rec;
	rv = 0;
out:
	json_decref(obj);
	return rv;
}

void
bx_audit_record_clear(struct bx_audit_record *rec)
{
	if (rec == NULL)
		return;
	free(rec->storage);
	memset(rec, 0, sizeof(*rec));
}
