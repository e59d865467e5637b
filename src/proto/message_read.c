/*
 * message_read.c: reading one field of a frame's object, strictly, each
 * error naming the key (message_read.h): the decoders' building blocks
 * (message_decode.c, message_console_codec.c).
 */
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "proto/message_read.h"

/* A copied string field. */
int
bx_msgd_string(const json_t *o, const char *key, char **ret,
    struct bx_error *err)
{
	const char *s;

	if (bx_json_string(o, key, &s, err) == -1)
		return -1;
	if ((*ret = strdup(s)) == NULL)
		return bx_fail(err, "field \"%s\": out of memory", key);
	return 0;
}

int
bx_msgd_string_or_null(const json_t *o, const char *key, char **ret,
    struct bx_error *err)
{
	const char *s;

	if (bx_json_string_or_null(o, key, &s, err) == -1)
		return -1;
	return s == NULL ? 0 : bx_msgd_string(o, key, ret, err);
}

/* A copied identifier, checked by check (session, call or grant id). */
int
bx_msgd_id(const json_t *o, const char *key, bx_id_check_fn check,
    char **ret, struct bx_error *err)
{
	const char *s;

	if (bx_json_string(o, key, &s, err) == -1)
		return -1;
	if (check(s, err) == -1)
		return bx_error_prefix(err, "field \"%s\"", key);
	if ((*ret = strdup(s)) == NULL)
		return bx_fail(err, "field \"%s\": out of memory", key);
	return 0;
}

int
bx_msgd_one_of(const json_t *o, const char *key, const char *const *names,
    char **ret, struct bx_error *err)
{
	const char *s;
	size_t i;

	if (bx_json_string(o, key, &s, err) == -1)
		return -1;
	for (i = 0; names[i] != NULL; i++)
		if (strcmp(s, names[i]) == 0)
			return bx_msgd_string(o, key, ret, err);
	return bx_fail(err, "field \"%s\": unknown value \"%s\"", key, s);
}

static const char *const problem_fields[] = {
	"file", "line", "problem", NULL
};

static int
decode_problem(const json_t *o, struct bx_grant_problem *p,
    struct bx_error *err)
{
	if (!json_is_object(o))
		return bx_fail(err, "expected an object");
	if (bx_json_check_fields(o, problem_fields, err) == -1 ||
	    bx_msgd_string(o, "file", &p->file, err) == -1 ||
	    bx_json_u64_or_null(o, "line", &p->has_line, &p->line, err) == -1)
		return -1;
	return bx_msgd_string(o, "problem", &p->problem, err);
}

int
bx_msgd_problems(const json_t *o, const char *key,
    struct bx_grant_problem **ret, size_t *ret_n, struct bx_error *err)
{
	json_t *problems;
	size_t i, n;

	if (bx_json_array(o, key, &problems, err) == -1)
		return -1;
	if ((n = json_array_size(problems)) == 0)
		return 0;
	if ((*ret = calloc(n, sizeof(**ret))) == NULL)
		return bx_fail(err, "field \"%s\": out of memory", key);
	*ret_n = n;
	for (i = 0; i < n; i++)
		if (decode_problem(json_array_get(problems, i), &(*ret)[i],
		    err) == -1)
			return bx_error_prefix(err, "field \"%s\" [%zu]", key,
			    i);
	return 0;
}

static const char *const pending_fields[] = {
	"approval", "session", "call", "tool", "arguments", "grant", "taint",
	"created", "expires", NULL
};

static int
decode_pending(const json_t *o, struct bx_pending_approval *p,
    struct bx_error *err)
{
	if (!json_is_object(o))
		return bx_fail(err, "expected an object");
	if (bx_json_check_fields(o, pending_fields, err) == -1 ||
	    bx_json_u64(o, "approval", &p->approval, err) == -1 ||
	    bx_msgd_id(o, "session", bx_session_id_check, &p->session, err) == -1 ||
	    bx_msgd_id(o, "call", bx_call_id_check, &p->call, err) == -1 ||
	    bx_msgd_string(o, "tool", &p->tool, err) == -1 ||
	    bx_msgd_string(o, "arguments", &p->arguments, err) == -1 ||
	    bx_msgd_id(o, "grant", bx_grant_id_check, &p->grant, err) == -1 ||
	    bx_json_class(o, "taint", &p->taint, err) == -1 ||
	    bx_json_time(o, "created", &p->created, err) == -1 ||
	    bx_json_time(o, "expires", &p->expires, err) == -1)
		return -1;
	return 0;
}

int
bx_msgd_pending(const json_t *o, const char *key,
    struct bx_pending_approval **ret, size_t *ret_n, struct bx_error *err)
{
	json_t *items;
	size_t i, n;

	if (bx_json_array(o, key, &items, err) == -1)
		return -1;
	if ((n = json_array_size(items)) == 0)
		return 0;
	if ((*ret = calloc(n, sizeof(**ret))) == NULL)
		return bx_fail(err, "field \"%s\": out of memory", key);
	*ret_n = n;
	for (i = 0; i < n; i++)
		if (decode_pending(json_array_get(items, i), &(*ret)[i],
		    err) == -1)
			return bx_error_prefix(err, "field \"%s\" [%zu]", key,
			    i);
	return 0;
}

/* A Mattermost id at key, or null. */
static int
mattermost_id_or_null(const json_t *o, const char *key, char **ret,
    struct bx_error *err)
{
	const char *s;

	if (bx_json_string_or_null(o, key, &s, err) == -1)
		return -1;
	if (s == NULL)
		return 0;
	return bx_msgd_id(o, key, bx_mattermost_id_check, ret, err);
}

int
bx_msgd_by_post(const json_t *o, char **by, char **post,
    struct bx_error *err)
{
	if (mattermost_id_or_null(o, "by", by, err) == -1)
		return -1;
	return mattermost_id_or_null(o, "post", post, err);
}
