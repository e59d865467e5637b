/*
 * mm_parse.c: reads Mattermost's User, Post, Reaction and PostList JSON
 * (the API reference's shapes) into mm.h's structs. Fields the bridge
 * does not use are ignored; the ones it uses must have their type, and
 * every id must be a Mattermost id, or the whole answer is refused.
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

int
mm_parse_post(const json_t *obj, struct mm_post *ret, struct bx_error *err)
{
	struct mm_post p;
	const json_t *props, *created;
	const char *message;

	memset(&p, 0, sizeof(p));
	if (!json_is_object(obj))
		return bx_fail(err, "the post is not a JSON object");
	if (mm_parse_id(obj, "id", false, p.id, err) == -1 ||
	    mm_parse_id(obj, "user_id", false, p.user_id, err) == -1 ||
	    mm_parse_id(obj, "channel_id", false, p.channel_id, err) == -1 ||
	    (json_object_get(obj, "root_id") != NULL &&
	    mm_parse_id(obj, "root_id", true, p.root_id, err) == -1) ||
	    short_text(obj, "type", true, MM_TYPE_MAX, p.type, err) == -1)
		return -1;
	if ((message = json_string_value(json_object_get(obj, "message"))) ==
	    NULL)
		return bx_fail(err, "message: missing, or not a string");
	props = json_object_get(obj, "props");
	if (props != NULL && !json_is_object(props) && !json_is_null(props))
		return bx_fail(err, "props: not an object");
	p.from_webhook = json_object_get(props, "from_webhook") != NULL;
	p.from_bot = json_object_get(props, "from_bot") != NULL;
	created = json_object_get(obj, "create_at");
	if (created != NULL && !json_is_integer(created))
		return bx_fail(err, "create_at: not an integer");
	p.create_at = json_integer_value(created);
	if ((p.message = strdup(message)) == NULL)
		return bx_fail(err, "out of memory");
	*ret = p;
	return 0;
}

static int
parse_reaction(const json_t *obj, const char *post_id,
    struct mm_reaction *ret, struct bx_error *err)
{
	struct mm_reaction r;

	if (!json_is_object(obj))
		return bx_fail(err, "not a JSON object");
	if (mm_parse_id(obj, "user_id", false, r.user_id, err) == -1 ||
	    mm_parse_id(obj, "post_id", false, r.post_id, err) == -1 ||
	    short_text(obj, "emoji_name", false, MM_NAME_MAX, r.emoji_name,
	    err) == -1)
		return -1;
	if (strcmp(r.post_id, post_id) != 0)
		return bx_fail(err, "post_id: a reaction to another post");
	*ret = r;
	return 0;
}

int
mm_parse_reactions(const json_t *array, const char *post_id,
    struct mm_reactions *list, struct bx_error *err)
{
	struct mm_reaction *grown;
	size_t i, n;

	if (array == NULL || json_is_null(array))
		return 0;
	if (!json_is_array(array))
		return bx_fail(err, "the reactions are not a JSON array");
	n = json_array_size(array);
	if (n == 0)
		return 0;
	grown = realloc(list->list, (list->count + n) * sizeof(*grown));
	if (grown == NULL)
		return bx_fail(err, "out of memory");
	list->list = grown;
	for (i = 0; i < n; i++)
		if (parse_reaction(json_array_get(array, i), post_id,
		    &list->list[list->count + i], err) == -1)
			return bx_error_prefix(err, "reaction %zu", i);
	list->count += n;
	return 0;
}

int
mm_parse_thread(const json_t *obj, struct mm_thread *ret,
    struct bx_error *err)
{
	const json_t *order, *posts, *post;
	struct mm_thread t = { 0 };
	const char *id;
	size_t i, n;

	order = json_object_get(obj, "order");
	posts = json_object_get(obj, "posts");
	if (!json_is_array(order) || !json_is_object(posts))
		return bx_fail(err, "not a post list (no \"order\" array or "
		    "\"posts\" object)");
	n = json_array_size(order);
	t.truncated = n > MM_MAX_THREAD ||
	    json_is_true(json_object_get(obj, "has_next"));
	if (n > MM_MAX_THREAD)
		n = MM_MAX_THREAD;
	if (n > 0 && (t.posts = calloc(n, sizeof(*t.posts))) == NULL)
		return bx_fail(err, "out of memory");
	for (i = 0; i < n; i++, t.count++) {
		id = json_string_value(json_array_get(order, i));
		if (!mm_id_valid(id)) {
			bx_fail(err, "order[%zu]: not a Mattermost id", i);
			goto fail;
		}
		if ((post = json_object_get(posts, id)) == NULL) {
			bx_fail(err, "order[%zu]: no such post in \"posts\"",
			    i);
			goto fail;
		}
		if (mm_parse_post(post, &t.posts[i], err) == -1) {
			bx_error_prefix(err, "posts[\"%s\"]", id);
			goto fail;
		}
		if (strcmp(t.posts[i].id, id) != 0) {
			mm_post_clear(&t.posts[i]);
			bx_fail(err, "posts[\"%s\"]: has another id", id);
			goto fail;
		}
	}
	*ret = t;
	return 0;
fail:
	mm_thread_clear(&t);
	return -1;
}
