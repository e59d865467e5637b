/*
 * audit_record.c: the AuditRecord codec (design section 5) over jansson.
 * Encoding builds the object in the design's field order and dumps it
 * compact; decoding checks every key of every object against its kind's
 * field list, so the encoder's output is the only form most lines take.
 */
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/audit_record.h"
#include "proto/json.h"

static const char *type_names[BX_EVENT_MAX] = {
	"decision", "approval", "result", "recovery", "accepted_break",
};

static const char *answer_names[BX_ANSWER_MAX] = {
	"approved", "refused", "expired",
};

static const char *status_names[BX_STATUS_MAX] = {
	"result", "failed",
};

/* A key of an object and whether it may be absent (Option<T>: null). */
struct field {
	const char	*key;
	bool		 optional;
};

static const struct field record_fields[] = {
	{ "seq", false }, { "time", false }, { "prev", false },
	{ "event", false }, { NULL, false },
};

static const struct field decision_fields[] = {
	{ "type", false }, { "session", false }, { "call", false },
	{ "tool", false }, { "arguments", false }, { "outcome", false },
	{ "grant", true }, { "grant_sha256", true }, { "taint", false },
	{ "untrusted", false }, { NULL, false },
};

static const struct field approval_fields[] = {
	{ "type", false }, { "session", false }, { "call", false },
	{ "decision", false }, { "answer", false }, { "by", true },
	{ "post", true }, { "reason", true }, { "outcome", false },
	{ NULL, false },
};

static const struct field result_fields[] = {
	{ "type", false }, { "session", false }, { "call", false },
	{ "decision", false }, { "status", false }, { "class", false },
	{ "untrusted", false }, { "truncated", false }, { "bytes", false },
	{ "sha256", false }, { "taint_after", false }, { NULL, false },
};

static const struct field recovery_fields[] = {
	{ "type", false }, { "torn_bytes", false }, { "torn_sha256", false },
	{ NULL, false },
};

static const struct field break_fields[] = {
	{ "type", false }, { "file", false }, { "line", false },
	{ "last_good", false }, { NULL, false },
};

static const struct field *event_fields[BX_EVENT_MAX] = {
	decision_fields, approval_fields, result_fields, recovery_fields,
	break_fields,
};

static const struct field allowed_fields[] = {
	{ "outcome", false }, { NULL, false },
};

static const struct field denied_fields[] = {
	{ "outcome", false }, { "reason", false }, { NULL, false },
};

const char *
bx_event_type_name(enum bx_event_type t)
{
	return t < BX_EVENT_MAX ? type_names[t] : "?";
}

const char *
bx_answer_name(enum bx_answer a)
{
	return a < BX_ANSWER_MAX ? answer_names[a] : "?";
}

const char *
bx_result_status_name(enum bx_result_status s)
{
	return s < BX_STATUS_MAX ? status_names[s] : "?";
}

