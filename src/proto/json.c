/*
 * json.c: the strict JSON helpers of json.h. Every error names the key it
 * is about, so a peer (or the owner reading brokerd's log) knows which field
 * of which frame was wrong.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"

int
bx_json_depth_check(const char *buf, size_t len, int max,
    struct bx_error *err)
{
	bool in_string = false, escaped = false;
	int depth = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = buf[i];

		if (in_string) {
			if (escaped)
				escaped = false;
			else if (c == '\\')
				escaped = true;
			else if (c == '"')
				in_string = false;
			continue;
		}
		if (c == '"')
			in_string = true;
		else if (c == '{' || c == '[') {
			if (++depth > max)
				return bx_fail(err, "JSON nested deeper than "
				    "%d levels at byte %zu", max, i + 1);
		} else if (c == '}' || c == ']')
			depth--;
	}
	return 0;
}

int
bx_json_parse(const char *buf, size_t len, json_t **ret, struct bx_error *err)
{
	json_error_t jerr;
	json_t *v;

	if (bx_json_depth_check(buf, len, BX_JSON_MAX_DEPTH, err) == -1)
		return -1;
	v = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	if (v == NULL)
		return bx_fail(err, "not valid JSON: %s (at byte %d)",
		    jerr.text, jerr.position);
	if (!json_is_object(v)) {
		json_decref(v);
		return bx_fail(err, "not a JSON object");
	}
	*ret = v;
	return 0;
}

int
bx_json_check_fields(const json_t *obj, const char *const *fields,
    struct bx_error *err)
{
	const char *key;
	json_t *v;
	size_t i;

	json_object_foreach((json_t *)obj, key, v) {
		for (i = 0; fields[i] != NULL; i++)
			if (strcmp(key, fields[i]) == 0)
				break;
		if (fields[i] == NULL)
			return bx_fail(err, "unknown field \"%s\"", key);
	}
	return 0;
}

/* The value at key, or an error naming the missing key. */
static json_t *
field(const json_t *obj, const char *key, struct bx_error *err)
{
	json_t *v = json_object_get(obj, key);

	if (v == NULL)
		bx_fail(err, "missing field \"%s\"", key);
	return v;
}

static int
wrong(const char *key, const char *expected, struct bx_error *err)
{
	return bx_fail(err, "field \"%s\": expected %s", key, expected);
}

int
bx_json_string(const json_t *obj, const char *key, const char **ret,
    struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_string(v))
		return wrong(key, "a string", err);
	*ret = json_string_value(v);
	return 0;
}

/* Whether an optional field is absent or null, the same value (Option). */
static bool
absent_or_null(const json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return v == NULL || json_is_null(v);
}

int
bx_json_string_or_null(const json_t *obj, const char *key, const char **ret,
    struct bx_error *err)
{
	json_t *v;

	if (absent_or_null(obj, key)) {
		*ret = NULL;
		return 0;
	}
	v = json_object_get(obj, key);
	if (!json_is_string(v))
		return wrong(key, "a string or null", err);
	*ret = json_string_value(v);
	return 0;
}

int
bx_json_u64_or_null(const json_t *obj, const char *key, bool *ret_has,
    uint64_t *ret, struct bx_error *err)
{
	if (absent_or_null(obj, key)) {
		*ret_has = false;
		return 0;
	}
	if (bx_json_u64(obj, key, ret, err) == -1)
		return -1;
	*ret_has = true;
	return 0;
}

int
bx_json_hash_or_null(const json_t *obj, const char *key, bool *ret_has,
    struct bx_hash *ret, struct bx_error *err)
{
	if (absent_or_null(obj, key)) {
		*ret_has = false;
		return 0;
	}
	if (bx_json_hash(obj, key, ret, err) == -1)
		return -1;
	*ret_has = true;
	return 0;
}

int
bx_json_u64(const json_t *obj, const char *key, uint64_t *ret,
    struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_integer(v) || json_integer_value(v) < 0)
		return wrong(key, "a non-negative integer", err);
	*ret = (uint64_t)json_integer_value(v);
	return 0;
}

int
bx_json_i64(const json_t *obj, const char *key, int64_t *ret,
    struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_integer(v))
		return wrong(key, "an integer", err);
	*ret = json_integer_value(v);
	return 0;
}

int
bx_json_bool(const json_t *obj, const char *key, bool *ret,
    struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_boolean(v))
		return wrong(key, "true or false", err);
	*ret = json_is_true(v);
	return 0;
}

/* A string field, with "expected <what>" when it is not one. */
static int
string_as(const json_t *obj, const char *key, const char *what,
    const char **ret, struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_string(v))
		return wrong(key, what, err);
	*ret = json_string_value(v);
	return 0;
}

int
bx_json_time(const json_t *obj, const char *key, int64_t *ret,
    struct bx_error *err)
{
	const char *s;

	if (string_as(obj, key, "a timestamp string", &s, err) == -1)
		return -1;
	if (bx_time_parse(s, ret, err) == -1)
		return bx_error_prefix(err, "field \"%s\"", key);
	return 0;
}

int
bx_json_hash(const json_t *obj, const char *key, struct bx_hash *ret,
    struct bx_error *err)
{
	const char *s;

	if (string_as(obj, key, "a hash string", &s, err) == -1)
		return -1;
	if (bx_hash_parse(s, ret, err) == -1)
		return bx_error_prefix(err, "field \"%s\"", key);
	return 0;
}

int
bx_json_class(const json_t *obj, const char *key, enum bx_class *ret,
    struct bx_error *err)
{
	const char *s;

	if (string_as(obj, key, "a data class string", &s, err) == -1)
		return -1;
	if (bx_class_parse(s, ret, err) == -1)
		return bx_error_prefix(err, "field \"%s\"", key);
	return 0;
}

