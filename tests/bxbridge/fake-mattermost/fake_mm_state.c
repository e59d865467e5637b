/*
 * fake_mm_state.c: the fake Mattermost server's data and its answers to
 * the API calls (see fake_mm.h for the list). Everything is kept as the
 * JSON the API sends, so that an answer is the stored object itself.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_mm_state.h"

/* create_at of the first object; each later one is 1 ms later, so that
 * the order of posts is the order they were made. */
#define FIRST_MS	1767225600000LL

struct fm_state {
	char		 bot_id[64];
	json_t		*users;		/* id -> User */
	json_t		*channels;	/* id -> Channel */
	json_t		*posts;		/* id -> Post, deleted ones kept */
	json_t		*reactions;	/* [Reaction] */
	char		 dm[27];	/* the first direct channel, or "" */
	unsigned int	 serial;	/* for ids and times */
	enum fake_mm_fail fail;		/* how the next fail_count requests */
	unsigned int	 fail_count;	/* fail */
	long		 fail_reset;	/* a 429's X-Ratelimit-Reset */
};

static json_int_t
next_time(struct fm_state *s)
{
	return FIRST_MS + s->serial++;
}

/* A new id: prefix, then the serial number, 26 characters of [a-z0-9]. */
static void
new_id(struct fm_state *s, const char *prefix, char id[27])
{
	snprintf(id, 27, "%s%0*u", prefix, (int)(26 - strlen(prefix)),
	    s->serial);
}

static char *
dump(json_t *value)
{
	char *text = json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);

	json_decref(value);
	return text;
}

char *
fm_error_body(int status, const char *id, const char *message)
{
	return dump(json_pack("{ss ss ss ss si sb}", "id", id, "message",
	    message, "detailed_error", "", "request_id",
	    "fakerequest000000000000000", "status_code", status,
	    "is_oauth", 0));
}

static void
answer_json(struct fm_answer *a, int status, json_t *value)
{
	a->status = status;
	a->body = dump(value);
}

static void
answer_error(struct fm_answer *a, int status, const char *id,
    const char *message)
{
	a->status = status;
	a->body = fm_error_body(status, id, message);
}

static void
not_found(struct fm_answer *a)
{
	answer_error(a, 404, "api.context.404.app_error",
	    "Sorry, we could not find the page.");
}

static void
bad_body(struct fm_answer *a, const char *param)
{
	char message[128];

	snprintf(message, sizeof(message),
	    "Invalid or missing %s in request body.", param);
	answer_error(a, 400, "api.context.invalid_body_param.app_error",
	    message);
}

int
fm_state_add_user(struct fm_state *s, const char *id, const char *username,
    bool is_bot)
{
	json_int_t now = next_time(s);
	char email[128];

	snprintf(email, sizeof(email), "%s@example.org", username);
	return json_object_set_new(s->users, id, json_pack("{ss sI sI sI ss "
	    "ss ss ss ss ss ss ss sb}", "id", id, "create_at", now,
	    "update_at", now, "delete_at", (json_int_t)0, "username", username,
	    "first_name", "", "last_name", "", "nickname", "", "email", email,
	    "auth_service", "", "roles", "system_user", "locale", "en",
	    "is_bot", is_bot));
}

struct fm_state *
fm_state_new(const char *bot_id, const char *owner_id)
{
	struct fm_state *s;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return NULL;
	snprintf(s->bot_id, sizeof(s->bot_id), "%s", bot_id);
	s->users = json_object();
	s->channels = json_object();
	s->posts = json_object();
	s->reactions = json_array();
	if (s->users == NULL || s->channels == NULL || s->posts == NULL ||
	    s->reactions == NULL ||
	    fm_state_add_user(s, bot_id, "boxmaker-bridge", true) == -1 ||
	    fm_state_add_user(s, owner_id, "owner", false) == -1) {
		fm_state_free(s);
		return NULL;
	}
	return s;
}

void
fm_state_free(struct fm_state *s)
{
	if (s == NULL)
		return;
	json_decref(s->users);
	json_decref(s->channels);
	json_decref(s->posts);
	json_decref(s->reactions);
	free(s);
}