static int
name_index(const char *s, const char **names, int count)
{
	int i;

	for (i = 0; i < count; i++)
		if (strcmp(s, names[i]) == 0)
			return i;
	return -1;
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

/* Sets key to v, stealing v; a NULL v (jansson out of memory) fails. */
static int
put(json_t *obj, const char *key, json_t *v, struct bx_error *err)
{
	if (v == NULL || json_object_set_new(obj, key, v) != 0)
		return bx_fail(err, "audit record: cannot encode \"%s\" "
		    "(out of memory or not UTF-8)", key);
	return 0;
}

static int
put_u64(json_t *obj, const char *key, uint64_t v, struct bx_error *err)
{
	if (v > BX_AUDIT_U64_MAX)
		return bx_fail(err, "audit record: \"%s\" is above %lld", key,
		    (long long)BX_AUDIT_U64_MAX);
	return put(obj, key, json_integer((json_int_t)v), err);
}

static int
put_hash(json_t *obj, const char *key, const struct bx_hash *h,
    struct bx_error *err)
{
	char hex[BX_HASH_HEX_LEN + 1];

	bx_hash_format(h, hex);
	return put(obj, key, json_string(hex), err);
}

static int
put_str(json_t *obj, const char *key, const char *s, struct bx_error *err)
{
	if (s == NULL)
		return bx_fail(err, "audit record: \"%s\" is missing", key);
	return put(obj, key, json_string(s), err);
}

static int
put_opt_str(json_t *obj, const char *key, const char *s, struct bx_error *err)
{
	return put(obj, key, s == NULL ? json_null() : json_string(s), err);
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
	json_t *v;

	if (o->kind >= BX_OUTCOME_MAX ||
	    (o->kind == BX_OUTCOME_DENIED && o->reason >= BX_DENY_MAX))
		return bx_fail(err, "audit record: \"outcome\" is not a "
		    "decision record");
	if ((v = json_object()) == NULL)
		return bx_fail(err, "audit record: out of memory");
	if (put(v, "outcome", json_string(bx_outcome_name(o->kind)),
	    err) == -1 ||
	    (o->kind == BX_OUTCOME_DENIED && put(v, "reason",
	    json_string(bx_deny_name(o->reason)), err) == -1)) {
		json_decref(v);
		return -1;
	}
	return put(obj, "outcome", v, err);
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
	if ((d->has_grant_sha256 ?
	    put_hash(ev, "grant_sha256", &d->grant_sha256, err) :
	    put(ev, "grant_sha256", json_null(), err)) ||
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
	    put_u64(ev, "decision", a->decision, err) ||
	    put(ev, "answer", json_string(bx_answer_name(a->answer)), err) ||
	    put_opt_str(ev, "by", a->by, err) ||
	    put_opt_str(ev, "post", a->post, err) ||
	    put_opt_str(ev, "reason", a->reason, err) ||
	    put_outcome(ev, &a->outcome, err))
		return -1;
	return 0;
}

static int
encode_result(json_t *ev, const struct bx_ev_result *r, struct bx_error *err)
{
	if (r->status >= BX_STATUS_MAX)
		return bx_fail(err, "audit record: \"status\" is not one of "
		    "result, failed");
	if (put_id(ev, "session", r->session, bx_session_id_check, err) ||
	    put_id(ev, "call", r->call, bx_call_id_check, err) ||
	    put_u64(ev, "decision", r->decision, err) ||
	    put(ev, "status", json_string(bx_result_status_name(r->status)),
	    err) ||
	    put_class(ev, "class", r->class, err) ||
	    put(ev, "untrusted", json_boolean(r->untrusted), err) ||
	    put(ev, "truncated", json_boolean(r->truncated), err) ||
	    put_u64(ev, "bytes", r->bytes, err) ||
	    put_hash(ev, "sha256", &r->sha256, err) ||
	    put_class(ev, "taint_after", r->taint_after, err))
		return -1;
	return 0;
}

static int
encode_event(json_t *ev, const struct bx_audit_event *e, struct bx_error *err)
{
	if (e->type >= BX_EVENT_MAX)
		return bx_fail(err, "audit record: unknown event type");
	if (put(ev, "type", json_string(type_names[e->type]), err))
		return -1;
	switch (e->type) {
	case BX_EVENT_DECISION:
		return encode_decision(ev, &e->decision, err);
	case BX_EVENT_APPROVAL:
		return encode_approval(ev, &e->approval, err);
	case BX_EVENT_RESULT:
		return encode_result(ev, &e->result, err);
	case BX_EVENT_RECOVERY:
		if (put_u64(ev, "torn_bytes", e->recovery.torn_bytes, err) ||
		    put_hash(ev, "torn_sha256", &e->recovery.torn_sha256, err))
			return -1;
		return 0;
	default:
		if (e->accepted_break.file == NULL)
			return bx_fail(err, "audit record: \"file\" is missing");
		if (file_name_check(e->accepted_break.file, err) == -1)
			return bx_error_prefix(err, "audit record: \"file\"");
		if (put_str(ev, "file", e->accepted_break.file, err) ||
		    put_u64(ev, "line", e->accepted_break.line, err) ||
		    put_hash(ev, "last_good", &e->accepted_break.last_good,
		    err))
			return -1;
		return 0;
	}
}

int
bx_audit_record_encode(const struct bx_audit_record *rec, char **ret_line,
    size_t *ret_len, struct bx_error *err)
{
	char tbuf[BX_TIME_LEN + 1];
	json_t *obj = NULL, *ev = NULL;
	char *line = NULL;
	size_t len;
	int rv = -1;

	if (rec->time < BX_TIME_MIN_MS || rec->time > BX_TIME_MAX_MS) {
		bx_fail(err, "audit record: \"time\" is out of range");
		goto out;
	}
	bx_time_format(rec->time, tbuf);
	if ((obj = json_object()) == NULL || (ev = json_object()) == NULL) {
		bx_fail(err, "audit record: out of memory");
		goto out;
	}
	if (put_u64(obj, "seq", rec->seq, err) ||
	    put(obj, "time", json_string(tbuf), err) ||
	    put_hash(obj, "prev", &rec->prev, err) ||
	    encode_event(ev, &rec->event, err))
		goto out;
	if (put(obj, "event", ev, err)) {
		ev = NULL;
		goto out;
	}
	ev = NULL;
	len = json_dumpb(obj, NULL, 0, JSON_COMPACT);
	if (len == 0 || (line = malloc(len + 1)) == NULL ||
	    json_dumpb(obj, line, len, JSON_COMPACT) != len) {
		bx_fail(err, "audit record: out of memory");
		goto out;
	}
	line[len] = '\0';
	*ret_line = line;
	*ret_len = len;
	line = NULL;
	rv = 0;
out:
	free(line);
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
	const char	 *where;	/* "the record", "the event", ... */
	struct bx_error	 *err;
};

static int
check_keys(json_t *obj, const struct field *fields, struct decoding *d)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach(obj, key, v) {
		for (i = 0; fields[i].key != NULL; i++)
			if (strcmp(key, fields[i].key) == 0)
				break;
		if (fields[i].key == NULL)
			return bx_fail(d->err, "audit record: unknown key "
			    "\"%s\" in %s", key, d->where);
	}
	for (i = 0; fields[i].key != NULL; i++)
		if (!fields[i].optional &&
		    json_object_get(obj, fields[i].key) == NULL)
			return bx_fail(d->err, "audit record: missing key "
			    "\"%s\" in %s", fields[i].key, d->where);
	return 0;
}