int
bx_json_deny(const json_t *obj, const char *key, enum bx_deny *ret,
    struct bx_error *err)
{
	const char *s;

	if (string_as(obj, key, "a deny reason string", &s, err) == -1)
		return -1;
	if (bx_deny_parse(s, ret, err) == -1)
		return bx_error_prefix(err, "field \"%s\"", key);
	return 0;
}

static const char *const outcome_fields[] = { "outcome", NULL };
static const char *const denied_fields[] = { "outcome", "reason", NULL };

int
bx_json_outcome(const json_t *obj, const char *key, struct bx_outcome *ret,
    struct bx_error *err)
{
	struct bx_outcome o = { 0 };
	const char *s;
	json_t *v;

	if (bx_json_object(obj, key, &v, err) == -1)
		return -1;
	if (bx_json_string(v, "outcome", &s, err) == -1 ||
	    bx_outcome_kind_parse(s, &o.kind, err) == -1)
		goto fail;
	if (o.kind == BX_OUTCOME_DENIED) {
		if (bx_json_check_fields(v, denied_fields, err) == -1 ||
		    bx_json_deny(v, "reason", &o.reason, err) == -1)
			goto fail;
	} else if (bx_json_check_fields(v, outcome_fields, err) == -1)
		goto fail;
	*ret = o;
	return 0;
fail:
	return bx_error_prefix(err, "field \"%s\"", key);
}

int
bx_json_object(const json_t *obj, const char *key, json_t **ret,
    struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_object(v))
		return wrong(key, "an object", err);
	*ret = v;
	return 0;
}

int
bx_json_array(const json_t *obj, const char *key, json_t **ret,
    struct bx_error *err)
{
	json_t *v;

	if ((v = field(obj, key, err)) == NULL)
		return -1;
	if (!json_is_array(v))
		return wrong(key, "an array", err);
	*ret = v;
	return 0;
}

json_t *
bx_json_string_new(const char *s)
{
	return s == NULL ? json_null() : json_string(s);
}

json_t *
bx_json_u64_new(uint64_t v)
{
	if (v > INT64_MAX)
		return NULL;
	return json_integer((json_int_t)v);
}

json_t *
bx_json_time_new(int64_t ms)
{
	char buf[BX_TIME_LEN + 1];

	if (ms < BX_TIME_MIN_MS || ms > BX_TIME_MAX_MS)
		return NULL;
	bx_time_format(ms, buf);
	return json_string(buf);
}

json_t *
bx_json_hash_new(const struct bx_hash *h)
{
	char buf[BX_HASH_HEX_LEN + 1];

	bx_hash_format(h, buf);
	return json_string(buf);
}

json_t *
bx_json_outcome_new(const struct bx_outcome *o)
{
	json_t *obj;

	if (o->kind >= BX_OUTCOME_MAX ||
	    (o->kind == BX_OUTCOME_DENIED && o->reason >= BX_DENY_MAX))
		return NULL;
	if ((obj = json_object()) == NULL)
		return NULL;
	if (json_object_set_new(obj, "outcome",
	    json_string(bx_outcome_name(o->kind))) == -1)
		goto fail;
	if (o->kind == BX_OUTCOME_DENIED && json_object_set_new(obj, "reason",
	    json_string(bx_deny_name(o->reason))) == -1)
		goto fail;
	return obj;
fail:
	json_decref(obj);
	return NULL;
}

int
bx_json_set(json_t *obj, const char *key, json_t *value, struct bx_error *err)
{
	if (value == NULL)
		return bx_fail(err, "field \"%s\": cannot be encoded (absent, not "
		    "UTF-8, out of range, or out of memory)", key);
	if (json_object_set_new(obj, key, value) == -1)
		return bx_fail(err, "field \"%s\": cannot be encoded "
		    "(out of memory)", key);
	return 0;
}

/*
 * Where json_dump_callback writes a line: one buffer that doubles as it
 * fills. json_dumps would grow a buffer of its own from 16 bytes and then
 * copy it, several allocations for a record of a few hundred bytes.
 */
struct line_buf {
	char	*lb_buf;
	size_t	 lb_len;
	size_t	 lb_cap;
};

/* Grows b to hold want bytes; -1 when memory runs out. */
static int
line_room(struct line_buf *b, size_t want)
{
	size_t cap = b->lb_cap;
	char *p;

	if (want <= cap)
		return 0;
	while (cap < want) {
		if (cap > SIZE_MAX / 2)
			return -1;
		cap *= 2;
	}
	if ((p = realloc(b->lb_buf, cap)) == NULL)
		return -1;
	b->lb_buf = p;
	b->lb_cap = cap;
	return 0;
}

static int
line_put(const char *s, size_t n, void *ctx)
{
	struct line_buf *b = ctx;

	if (n > SIZE_MAX - b->lb_len || line_room(b, b->lb_len + n) == -1)
		return -1;
	memcpy(b->lb_buf + b->lb_len, s, n);
	b->lb_len += n;
	return 0;
}

char *
bx_json_encode_line(const json_t *v, size_t *ret_len, struct bx_error *err)
{
	struct line_buf b = { NULL, 0, BX_JSON_LINE_FIRST };

	if ((b.lb_buf = malloc(b.lb_cap)) == NULL ||
	    json_dump_callback(v, line_put, &b, JSON_COMPACT |
	    JSON_PRESERVE_ORDER) == -1 ||
	    line_room(&b, b.lb_len + 2) == -1) {
		free(b.lb_buf);
		bx_fail(err, "cannot encode JSON (out of memory)");
		return NULL;
	}
	b.lb_buf[b.lb_len++] = '\n';
	b.lb_buf[b.lb_len] = '\0';
	*ret_len = b.lb_len;
	return b.lb_buf;
}
