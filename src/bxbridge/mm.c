/*
 * mm.c: the Mattermost API calls of the bridge (see mm.h): each checks
 * the ids it puts in a path, sends one request through mm_http.c and
 * reads the answer with mm_parse.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mm.h"
#include "mm_parse.h"

struct mm_client {
	struct mm_http	*c_http;
};

/* Longest path: "/api/v4/posts/<id>/reactions" and a query. */
#define PATH_MAX_LEN	128

int
mm_client_new(const struct mm_http_opts *opts, struct mm_client **ret,
    struct bx_error *err)
{
	struct mm_client *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "out of memory");
	if (mm_http_new(opts, &c->c_http, err) == -1) {
		free(c);
		return -1;
	}
	*ret = c;
	return 0;
}

void
mm_client_free(struct mm_client *c)
{
	if (c == NULL)
		return;
	mm_http_free(c->c_http);
	free(c);
}

struct mm_http *
mm_client_http(struct mm_client *c)
{
	return c->c_http;
}

/* An id the caller gives, before it goes into a path or a body. */
static int
check_arg(const char *what, const char *id, struct bx_error *err)
{
	if (!mm_id_valid(id))
		return bx_fail(err, "the %s given is not a Mattermost id (%d "
		    "characters of [a-z0-9])", what, MM_ID_LEN);
	return 0;
}

/* An answer not in the API's shape: say whose, and refuse it. */
static int
refused(struct mm_client *c, const char *method, const char *path,
    struct bx_error *err)
{
	bx_error_prefix(err, "Mattermost %s answered %s %s with a malformed "
	    "body", mm_http_url(c->c_http), method, path);
	return MM_REFUSED;
}

static int
get_user(struct mm_client *c, const char *path, struct mm_user *ret,
    struct bx_error *err)
{
	json_t *answer;
	int r;

	if ((r = mm_http_call(c->c_http, "GET", path, NULL, &answer, err)) !=
	    MM_OK)
		return r;
	r = mm_parse_user(answer, ret, err);
	json_decref(answer);
	return r == 0 ? MM_OK : refused(c, "GET", path, err);
}

int
mm_users_me(struct mm_client *c, struct mm_user *ret, struct bx_error *err)
{
	return get_user(c, "/api/v4/users/me", ret, err);
}

int
mm_user_get(struct mm_client *c, const char *id, struct mm_user *ret,
    struct bx_error *err)
{
	char path[PATH_MAX_LEN];
	struct mm_user u;
	int r;

	if (check_arg("user id", id, err) == -1)
		return MM_REFUSED;
	snprintf(path, sizeof(path), "/api/v4/users/%s", id);
	if ((r = get_user(c, path, &u, err)) != MM_OK)
		return r;
	if (strcmp(u.id, id) != 0) {
		bx_fail(err, "Mattermost %s answered GET %s with another "
		    "user", mm_http_url(c->c_http), path);
		return MM_REFUSED;
	}
	*ret = u;
	return MM_OK;
}

int
mm_direct_channel(struct mm_client *c, const char *user_a,
    const char *user_b, char ret_id[MM_ID_LEN + 1], struct bx_error *err)
{
	static const char path[] = "/api/v4/channels/direct";
	json_t *body, *answer;
	char id[MM_ID_LEN + 1];
	const char *type;
	int r;

	if (check_arg("user id", user_a, err) == -1 ||
	    check_arg("user id", user_b, err) == -1)
		return MM_REFUSED;
	if ((body = json_pack("[ss]", user_a, user_b)) == NULL)
		return bx_fail(err, "out of memory");
	r = mm_http_call(c->c_http, "POST", path, body, &answer, err);
	json_decref(body);
	if (r != MM_OK)
		return r;
	r = mm_parse_id(answer, "id", false, id, err);
	type = json_string_value(json_object_get(answer, "type"));
	if (r == 0 && (type == NULL || strcmp(type, "D") != 0))
		r = bx_fail(err, "type: not \"D\", a direct channel");
	json_decref(answer);
	if (r == -1)
		return refused(c, "POST", path, err);
	memcpy(ret_id, id, sizeof(id));
	return MM_OK;
}

/* Sends a post's JSON to path and reads the post that comes back. */
static int
post_call(struct mm_client *c, const char *method, const char *path,
    json_t *body, const char *want_id, struct mm_post *ret,
    struct bx_error *err)
{
	struct mm_post p;
	json_t *answer;
	int r;

	if (body == NULL)
		return bx_fail(err, "out of memory (or a message that is not "
		    "UTF-8)");
	r = mm_http_call(c->c_http, method, path, body, &answer, err);
	json_decref(body);
	if (r != MM_OK)
		return r;
	r = mm_parse_post(answer, &p, err);
	json_decref(answer);
	if (r == -1)
		return refused(c, method, path, err);
	if (want_id != NULL && strcmp(p.id, want_id) != 0) {
		mm_post_clear(&p);
		bx_fail(err, "Mattermost %s answered %s %s with another post",
		    mm_http_url(c->c_http), method, path);
		return MM_REFUSED;
	}
	if (ret != NULL)
		*ret = p;
	else
		mm_post_clear(&p);
	return MM_OK;
}

int
mm_post_create(struct mm_client *c, const char *channel_id,
    const char *message, const char *root_id, struct mm_post *ret,
    struct bx_error *err)
{
	json_t *body;