static int
wrong_type(struct decoding *d, const char *key, const char *want)
{
	return bx_fail(d->err, "audit record: \"%s\" in %s is not %s", key,
	    d->where, want);
}

static int
get_u64(json_t *obj, const char *key, uint64_t *ret, struct decoding *d)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return wrong_type(d, key, "an unsigned integer");
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

static int
get_bool(json_t *obj, const char *key, bool *ret, struct decoding *d)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_boolean(v))
		return wrong_type(d, key, "true or false");
	*ret = json_is_true(v);
	return 0;
}

static int
get_str(json_t *obj, const char *key, const char **ret, struct decoding *d)
{
	json_t *v = json_object_get(obj, key);

	if (!json_is_string(v))
		return wrong_type(d, key, "a string");
	*ret = json_string_value(v);
	return 0;
}

/* A string that is kept in the record's storage; NULL for null if opt. */
static int
keep_str(json_t *obj, const char *key, bool opt, const char **ret,
    struct decoding *d)
{
	json_t *v = json_object_get(obj, key);

	if (opt && (v == NULL || json_is_null(v))) {
		*ret = NULL;
		return 0;
	}
	if (!json_is_string(v))
		return wrong_type(d, key, opt ? "a string or null" :
		    "a string");
	*ret = json_string_value(v);
	d->slots[d->nslots++] = ret;
	return 0;
}