json_t *
fm_state_post(const struct fm_state *s, const char *id)
{
	json_t *post = json_object_get(s->posts, id);

	if (post == NULL ||
	    json_integer_value(json_object_get(post, "delete_at")) != 0)
		return NULL;
	return post;
}

void
fm_state_fail(struct fm_state *s, enum fake_mm_fail kind, unsigned int count,
    long reset)
{
	s->fail = kind;
	s->fail_count = count;
	s->fail_reset = reset;
}

bool
fm_state_next_failure(struct fm_state *s, enum fake_mm_fail *ret_kind,
    long *ret_reset)
{
	if (s->fail_count == 0)
		return false;
	s->fail_count--;
	*ret_kind = s->fail;
	*ret_reset = s->fail_reset;
	return true;
}

json_t *
fm_state_posts(const struct fm_state *s)
{
	json_t *live = json_object(), *post;
	const char *id;

	json_object_foreach(s->posts, id, post)
		if (fm_state_post(s, id) != NULL)
			json_object_set(live, id, post);
	return live;
}

const char *
fm_state_dm(const struct fm_state *s)
{
	return s->dm;
}

static json_t *
new_post(struct fm_state *s, const char *user_id, const char *channel_id,
    const char *root_id, const char *message, json_t *props,
    const char *type)
{
	json_int_t now = next_time(s);
	json_t *post;
	char id[27];

	new_id(s, "post", id);
	post = json_pack("{ss sI sI sI sI sb ss ss ss ss ss ss so ss s[] ss "
	    "s{}}", "id", id, "create_at", now, "update_at", now, "edit_at",
	    (json_int_t)0, "delete_at", (json_int_t)0, "is_pinned", 0,
	    "user_id", user_id, "channel_id", channel_id, "root_id", root_id,
	    "original_id", "", "message", message, "type", type, "props",
	    props != NULL ? json_incref(props) : json_object(), "hashtag", "",
	    "file_ids", "pending_post_id", "", "metadata");
	if (post == NULL || json_object_set_new(s->posts, id, post) == -1)
		return NULL;
	return post;
}

int
fm_state_react(struct fm_state *s, const char *user_id, const char *post_id,
    const char *emoji_name)
{
	return json_array_append_new(s->reactions, json_pack("{ss ss ss sI}",
	    "user_id", user_id, "post_id", post_id, "emoji_name", emoji_name,
	    "create_at", next_time(s)));
}

json_t *
fm_state_reply(struct fm_state *s, const char *user_id, const char *root_id,
    const char *message, json_t *props, const char *type)
{
	json_t *root = fm_state_post(s, root_id);

	if (root == NULL)
		return NULL;
	return new_post(s, user_id, json_string_value(json_object_get(root,
	    "channel_id")), root_id, message, props, type != NULL ? type : "");
}

static void
get_user(struct fm_state *s, const char *id, struct fm_answer *a)
{
	json_t *user = json_object_get(s->users, id);

	if (user == NULL)
		answer_error(a, 404, "app.user.missing_account.const",
		    "Unable to find the user.");
	else
		answer_json(a, 200, json_incref(user));
}

/* POST /api/v4/channels/direct ["<user id>", "<user id>"] */
static void
direct_channel(struct fm_state *s, json_t *body, struct fm_answer *a)
{
	const char *one = json_string_value(json_array_get(body, 0));
	const char *two = json_string_value(json_array_get(body, 1));
	json_t *channel;
	const char *key;
	char name[160], id[27];
	json_int_t now;

	if (json_array_size(body) != 2 || one == NULL || two == NULL ||
	    json_object_get(s->users, one) == NULL ||
	    json_object_get(s->users, two) == NULL) {
		bad_body(a, "user_ids");
		return;
	}
	snprintf(name, sizeof(name), "%s__%s", strcmp(one, two) < 0 ? one :
	    two, strcmp(one, two) < 0 ? two : one);
	json_object_foreach(s->channels, key, channel)
		if (strcmp(json_string_value(json_object_get(channel, "name")),
		    name) == 0) {
			answer_json(a, 201, json_incref(channel));
			return;
		}
	now = next_time(s);
	new_id(s, "dm", id);
	channel = json_pack("{ss sI sI sI ss ss ss ss ss ss sI sI sI ss}",
	    "id", id, "create_at", now, "update_at", now, "delete_at",
	    (json_int_t)0, "team_id", "", "type", "D", "display_name", "",
	    "name", name, "header", "", "purpose", "", "last_post_at", now,
	    "total_msg_count", (json_int_t)0, "extra_update_at", now,
	    "creator_id", s->bot_id);
	if (channel == NULL ||
	    json_object_set(s->channels, id, channel) == -1) {
		json_decref(channel);
		a->status = 500;
		return;
	}
	if (s->dm[0] == '\0')
		memcpy(s->dm, id, sizeof(s->dm));
	answer_json(a, 201, channel);
}

