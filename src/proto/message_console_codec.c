/*
 * message_console_codec.c: the owner's console's kinds on the wire
 * (docs/protocol.md): decoding, strict as every kind's (each key checked
 * against its list, each error naming the key), and encoding, in the
 * order protocol.md lists the fields, every field present, null where
 * absent. The fieldless kinds (sessions, status, list_grants) use the
 * codec's own empty decoder and encoder.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "proto/message_console_codec.h"
#include "proto/message_read.h"
#include "proto/message_write.h"

static const char *const modes[] = { "auto", "ask", "deny", NULL };
static const char *const verdicts[] = {
	"matched", "outranked", "expired", "taint_too_high", "not_covered",
	NULL
};

/* Calls fn on each element of the array at key (n of them at *ret). */
static int
each(const json_t *o, const char *key, size_t size, void **ret, size_t *ret_n,
    int (*fn)(const json_t *, void *, struct bx_error *),
    struct bx_error *err)
{
	json_t *a, *v;
	size_t i, n;

	if (bx_json_array(o, key, &a, err) == -1)
		return -1;
	if ((n = json_array_size(a)) == 0)
		return 0;
	if ((*ret = calloc(n, size)) == NULL)
		return bx_fail(err, "field \"%s\": out of memory", key);
	*ret_n = n;
	for (i = 0; i < n; i++) {
		v = json_array_get(a, i);
		if (!json_is_object(v))
			return bx_fail(err, "field \"%s\" [%zu]: expected an "
			    "object", key, i);
		if (fn(v, (char *)*ret + i * size, err) == -1)
			return bx_error_prefix(err, "field \"%s\" [%zu]", key,
			    i);
	}
	return 0;
}

static const char *const session_fields[] = {
	"session", "taint", "untrusted", "calls", "last_call", NULL
};

static int
session(const json_t *o, void *ret, struct bx_error *err)
{
	struct bx_session_info *s = ret;
	json_t *v;

	if (bx_json_check_fields(o, session_fields, err) == -1 ||
	    bx_msgd_id(o, "session", bx_session_id_check, &s->session,
	    err) == -1 ||
	    bx_json_class(o, "taint", &s->taint, err) == -1 ||
	    bx_json_bool(o, "untrusted", &s->untrusted, err) == -1 ||
	    bx_json_u64(o, "calls", &s->calls, err) == -1)
		return -1;
	/* Optional: absent or null is no call yet. */
	v = json_object_get(o, "last_call");
	if (v == NULL || json_is_null(v))
		return 0;
	s->has_last_call = true;
	return bx_json_time(o, "last_call", &s->last_call, err);
}

static const char *const session_list_fields[] = {
	"kind", "total", "items", NULL
};

int
bx_msgd_session_list(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_session_list *l = &m->session_list;

	if (bx_json_check_fields(o, session_list_fields, err) == -1 ||
	    bx_json_u64(o, "total", &l->total, err) == -1)
		return -1;
	return each(o, "items", sizeof(*l->items), (void **)&l->items,
	    &l->nitems, session, err);
}

static const char *const explain_fields[] = {
	"kind", "session", "tool", "arguments", NULL
};

int
bx_msgd_explain(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_explain *x = &m->explain;

	if (bx_json_check_fields(o, explain_fields, err) == -1 ||
	    bx_msgd_id(o, "session", bx_session_id_check, &x->session,
	    err) == -1 ||
	    bx_msgd_string(o, "tool", &x->tool, err) == -1)
		return -1;
	return bx_msgd_string(o, "arguments", &x->arguments, err);
}

static const char *const candidate_fields[] = {
	"grant", "mode", "verdict", "why", NULL
};