/* A value checked by a types.h parser or check function. */
static int
checked(int rv, const char *key, struct decoding *d)
{
	if (rv == -1)
		return bx_error_prefix(d->err, "audit record: \"%s\" in %s",
		    key, d->where);
	return 0;
}

static int
get_id(json_t *obj, const char *key, int (*check)(const char *,
    struct bx_error *), const char **ret, struct decoding *d)
{
	if (keep_str(obj, key, false, ret, d) == -1)
		return -1;
	return checked(check(*ret, d->err), key, d);
}

static int
get_hash(json_t *obj, const char *key, struct bx_hash *ret,
    struct decoding *d)
{
	const char *s;

	if (get_str(obj, key, &s, d) == -1)
		return -1;
	return checked(bx_hash_parse(s, ret, d->err), key, d);
}

static int
get_class(json_t *obj, const char *key, enum bx_class *ret,
    struct decoding *d)
{
	const char *s;

	if (get_str(obj, key, &s, d) == -1)
		return -1;
	return checked(bx_class_parse(s, ret, d->err), key, d);
}

static int
get_name(json_t *obj, const char *key, const char **names, int count,
    const char *what, int *ret, struct decoding *d)
{
	const char *s;
	int i;

	if (get_str(obj, key, &s, d) == -1)
		return -1;
	if ((i = name_index(s, names, count)) < 0)
		return bx_fail(d->err, "audit record: \"%s\" in %s is not %s",
		    key, d->where, what);
	*ret = i;
	return 0;
}

static int
get_outcome(json_t *obj, struct bx_outcome *ret, struct decoding *d)
{
	json_t *v = json_object_get(obj, "outcome");
	const char *where = d->where, *s;
	struct bx_outcome o = { 0 };
	enum bx_outcome_kind kind;
	int rv = -1;

	if (!json_is_object(v))
		return wrong_type(d, "outcome", "an object");
	d->where = "the outcome";
	if (get_str(v, "outcome", &s, d) == -1 ||
	    checked(bx_outcome_kind_parse(s, &kind, d->err), "outcome", d))
		goto out;
	o.kind = kind;
	if (check_keys(v, kind == BX_OUTCOME_DENIED ? denied_fields :
	    allowed_fields, d) == -1)
		goto out;
	if (kind == BX_OUTCOME_DENIED && (get_str(v, "reason", &s, d) == -1 ||
	    checked(bx_deny_parse(s, &o.reason, d->err), "reason", d)))
		goto out;
	*ret = o;
	rv = 0;
out:
	d->where = where;
	return rv;
}

static int
decode_decision(json_t *ev, struct bx_ev_decision *x, struct decoding *d)
{
	json_t *h;

	if (get_id(ev, "session", bx_session_id_check, &x->session, d) ||
	    get_id(ev, "call", bx_call_id_check, &x->call, d) ||
	    keep_str(ev, "tool", false, &x->tool, d) ||
	    keep_str(ev, "arguments", false, &x->arguments, d) ||
	    get_outcome(ev, &x->outcome, d) ||
	    keep_str(ev, "grant", true, &x->grant, d) ||
	    (x->grant != NULL &&
	    checked(bx_grant_id_check(x->grant, d->err), "grant", d)) ||
	    get_class(ev, "taint", &x->taint, d) ||
	    get_bool(ev, "untrusted", &x->untrusted, d))
		return -1;
	h = json_object_get(ev, "grant_sha256");
	x->has_grant_sha256 = h != NULL && !json_is_null(h);
	if (x->has_grant_sha256 &&
	    get_hash(ev, "grant_sha256", &x->grant_sha256, d) == -1)
		return -1;
	return 0;
}

static int
decode_approval(json_t *ev, struct bx_ev_approval *x, struct decoding *d)
{
	int answer;

	if (get_id(ev, "session", bx_session_id_check, &x->session, d) ||
	    get_id(ev, "call", bx_call_id_check, &x->call, d) ||
	    get_u64(ev, "decision", &x->decision, d) ||
	    get_name(ev, "answer", answer_names, BX_ANSWER_MAX,
	    "approved, refused or expired", &answer, d) ||
	    keep_str(ev, "by", true, &x->by, d) ||
	    keep_str(ev, "post", true, &x->post, d) ||
	    keep_str(ev, "reason", true, &x->reason, d) ||
	    get_outcome(ev, &x->outcome, d))
		return -1;
	x->answer = (enum bx_answer)answer;
	return 0;
}