/* POST /api/v4/posts {"channel_id", "message", "root_id"} as the bot. */
static void
create_post(struct fm_state *s, json_t *body, struct fm_answer *a)
{
	const char *channel = json_string_value(json_object_get(body,
	    "channel_id"));
	const char *message = json_string_value(json_object_get(body,
	    "message"));
	const char *root = json_string_value(json_object_get(body, "root_id"));
	json_t *post;

	if (channel == NULL || message == NULL) {
		bad_body(a, channel == NULL ? "channel_id" : "message");
		return;
	}
	if (json_object_get(s->channels, channel) == NULL) {
		answer_error(a, 403, "api.context.permissions.app_error",
		    "You do not have the appropriate permissions.");
		return;
	}
	if (root != NULL && root[0] != '\0' && fm_state_post(s, root) == NULL) {
		answer_error(a, 400, "api.post.create_post.root_id.app_error",
		    "Invalid RootId parameter.");
		return;
	}
	post = new_post(s, s->bot_id, channel, root != NULL ? root : "",
	    message, NULL, "");
	answer_json(a, 201, json_incref(post));
}

/* PUT /api/v4/posts/{id}/patch {"message"}: the bot's own posts only. */
static void
patch_post(struct fm_state *s, const char *id, json_t *body,
    struct fm_answer *a)
{
	json_t *post = fm_state_post(s, id), *message;
	json_int_t now;

	if (post == NULL) {
		not_found(a);
		return;
	}
	if (strcmp(json_string_value(json_object_get(post, "user_id")),
	    s->bot_id) != 0) {
		answer_error(a, 403, "api.context.permissions.app_error",
		    "You do not have the appropriate permissions.");
		return;
	}
	if ((message = json_object_get(body, "message")) != NULL) {
		if (!json_is_string(message)) {
			bad_body(a, "message");
			return;
		}
		now = next_time(s);
		json_object_set(post, "message", message);
		json_object_set_new(post, "edit_at", json_integer(now));
		json_object_set_new(post, "update_at", json_integer(now));
	}
	answer_json(a, 200, json_incref(post));
}

static void
delete_post(struct fm_state *s, const char *id, struct fm_answer *a)
{
	json_t *post = fm_state_post(s, id);

	if (post == NULL) {
		not_found(a);
		return;
	}
	json_object_set_new(post, "delete_at", json_integer(next_time(s)));
	answer_json(a, 200, json_pack("{ss}", "status", "OK"));
}

/* The reactions to post_id, or NULL if it has none. */
static json_t *
reactions_of(struct fm_state *s, const char *post_id)
{
	json_t *list = NULL, *reaction;
	size_t i;

	json_array_foreach(s->reactions, i, reaction) {
		if (strcmp(json_string_value(json_object_get(reaction,
		    "post_id")), post_id) != 0)
			continue;
		if (list == NULL)
			list = json_array();
		json_array_append(list, reaction);
	}
	return list;
}

/* POST /api/v4/posts/ids/reactions: posts without any are left out. */
static void
bulk_reactions(struct fm_state *s, json_t *body, struct fm_answer *a)
{
	json_t *map = json_object(), *id, *list;
	size_t i;

	if (!json_is_array(body)) {
		json_decref(map);
		bad_body(a, "post_ids");
		return;
	}
	json_array_foreach(body, i, id)
		if (json_is_string(id) && (list = reactions_of(s,
		    json_string_value(id))) != NULL)
			json_object_set_new(map, json_string_value(id), list);
	answer_json(a, 200, map);
}

