/*
 * fake_mm_control.c: the /fake/ requests that script the fake Mattermost
 * server over HTTP (see fake_mm_control.h), each one call of
 * fake_mm_state.c.
 */
#include <stdlib.h>
#include <string.h>

#include "fake_mm_control.h"

static const struct {
	const char		*name;
	enum fake_mm_fail	 kind;
} fail_kinds[] = {
	{ "rate", FAKE_MM_FAIL_RATE },
	{ "401", FAKE_MM_FAIL_401 },
	{ "403", FAKE_MM_FAIL_403 },
	{ "500", FAKE_MM_FAIL_500 },
	{ "400_garbled", FAKE_MM_FAIL_400_GARBLED },
	{ "hangup", FAKE_MM_FAIL_HANGUP },
	{ "huge", FAKE_MM_FAIL_HUGE },
	{ "huge_unsized", FAKE_MM_FAIL_HUGE_UNSIZED },
};

static void
bad(struct fm_answer *a, const char *message)
{
	a->status = 400;
	a->body = fm_error_body(400, "fake.control.app_error", message);
}

static void
ok(struct fm_answer *a, int status, json_t *value)
{
	a->status = status;
	a->body = json_dumps(value, JSON_COMPACT);
	json_decref(value);
}

static const char *
text(const json_t *body, const char *key)
{
	return json_string_value(json_object_get(body, key));
}

static void
fail(struct fm_state *s, const json_t *body, struct fm_answer *a)
{
	const char *kind = text(body, "kind");
	json_int_t count = json_integer_value(json_object_get(body, "count"));
	size_t i;

	for (i = 0; kind != NULL && i < sizeof(fail_kinds) /
	    sizeof(fail_kinds[0]); i++)
		if (strcmp(kind, fail_kinds[i].name) == 0) {
			fm_state_fail(s, fail_kinds[i].kind, count > 0 ?
			    (unsigned int)count : 1, (long)json_integer_value(
			    json_object_get(body, "reset")));
			ok(a, 200, json_pack("{ss}", "status", "OK"));
			return;
		}
	bad(a, "fail: unknown kind");
}

static void
reply(struct fm_state *s, json_t *body, struct fm_answer *a)
{
	json_t *props = json_object_get(body, "props"), *post;

	if (text(body, "user_id") == NULL || text(body, "root_id") == NULL ||
	    text(body, "message") == NULL ||
	    (props != NULL && !json_is_object(props))) {
		bad(a, "reply: needs user_id, root_id, message");
		return;
	}
	post = fm_state_reply(s, text(body, "user_id"), text(body, "root_id"),
	    text(body, "message"), props, text(body, "type"));
	if (post == NULL)
		bad(a, "reply: no such root post");
	else
		ok(a, 201, json_incref(post));
}

void
fake_mm_control(struct fm_state *s, const char *method, const char *path,
    const char *text_body, struct fm_answer *a)
{
	json_t *body = json_loads(text_body, 0, NULL);
	int r = 0;

	if (strcmp(method, "GET") == 0 && strcmp(path, "/fake/posts") == 0)
		ok(a, 200, json_pack("{ss so}", "dm", fm_state_dm(s), "posts",
		    fm_state_posts(s)));
	else if (strcmp(method, "POST") != 0 || body == NULL)
		bad(a, "fake: POST a JSON object, or GET /fake/posts");
	else if (strcmp(path, "/fake/fail") == 0)
		fail(s, body, a);
	else if (strcmp(path, "/fake/reply") == 0)
		reply(s, body, a);
	else if (strcmp(path, "/fake/user") == 0) {
		if (text(body, "id") == NULL || text(body, "username") == NULL)
			r = -1;
		else
			r = fm_state_add_user(s, text(body, "id"),
			    text(body, "username"),
			    json_is_true(json_object_get(body, "is_bot")));
	} else if (strcmp(path, "/fake/react") == 0) {
		if (text(body, "user_id") == NULL ||
		    text(body, "post_id") == NULL ||
		    text(body, "emoji_name") == NULL)
			r = -1;
		else
			r = fm_state_react(s, text(body, "user_id"),
			    text(body, "post_id"), text(body, "emoji_name"));
	} else
		bad(a, "fake: no such control request");
	if (a->body == NULL && r == 0)
		ok(a, 200, json_pack("{ss}", "status", "OK"));
	else if (a->body == NULL)
		bad(a, "fake: missing or wrong fields");
	json_decref(body);
}