static int
candidate(const json_t *o, void *ret, struct bx_error *err)
{
	struct bx_candidate *c = ret;

	if (bx_json_check_fields(o, candidate_fields, err) == -1 ||
	    bx_msgd_id(o, "grant", bx_grant_id_check, &c->grant, err) == -1 ||
	    bx_msgd_one_of(o, "mode", modes, &c->mode, err) == -1 ||
	    bx_msgd_one_of(o, "verdict", verdicts, &c->verdict, err) == -1)
		return -1;
	return bx_msgd_string(o, "why", &c->why, err);
}

static const char *const grant_fields[] = {
	"id", "mode", "result_class", "untrusted", "matched_path", NULL
};

/* The matched grant: an object, or null (absent is null). */
static int
matched_grant(const json_t *o, struct bx_explanation *x, struct bx_error *err)
{
	struct bx_matched_grant *g = &x->grant;
	json_t *v = json_object_get(o, "grant");

	if (v == NULL || json_is_null(v))
		return 0;
	if (!json_is_object(v))
		return bx_fail(err, "field \"grant\": expected an object or "
		    "null");
	x->has_grant = true;
	if (bx_json_check_fields(v, grant_fields, err) == -1 ||
	    bx_msgd_id(v, "id", bx_grant_id_check, &g->id, err) == -1 ||
	    bx_msgd_one_of(v, "mode", modes, &g->mode, err) == -1 ||
	    bx_json_class(v, "result_class", &g->result_class, err) == -1 ||
	    bx_json_bool(v, "untrusted", &g->untrusted, err) == -1 ||
	    bx_msgd_string_or_null(v, "matched_path", &g->matched_path,
	    err) == -1)
		return bx_error_prefix(err, "field \"grant\"");
	return 0;
}

static const char *const explanation_fields[] = {
	"kind", "session", "taint", "untrusted", "now", "outcome", "detail",
	"grant", "candidates", "problems", NULL
};

int
bx_msgd_explanation(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_explanation *x = &m->explanation;

	if (bx_json_check_fields(o, explanation_fields, err) == -1 ||
	    bx_msgd_id(o, "session", bx_session_id_check, &x->session,
	    err) == -1 ||
	    bx_json_class(o, "taint", &x->taint, err) == -1 ||
	    bx_json_bool(o, "untrusted", &x->untrusted, err) == -1 ||
	    bx_json_time(o, "now", &x->now, err) == -1 ||
	    bx_json_outcome(o, "outcome", &x->outcome, err) == -1 ||
	    bx_msgd_string_or_null(o, "detail", &x->detail, err) == -1 ||
	    matched_grant(o, x, err) == -1 ||
	    each(o, "candidates", sizeof(*x->candidates),
	    (void **)&x->candidates, &x->ncandidates, candidate, err) == -1)
		return -1;
	return bx_msgd_problems(o, "problems", &x->problems, &x->nproblems,
	    err);
}

static const char *const broker_status_fields[] = {
	"kind", "version", "runtime", "started", "now", NULL
};

int
bx_msgd_broker_status(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	static const char *const runtimes[] = {
		"podman", "bwrap", "refuse", NULL
	};
	struct bx_broker_status *b = &m->broker_status;

	if (bx_json_check_fields(o, broker_status_fields, err) == -1 ||
	    bx_msgd_string(o, "version", &b->version, err) == -1 ||
	    bx_msgd_one_of(o, "runtime", runtimes, &b->runtime, err) == -1 ||
	    bx_json_time(o, "started", &b->started, err) == -1)
		return -1;
	return bx_json_time(o, "now", &b->now, err);
}

/* An array of strings at key into a new list. */
static int
strings(const json_t *o, const char *key, char ***ret, size_t *ret_n,
    struct bx_error *err)
{
	json_t *a;
	size_t i, n;

	if (bx_json_array(o, key, &a, err) == -1)
		return -1;
	if ((n = json_array_size(a)) == 0)
		return 0;
	if ((*ret = calloc(n, sizeof(**ret))) == NULL)
		return bx_fail(err, "field \"%s\": out of memory", key);
	*ret_n = n;
	for (i = 0; i < n; i++) {
		if (!json_is_string(json_array_get(a, i)))
			return bx_fail(err, "field \"%s\" [%zu]: expected a "
			    "string", key, i);
		if (((*ret)[i] = strdup(json_string_value(json_array_get(a,
		    i)))) == NULL)
			return bx_fail(err, "field \"%s\": out of memory", key);
	}
	return 0;
}