static void
post_reactions(struct fm_state *s, const char *id, struct fm_answer *a)
{
	json_t *list = reactions_of(s, id);

	answer_json(a, 200, list != NULL ? list : json_array());
}

/* GET /api/v4/posts/{id}/thread: the root and its replies, newest first. */
static void
thread(struct fm_state *s, const char *id, struct fm_answer *a)
{
	json_t *post = fm_state_post(s, id), *order, *posts, *p;
	const char *root, *key, *in;
	size_t n;

	if (post == NULL) {
		not_found(a);
		return;
	}
	root = json_string_value(json_object_get(post, "root_id"));
	if (root[0] == '\0')
		root = id;
	order = json_array();
	posts = json_object();
	json_object_foreach(s->posts, key, p) {
		in = json_string_value(json_object_get(p, "root_id"));
		if (fm_state_post(s, key) == NULL ||
		    (strcmp(key, root) != 0 && strcmp(in, root) != 0))
			continue;
		json_object_set(posts, key, p);
		/* Ids grow with time: insert before the first older one. */
		for (n = 0; n < json_array_size(order) && strcmp(key,
		    json_string_value(json_array_get(order, n))) < 0; n++)
			;
		json_array_insert_new(order, n, json_string(key));
	}
	answer_json(a, 200, json_pack("{so so ss ss sb}", "order", order,
	    "posts", posts, "next_post_id", "", "prev_post_id", "",
	    "has_next", 0));
}

/* Routes /api/v4/posts/{id}[/what] requests. */
static void
post_route(struct fm_state *s, const char *method, const char *rest,
    json_t *body, struct fm_answer *a)
{
	const char *slash = strchr(rest, '/');
	char id[64];
	size_t len = slash != NULL ? (size_t)(slash - rest) : strlen(rest);

	if (len >= sizeof(id)) {
		not_found(a);
		return;
	}
	memcpy(id, rest, len);
	id[len] = '\0';
	if (slash == NULL && strcmp(method, "DELETE") == 0)
		delete_post(s, id, a);
	else if (slash == NULL)
		not_found(a);
	else if (strcmp(method, "PUT") == 0 && strcmp(slash, "/patch") == 0)
		patch_post(s, id, body, a);
	else if (strcmp(method, "GET") == 0 && strcmp(slash, "/thread") == 0)
		thread(s, id, a);
	else if (strcmp(method, "GET") == 0 && strcmp(slash, "/reactions") == 0)
		post_reactions(s, id, a);
	else
		not_found(a);
}

void
fm_state_answer(struct fm_state *s, const char *method, const char *path,
    const char *text, struct fm_answer *a)
{
	char route[256];
	json_t *body = NULL;

	/* The query (thread's perPage) is not used. */
	snprintf(route, sizeof(route), "%.*s", (int)strcspn(path, "?"), path);
	if (text != NULL && text[0] != '\0' &&
	    (body = json_loads(text, JSON_DECODE_ANY, NULL)) == NULL) {
		answer_error(a, 400, "api.context.invalid_body_param.app_error",
		    "Unable to parse the request body as JSON.");
		return;
	}
	if (strcmp(method, "GET") == 0 &&
	    strcmp(route, "/api/v4/users/me") == 0)
		get_user(s, s->bot_id, a);
	else if (strcmp(method, "GET") == 0 &&
	    strncmp(route, "/api/v4/users/", 14) == 0)
		get_user(s, route + 14, a);
	else if (strcmp(method, "POST") == 0 &&
	    strcmp(route, "/api/v4/channels/direct") == 0)
		direct_channel(s, body, a);
	else if (strcmp(method, "POST") == 0 &&
	    strcmp(route, "/api/v4/posts") == 0)
		create_post(s, body, a);
	else if (strcmp(method, "POST") == 0 &&
	    strcmp(route, "/api/v4/posts/ids/reactions") == 0)
		bulk_reactions(s, body, a);
	else if (strncmp(route, "/api/v4/posts/", 14) == 0)
		post_route(s, method, route + 14, body, a);
	else
		not_found(a);
	json_decref(body);
}
