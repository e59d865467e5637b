/*
 * message_write.c: writing one field of a frame's object (message_write.h),
 * the encoders' building blocks (message_encode.c,
 * message_console_codec.c).
 */
#include "proto/json.h"
#include "proto/message_write.h"

json_t *
bx_msge_name(const char *name)
{
	return name[0] == '?' ? NULL : json_string(name);
}

static json_t *
problem_new(const struct bx_grant_problem *p, struct bx_error *err)
{
	json_t *o = json_object();

	if (o == NULL) {
		bx_fail(err, "out of memory");
		return NULL;
	}
	if (bx_json_set(o, "file", json_string(p->file), err) == -1 ||
	    bx_json_set(o, "line", p->has_line ? bx_json_u64_new(p->line) :
	    json_null(), err) == -1 ||
	    bx_json_set(o, "problem", json_string(p->problem), err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
bx_msge_append(json_t *a, json_t *v, const char *key, size_t i,
    struct bx_error *err)
{
	if (v == NULL)
		return bx_error_prefix(err, "field \"%s\" [%zu]", key, i);
	if (json_array_append_new(a, v) == -1)
		return bx_fail(err, "field \"%s\": out of memory", key);
	return 0;
}

int
bx_msge_problems(json_t *o, const char *key, const struct bx_grant_problem *p,
    size_t n, struct bx_error *err)
{
	json_t *a = json_array();
	size_t i;

	if (bx_json_set(o, key, a, err) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (bx_msge_append(a, problem_new(&p[i], err), key, i,
		    err) == -1)
			return -1;
	return 0;
}

int
bx_msge_strings(json_t *o, const char *key, char *const *list, size_t n,
    struct bx_error *err)
{
	json_t *a = json_array(), *v;
	size_t i;

	if (bx_json_set(o, key, a, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		if ((v = json_string(list[i])) == NULL)
			return bx_fail(err, "field \"%s\" [%zu]: not UTF-8",
			    key, i);
		if (bx_msge_append(a, v, key, i, err) == -1)
			return -1;
	}
	return 0;
}

static json_t *
pending_new(const struct bx_pending_approval *p, struct bx_error *err)
{
	json_t *o = json_object();

	if (o == NULL) {
		bx_fail(err, "out of memory");
		return NULL;
	}
	if (bx_json_set(o, "approval", bx_json_u64_new(p->approval),
	    err) == -1 ||
	    bx_json_set(o, "session", json_string(p->session), err) == -1 ||
	    bx_json_set(o, "call", json_string(p->call), err) == -1 ||
	    bx_json_set(o, "tool", json_string(p->tool), err) == -1 ||
	    bx_json_set(o, "arguments", json_string(p->arguments), err) == -1 ||
	    bx_json_set(o, "grant", json_string(p->grant), err) == -1 ||
	    bx_json_set(o, "taint", bx_msge_name(bx_class_name(p->taint)),
	    err) == -1 ||
	    bx_json_set(o, "created", bx_json_time_new(p->created), err) == -1 ||
	    bx_json_set(o, "expires", bx_json_time_new(p->expires), err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
bx_msge_pending(json_t *o, const char *key,
    const struct bx_pending_approval *items, size_t n, struct bx_error *err)
{
	json_t *a = json_array();
	size_t i;

	if (bx_json_set(o, key, a, err) == -1)
		return -1;
	for (i = 0; i < n; i++)
		if (bx_msge_append(a, pending_new(&items[i], err), key, i,
		    err) == -1)
			return -1;
	return 0;
}

int
bx_msge_by_post(json_t *o, const char *by, const char *post,
    struct bx_error *err)
{
	if (bx_json_set(o, "by", bx_json_string_new(by), err) == -1)
		return -1;
	return bx_json_set(o, "post", bx_json_string_new(post), err);
}
