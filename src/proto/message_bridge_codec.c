/*
 * message_bridge_codec.c: approvals_wait and approval_changes on the wire
 * (message_bridge_codec.h). An approval_changes' items are approval_list's
 * PendingApproval, read and written by the same functions
 * (message_read.c, message_write.c).
 */
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "proto/message_bridge_codec.h"
#include "proto/message_names.h"
#include "proto/message_read.h"
#include "proto/message_write.h"

static const char *const wait_fields[] = {
	"kind", "known", "timeout_ms", NULL
};

int
bx_msgd_approvals_wait(const json_t *o, struct bx_msg *m,
    struct bx_error *err)
{
	struct bx_approvals_wait *w = &m->approvals_wait;
	json_t *known, *v;
	size_t i, n;

	if (bx_json_check_fields(o, wait_fields, err) == -1 ||
	    bx_json_i64(o, "timeout_ms", &w->timeout_ms, err) == -1)
		return -1;
	if (w->timeout_ms < 0 || w->timeout_ms > BX_WAIT_MAX_MS)
		return bx_fail(err, "field \"timeout_ms\": must be 0 to %d",
		    BX_WAIT_MAX_MS);
	if (bx_json_array(o, "known", &known, err) == -1)
		return -1;
	if ((n = json_array_size(known)) == 0)
		return 0;
	if (n > BX_WAIT_KNOWN_MAX)
		return bx_fail(err, "field \"known\": at most %d approvals, "
		    "not %zu", BX_WAIT_KNOWN_MAX, n);
	if ((w->known = calloc(n, sizeof(*w->known))) == NULL)
		return bx_fail(err, "field \"known\": out of memory");
	w->nknown = n;
	for (i = 0; i < n; i++) {
		v = json_array_get(known, i);
		if (!json_is_integer(v) || json_integer_value(v) < 0)
			return bx_fail(err, "field \"known\" [%zu]: expected "
			    "a non-negative integer", i);
		w->known[i] = (uint64_t)json_integer_value(v);
	}
	return 0;
}

int
bx_msge_approvals_wait(const struct bx_msg *m, json_t *o,
    struct bx_error *err)
{
	const struct bx_approvals_wait *w = &m->approvals_wait;
	json_t *a = json_array();
	size_t i;

	if (bx_json_set(o, "known", a, err) == -1)
		return -1;
	for (i = 0; i < w->nknown; i++)
		if (bx_msge_append(a, bx_json_u64_new(w->known[i]), "known", i,
		    err) == -1)
			return -1;
	return bx_json_set(o, "timeout_ms", json_integer(w->timeout_ms), err);
}

static const char *const ended_fields[] = {
	"approval", "end", "by", "post", "outcome", NULL
};

static int
decode_end(const json_t *o, struct bx_ended_approval *e, struct bx_error *err)
{
	const char *s;
	int i;

	if (bx_json_string(o, "end", &s, err) == -1)
		return -1;
	for (i = 0; i < BX_END_MAX; i++)
		if (strcmp(s, bx_end_name((enum bx_end)i)) == 0) {
			e->end = (enum bx_end)i;
			return 0;
		}
	return bx_fail(err, "field \"end\": unknown value \"%s\"", s);
}

static int
decode_ended(const json_t *o, struct bx_ended_approval *e,
    struct bx_error *err)
{
	const json_t *outcome;

	if (!json_is_object(o))
		return bx_fail(err, "expected an object");
	if (bx_json_check_fields(o, ended_fields, err) == -1 ||
	    bx_json_u64(o, "approval", &e->approval, err) == -1 ||
	    decode_end(o, e, err) == -1 ||
	    bx_msgd_by_post(o, &e->by, &e->post, err) == -1)
		return -1;
	outcome = json_object_get(o, "outcome");
	if (outcome == NULL || json_is_null(outcome))
		return 0;
	e->has_outcome = true;
	return bx_json_outcome(o, "outcome", &e->outcome, err);
}

static const char *const changes_fields[] = {
	"kind", "items", "ended", NULL
};

int
bx_msgd_approval_changes(const json_t *o, struct bx_msg *m,
    struct bx_error *err)
{
	struct bx_approval_changes *c = &m->approval_changes;
	json_t *ended;
	size_t i, n;

	if (bx_json_check_fields(o, changes_fields, err) == -1 ||
	    bx_msgd_pending(o, "items", &c->items, &c->nitems, err) == -1 ||
	    bx_json_array(o, "ended", &ended, err) == -1)
		return -1;
	if ((n = json_array_size(ended)) == 0)
		return 0;
	if ((c->ended = calloc(n, sizeof(*c->ended))) == NULL)
		return bx_fail(err, "field \"ended\": out of memory");
	c->nended = n;
	for (i = 0; i < n; i++)
		if (decode_ended(json_array_get(ended, i), &c->ended[i],
		    err) == -1)
			return bx_error_prefix(err, "field \"ended\" [%zu]", i);
	return 0;
}

static json_t *
ended_new(const struct bx_ended_approval *e, struct bx_error *err)
{
	json_t *o = json_object();

	if (o == NULL) {
		bx_fail(err, "out of memory");
		return NULL;
	}
	if (bx_json_set(o, "approval", bx_json_u64_new(e->approval),
	    err) == -1 ||
	    bx_json_set(o, "end", bx_msge_name(bx_end_name(e->end)),
	    err) == -1 ||
	    bx_msge_by_post(o, e->by, e->post, err) == -1 ||
	    bx_json_set(o, "outcome", e->has_outcome ?
	    bx_json_outcome_new(&e->outcome) : json_null(), err) == -1) {
		json_decref(o);
		return NULL;
	}
	return o;
}

int
bx_msge_approval_changes(const struct bx_msg *m, json_t *o,
    struct bx_error *err)
{
	const struct bx_approval_changes *c = &m->approval_changes;
	json_t *a;
	size_t i;

	if (bx_msge_pending(o, "items", c->items, c->nitems, err) == -1 ||
	    bx_json_set(o, "ended", a = json_array(), err) == -1)
		return -1;
	for (i = 0; i < c->nended; i++)
		if (bx_msge_append(a, ended_new(&c->ended[i], err), "ended", i,
		    err) == -1)
			return -1;
	return 0;
}
