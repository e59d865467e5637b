/*
 * mm_parse.c: checks Mattermost's User, Post, Reaction and PostList JSON
 * (the API reference's shapes) and reads users and posts into
 * mm_types.h's structs. Fields nobody uses are ignored; the ones used
 * must have their type, and every id must be a Mattermost id, or the
 * whole answer is refused.
 */
#include <stdlib.h>
#include <string.h>

#include "mm_parse.h"

int
mm_parse_id(const json_t *obj, const char *key, bool may_be_empty,
    char out[MM_ID_LEN + 1], struct bx_error *err)
{
	const char *id;

	id = json_string_value(json_object_get(obj, key));
	if (id == NULL)
		return bx_fail(err, "%s: missing, or not a string", key);
	if (may_be_empty && id[0] == '\0') {
		out[0] = '\0';
		return 0;
	}
	if (!mm_id_valid(id))
		return bx_fail(err, "%s: not a Mattermost id (%d characters "
		    "of [a-z0-9])", key, MM_ID_LEN);
	memcpy(out, id, MM_ID_LEN + 1);
	return 0;
}

/* obj[key], a string of at most max bytes ("" if absent and optional). */
static int
short_text(const json_t *obj, const char *key, bool optional, size_t max,
    char *out, struct bx_error *err)
{
	const json_t *value = json_object_get(obj, key);
	const char *text;

	if (value == NULL && optional) {
		out[0] = '\0';
		return 0;
	}
	if ((text = json_string_value(value)) == NULL)
		return bx_fail(err, "%s: missing, or not a string", key);
	if (strlen(text) > max)
		return bx_fail(err, "%s: longer than %zu bytes", key, max);
	memcpy(out, text, strlen(text) + 1);
	return 0;
}

int
mm_parse_user(const json_t *obj, struct mm_user *ret, struct bx_error *err)
{
	struct mm_user u;
	json_t *deleted;

	memset(&u, 0, sizeof(u));
	if (!json_is_object(obj))
		return bx_fail(err, "the user is not a JSON object");
	if (mm_parse_id(obj, "id", false, u.id, err) == -1 ||
	    short_text(obj, "username", false, MM_NAME_MAX, u.username,
	    err) == -1)
		return -1;
	u.is_bot = json_is_true(json_object_get(obj, "is_bot"));
	deleted = json_object_get(obj, "delete_at");
	u.deleted = json_is_integer(deleted) && json_integer_value(deleted);
	*ret = u;
	return 0;
}

/*
 * A post's fields as the bridge and its answer reading use them; its ids
 * into p (not its message).
 */
static int
check_post(const json_t *obj, struct mm_post *p, struct bx_error *err)
{
	char type[MM_TYPE_MAX + 1];
	const json_t *props, *created;

	if (!json_is_object(obj))
		return bx_fail(err, "not a JSON object");
	if (mm_parse_id(obj, "id", false, p->id, err) == -1 ||
	    mm_parse_id(obj, "user_id", false, p->user_id, err) == -1 ||
	    mm_parse_id(obj, "channel_id", false, p->channel_id, err) == -1 ||
	    (json_object_get(obj, "root_id") != NULL &&
	    mm_parse_id(obj, "root_id", true, p->root_id, err) == -1) ||
	    short_text(obj, "type", true, MM_TYPE_MAX, type, err) == -1)
		return -1;
	if (!json_is_string(json_object_get(obj, "message")))
		return bx_fail(err, "message: missing, or not a string");
	props = json_object_get(obj, "props");
	if (props != NULL && !json_is_object(props) && !json_is_null(props))
		return bx_fail(err, "props: not an object");
	created = json_object_get(obj, "create_at");
	if (created != NULL && !json_is_integer(created))
		return bx_fail(err, "create_at: not an integer");
	return 0;
}

int
mm_parse_post(const json_t *obj, struct mm_post *ret, struct bx_error *err)
{
	struct mm_post p;

	memset(&p, 0, sizeof(p));
	if (check_post(obj, &p, err) == -1)
		return -1;
	p.create_at = json_integer_value(json_object_get(obj, "create_at"));
	if ((p.message = strdup(json_string_value(json_object_get(obj,
	    "message")))) == NULL)
		return bx_fail(err, "out of memory");
	*ret = p;
	return 0;
}

static int
check_reaction(const json_t *obj, const char *post_id, struct bx_error *err)
{
	char user[MM_ID_LEN + 1], post[MM_ID_LEN + 1];
	char emoji[MM_NAME_MAX + 1];

	if (!json_is_object(obj))
		return bx_fail(err, "not a JSON object");
	if (mm_parse_id(obj, "user_id", false, user, err) == -1 ||
	    mm_parse_id(obj, "post_id", false, post, err) == -1 ||
	    short_text(obj, "emoji_name", false, MM_NAME_MAX, emoji,
	    err) == -1)
		return -1;
	if (strcmp(post, post_id) != 0)
		return bx_fail(err, "post_id: a reaction to another post");
	return 0;
}

int
mm_check_reactions(const json_t *array, const char *post_id,
    struct bx_error *err)
{
	const json_t *reaction;
	size_t i;

	if (array == NULL || json_is_null(array))
		return 0;
	if (!json_is_array(array))
		return bx_fail(err, "the reactions are not a JSON array");
	json_array_foreach(array, i, reaction)
		if (check_reaction(reaction, post_id, err) == -1)
			return bx_error_prefix(err, "reaction %zu", i);
	return 0;
}

/* Puts the post order[i] names into cut, checked. */
static int
cut_one(const json_t *order, const json_t *posts, size_t i, json_t *cut,
    struct bx_error *err)
{
	struct mm_post p = { 0 };
	const char *key;
	json_t *post;

	key = json_string_value(json_array_get(order, i));
	if (!mm_id_valid(key))
		return bx_fail(err, "order[%zu]: not a Mattermost id", i);
	if ((post = json_object_get(posts, key)) == NULL)
		return bx_fail(err, "order[%zu]: no such post in \"posts\"",
		    i);
	if (check_post(post, &p, err) == -1)
		return bx_error_prefix(err, "posts[\"%s\"]", key);
	if (strcmp(p.id, key) != 0)
		return bx_fail(err, "posts[\"%s\"]: has another id", key);
	if (json_array_append_new(json_object_get(cut, "order"),
	    json_string(key)) == -1 ||
	    json_object_set(json_object_get(cut, "posts"), key, post) == -1)
		return bx_fail(err, "out of memory");
	return 0;
}

int
mm_cut_thread(const json_t *list, json_t **ret, bool *ret_truncated,
    struct bx_error *err)
{
	const json_t *order, *posts;
	json_t *cut;
	size_t i, n;

	order = json_object_get(list, "order");
	posts = json_object_get(list, "posts");
	if (!json_is_array(order) || !json_is_object(posts))
		return bx_fail(err, "not a post list (no \"order\" array or "
		    "\"posts\" object)");
	n = json_array_size(order);
	if ((cut = json_pack("{s[] s{}}", "order", "posts")) == NULL)
		return bx_fail(err, "out of memory");
	for (i = 0; i < n && i < MM_MAX_THREAD; i++)
		if (cut_one(order, posts, i, cut, err) == -1) {
			json_decref(cut);
			return -1;
		}
	*ret_truncated = n > MM_MAX_THREAD ||
	    json_is_true(json_object_get(list, "has_next"));
	*ret = cut;
	return 0;
}