static int
decode_result(json_t *ev, struct bx_ev_result *x, struct decoding *d)
{
	int status;

	if (get_id(ev, "session", bx_session_id_check, &x->session, d) ||
	    get_id(ev, "call", bx_call_id_check, &x->call, d) ||
	    get_u64(ev, "decision", &x->decision, d) ||
	    get_name(ev, "status", status_names, BX_STATUS_MAX,
	    "result or failed", &status, d) ||
	    get_class(ev, "class", &x->class, d) ||
	    get_bool(ev, "untrusted", &x->untrusted, d) ||
	    get_bool(ev, "truncated", &x->truncated, d) ||
	    get_u64(ev, "bytes", &x->bytes, d) ||
	    get_hash(ev, "sha256", &x->sha256, d) ||
	    get_class(ev, "taint_after", &x->taint_after, d))
		return -1;
	x->status = (enum bx_result_status)status;
	return 0;
}

static int
decode_event(json_t *ev, struct bx_audit_event *x, struct decoding *d)
{
	int type;

	if (!json_is_object(ev))
		return wrong_type(d, "event", "an object");
	d->where = "the event";
	if (json_object_get(ev, "type") == NULL)
		return bx_fail(d->err, "audit record: missing key \"type\" in "
		    "the event");
	if (get_name(ev, "type", type_names, BX_EVENT_MAX, "an event type "
	    "(decision, approval, result, recovery, accepted_break)", &type,
	    d) == -1)
		return -1;
	x->type = (enum bx_event_type)type;
	if (check_keys(ev, event_fields[type], d) == -1)
		return -1;
	switch (x->type) {
	case BX_EVENT_DECISION:
		return decode_decision(ev, &x->decision, d);
	case BX_EVENT_APPROVAL:
		return decode_approval(ev, &x->approval, d);
	case BX_EVENT_RESULT:
		return decode_result(ev, &x->result, d);
	case BX_EVENT_RECOVERY:
		if (get_u64(ev, "torn_bytes", &x->recovery.torn_bytes, d) ||
		    get_hash(ev, "torn_sha256", &x->recovery.torn_sha256, d))
			return -1;
		return 0;
	default:
		if (keep_str(ev, "file", false, &x->accepted_break.file, d) ||
		    checked(file_name_check(x->accepted_break.file, d->err),
		    "file", d) ||
		    get_u64(ev, "line", &x->accepted_break.line, d) ||
		    get_hash(ev, "last_good", &x->accepted_break.last_good, d))
			return -1;
		return 0;
	}
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
		return bx_fail(d->err, "audit record: out of memory");
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
	struct decoding d = { .where = "the record", .err = err };
	struct bx_audit_record rec = { 0 };
	json_t *obj = NULL;
	const char *s;
	int rv = -1;

	if (len > BX_AUDIT_LINE_MAX)
		return bx_fail(err, "audit record: the line is longer than "
		    "%u bytes", BX_AUDIT_LINE_MAX);
	if (bx_json_parse(line, len, &obj, err) == -1)
		return bx_error_prefix(err, "audit record");
	if (check_keys(obj, record_fields, &d) == -1 ||
	    get_u64(obj, "seq", &rec.seq, &d) == -1 ||
	    get_str(obj, "time", &s, &d) == -1 ||
	    checked(bx_time_parse(s, &rec.time, err), "time", &d) ||
	    get_hash(obj, "prev", &rec.prev, &d) == -1 ||
	    decode_event(json_object_get(obj, "event"), &rec.event, &d) == -1)
		goto out;
	if (take_strings(&rec, &d) == -1)
		goto out;
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