static const char *const grant_info_fields[] = {
	"id", "tool", "mode", "max_taint", "result_class", "untrusted",
	"expires", "paths", "hosts", NULL
};

static int
grant_info(const json_t *o, void *ret, struct bx_error *err)
{
	struct bx_grant_info *g = ret;

	if (bx_json_check_fields(o, grant_info_fields, err) == -1 ||
	    bx_msgd_id(o, "id", bx_grant_id_check, &g->id, err) == -1 ||
	    bx_msgd_string(o, "tool", &g->tool, err) == -1 ||
	    bx_msgd_one_of(o, "mode", modes, &g->mode, err) == -1 ||
	    bx_json_class(o, "max_taint", &g->max_taint, err) == -1 ||
	    bx_json_class(o, "result_class", &g->result_class, err) == -1 ||
	    bx_json_bool(o, "untrusted", &g->untrusted, err) == -1 ||
	    bx_json_time(o, "expires", &g->expires, err) == -1 ||
	    strings(o, "paths", &g->paths, &g->npaths, err) == -1)
		return -1;
	return strings(o, "hosts", &g->hosts, &g->nhosts, err);
}

static const char *const grant_list_fields[] = {
	"kind", "grants", "problems", NULL
};

int
bx_msgd_grant_list(const json_t *o, struct bx_msg *m, struct bx_error *err)
{
	struct bx_grant_list *l = &m->grant_list;

	if (bx_json_check_fields(o, grant_list_fields, err) == -1 ||
	    each(o, "grants", sizeof(*l->grants), (void **)&l->grants,
	    &l->ngrants, grant_info, err) == -1)
		return -1;
	return bx_msgd_problems(o, "problems", &l->problems, &l->nproblems,
	    err);
}