	if (check_arg("channel id", channel_id, err) == -1 ||
	    (root_id != NULL && check_arg("root post id", root_id, err) == -1))
		return MM_REFUSED;
	body = json_pack("{ss ss}", "channel_id", channel_id, "message",
	    message);
	if (body != NULL && root_id != NULL &&
	    json_object_set_new(body, "root_id", json_string(root_id)) == -1) {
		json_decref(body);
		body = NULL;
	}
	return post_call(c, "POST", "/api/v4/posts", body, NULL, ret, err);
}

int
mm_post_patch(struct mm_client *c, const char *post_id, const char *message,
    struct mm_post *ret, struct bx_error *err)
{
	char path[PATH_MAX_LEN];

	if (check_arg("post id", post_id, err) == -1)
		return MM_REFUSED;
	snprintf(path, sizeof(path), "/api/v4/posts/%s/patch", post_id);
	return post_call(c, "PUT", path, json_pack("{ss}", "message",
	    message), post_id, ret, err);
}

int
mm_post_delete(struct mm_client *c, const char *post_id,
    struct bx_error *err)
{
	char path[PATH_MAX_LEN];
	json_t *answer;
	const char *status;
	int r;

	if (check_arg("post id", post_id, err) == -1)
		return MM_REFUSED;
	snprintf(path, sizeof(path), "/api/v4/posts/%s", post_id);
	if ((r = mm_http_call(c->c_http, "DELETE", path, NULL, &answer, err))
	    != MM_OK)
		return r;
	status = json_string_value(json_object_get(answer, "status"));
	r = status != NULL && strcmp(status, "OK") == 0 ? MM_OK :
	    bx_fail(err, "status: not \"OK\"");
	json_decref(answer);
	return r == MM_OK ? MM_OK : refused(c, "DELETE", path, err);
}

int
mm_reactions_bulk(struct mm_client *c, const char *const *post_ids,
    size_t count, json_t **ret, struct bx_error *err)
{
	static const char path[] = "/api/v4/posts/ids/reactions";
	json_t *body, *answer, *map = NULL, *list;
	size_t i;
	int r;

	if (count > MM_MAX_BULK)
		return bx_fail(err, "%zu posts asked about at once, over the "
		    "limit of %d", count, MM_MAX_BULK);
	if ((body = json_array()) == NULL)
		return bx_fail(err, "out of memory");
	for (i = 0; i < count; i++)
		if (check_arg("post id", post_ids[i], err) == -1 ||
		    json_array_append_new(body,
		    json_string(post_ids[i])) == -1) {
			json_decref(body);
			return MM_REFUSED;
		}
	r = mm_http_call(c->c_http, "POST", path, body, &answer, err);
	json_decref(body);
	if (r != MM_OK)
		return r;
	/* A post without reactions may be missing or null: each post asked
	 * about gets its array, and nothing else is kept. */
	if (!json_is_object(answer))
		r = bx_fail(err, "not a JSON object");
	else if ((map = json_object()) == NULL)
		r = bx_fail(err, "out of memory");
	for (i = 0; i < count && r == 0; i++) {
		list = json_object_get(answer, post_ids[i]);
		if (mm_check_reactions(list, post_ids[i], err) == -1)
			r = bx_error_prefix(err, "\"%s\"", post_ids[i]);
		else if (json_object_set_new(map, post_ids[i],
		    json_is_array(list) ? json_incref(list) : json_array()) ==
		    -1)
			r = bx_fail(err, "out of memory");
	}
	json_decref(answer);
	if (r == -1) {
		json_decref(map);
		return refused(c, "POST", path, err);
	}
	*ret = map;
	return MM_OK;
}

int
mm_reactions_get(struct mm_client *c, const char *post_id, json_t **ret,
    struct bx_error *err)
{
	char path[PATH_MAX_LEN];
	json_t *answer;
	int r;

	if (check_arg("post id", post_id, err) == -1)
		return MM_REFUSED;
	snprintf(path, sizeof(path), "/api/v4/posts/%s/reactions", post_id);
	if ((r = mm_http_call(c->c_http, "GET", path, NULL, &answer, err)) !=
	    MM_OK)
		return r;
	if (!json_is_array(answer))
		r = bx_fail(err, "the reactions are not a JSON array");
	else
		r = mm_check_reactions(answer, post_id, err);
	if (r == -1) {
		json_decref(answer);
		return refused(c, "GET", path, err);
	}
	*ret = answer;
	return MM_OK;
}

int
mm_thread_get(struct mm_client *c, const char *post_id, json_t **ret,
    bool *ret_truncated, struct bx_error *err)
{
	char path[PATH_MAX_LEN];
	json_t *answer;
	int r;

	if (check_arg("post id", post_id, err) == -1)
		return MM_REFUSED;
	snprintf(path, sizeof(path), "/api/v4/posts/%s/thread?perPage=%d",
	    post_id, MM_MAX_THREAD);
	if ((r = mm_http_call(c->c_http, "GET", path, NULL, &answer, err)) !=
	    MM_OK)
		return r;
	r = mm_cut_thread(answer, ret, ret_truncated, err);
	json_decref(answer);
	return r == 0 ? MM_OK : refused(c, "GET", path, err);
}