static json_t *
session_new(const struct bx_session_info *s, struct bx_error *err)
{
	json_t *o = json_object();

	if (o == NULL || bx_json_set(o, "session", json_string(s->session), err) == -1 ||
	    bx_json_set(o, "taint", bx_msge_name(bx_class_name(s->taint)), err) == -1 ||
	    bx_json_set(o, "untrusted", json_boolean(s->untrusted), err) == -1 ||
	    bx_json_set(o, "calls", bx_json_u64_new(s->calls), err) == -1 ||
	    bx_json_set(o, "last_call", s->has_last_call ?
	    bx_json_time_new(s->last_call) : json_null(), err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
bx_msge_session_list(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_session_list *l = &m->session_list;
	json_t *a;
	size_t i;

	if (bx_json_set(o, "total", bx_json_u64_new(l->total), err) == -1 ||
	    bx_json_set(o, "items", a = json_array(), err) == -1)
		return -1;
	for (i = 0; i < l->nitems; i++)
		if (bx_msge_append(a, session_new(&l->items[i], err), "items",
		    i, err) == -1)
			return -1;
	return 0;
}

int
bx_msge_explain(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_explain *x = &m->explain;

	if (bx_json_set(o, "session", json_string(x->session), err) == -1 ||
	    bx_json_set(o, "tool", json_string(x->tool), err) == -1)
		return -1;
	return bx_json_set(o, "arguments", json_string(x->arguments), err);
}

static json_t *
grant_new(const struct bx_explanation *x, struct bx_error *err)
{
	const struct bx_matched_grant *g = &x->grant;
	json_t *o;

	if (!x->has_grant)
		return json_null();
	if ((o = json_object()) == NULL ||
	    bx_json_set(o, "id", json_string(g->id), err) == -1 ||
	    bx_json_set(o, "mode", json_string(g->mode), err) == -1 ||
	    bx_json_set(o, "result_class", bx_msge_name(bx_class_name(
	    g->result_class)), err) == -1 ||
	    bx_json_set(o, "untrusted", json_boolean(g->untrusted), err) == -1 ||
	    bx_json_set(o, "matched_path", bx_json_string_new(g->matched_path),
	    err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

static json_t *
candidate_new(const struct bx_candidate *c, struct bx_error *err)
{
	json_t *o = json_object();

	if (o == NULL || bx_json_set(o, "grant", json_string(c->grant), err) == -1 ||
	    bx_json_set(o, "mode", json_string(c->mode), err) == -1 ||
	    bx_json_set(o, "verdict", json_string(c->verdict), err) == -1 ||
	    bx_json_set(o, "why", json_string(c->why), err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
bx_msge_explanation(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_explanation *x = &m->explanation;
	json_t *a;
	size_t i;

	if (bx_json_set(o, "session", json_string(x->session), err) == -1 ||
	    bx_json_set(o, "taint", bx_msge_name(bx_class_name(x->taint)), err) == -1 ||
	    bx_json_set(o, "untrusted", json_boolean(x->untrusted), err) == -1 ||
	    bx_json_set(o, "now", bx_json_time_new(x->now), err) == -1 ||
	    bx_json_set(o, "outcome", bx_json_outcome_new(&x->outcome), err) == -1 ||
	    bx_json_set(o, "detail", bx_json_string_new(x->detail), err) == -1 ||
	    bx_json_set(o, "grant", grant_new(x, err), err) == -1 ||
	    bx_json_set(o, "candidates", a = json_array(), err) == -1)
		return -1;
	for (i = 0; i < x->ncandidates; i++)
		if (bx_msge_append(a, candidate_new(&x->candidates[i], err),
		    "candidates", i, err) == -1)
			return -1;
	return bx_msge_problems(o, "problems", x->problems, x->nproblems,
	    err);
}

int
bx_msge_broker_status(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_broker_status *b = &m->broker_status;

	if (bx_json_set(o, "version", json_string(b->version), err) == -1 ||
	    bx_json_set(o, "runtime", json_string(b->runtime), err) == -1 ||
	    bx_json_set(o, "started", bx_json_time_new(b->started), err) == -1)
		return -1;
	return bx_json_set(o, "now", bx_json_time_new(b->now), err);
}

static json_t *
grant_info_new(const struct bx_grant_info *g, struct bx_error *err)
{
	json_t *o = json_object();

	if (o == NULL || bx_json_set(o, "id", json_string(g->id), err) == -1 ||
	    bx_json_set(o, "tool", json_string(g->tool), err) == -1 ||
	    bx_json_set(o, "mode", json_string(g->mode), err) == -1 ||
	    bx_json_set(o, "max_taint", bx_msge_name(bx_class_name(g->max_taint)),
	    err) == -1 ||
	    bx_json_set(o, "result_class", bx_msge_name(bx_class_name(
	    g->result_class)), err) == -1 ||
	    bx_json_set(o, "untrusted", json_boolean(g->untrusted), err) == -1 ||
	    bx_json_set(o, "expires", bx_json_time_new(g->expires), err) == -1 ||
	    bx_msge_strings(o, "paths", g->paths, g->npaths, err) == -1 ||
	    bx_msge_strings(o, "hosts", g->hosts, g->nhosts, err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
bx_msge_grant_list(const struct bx_msg *m, json_t *o, struct bx_error *err)
{
	const struct bx_grant_list *l = &m->grant_list;
	json_t *a = json_array();
	size_t i;

	if (bx_json_set(o, "grants", a, err) == -1)
		return -1;
	for (i = 0; i < l->ngrants; i++)
		if (bx_msge_append(a, grant_info_new(&l->grants[i], err),
		    "grants", i, err) == -1)
			return -1;
	return bx_msge_problems(o, "problems", l->problems, l->nproblems,
	    err);
}
