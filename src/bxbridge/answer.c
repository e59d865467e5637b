/*
 * answer.c: the owner's answer to a request post, from its reactions and
 * its thread (the rules are in answer.h). Every field the server sent is
 * checked for its type before it is read; an item that does not pass is
 * simply no answer, so that nothing strange can approve a call.
 */
#include <stdbool.h>
#include <string.h>
#include <strings.h>

#include "bxbridge/answer.h"

void
answer_init(struct answer *a)
{
	memset(a, 0, sizeof(*a));
	a->a_verdict = ANSWER_NONE;
}

/* Whether x comes before y, the order of answer.h. */
static bool
comes_before(const struct answer *x, const struct answer *y)
{
	if (y->a_verdict == ANSWER_NONE)
		return true;
	if (x->a_at != y->a_at)
		return x->a_at < y->a_at;
	if (x->a_verdict != y->a_verdict)
		return x->a_verdict == ANSWER_REFUSE;
	if (x->a_source != y->a_source)
		return x->a_source == ANSWER_REPLY;
	return strcmp(x->a_post, y->a_post) < 0;
}

/* The string at key of o, or NULL when absent or not a string. */
static const char *
string_at(const json_t *o, const char *key)
{
	return json_string_value(json_object_get(o, key));
}

static bool
field_is(const json_t *o, const char *key, const char *want)
{
	const char *s = string_at(o, key);

	return s != NULL && strcmp(s, want) == 0;
}

/*
 * What every counted item shares: the owner's, not the bot's; not deleted;
 * created at a known time (*ret_at).
 */
static bool
owner_item(const struct answer_context *ctx, const json_t *o,
    int64_t *ret_at)
{
	const json_t *deleted, *created;

	if (!json_is_object(o) || !field_is(o, "user_id", ctx->ac_owner) ||
	    field_is(o, "user_id", ctx->ac_bot))
		return false;
	deleted = json_object_get(o, "delete_at");
	if (deleted != NULL && !(json_is_integer(deleted) &&
	    json_integer_value(deleted) == 0))
		return false;
	created = json_object_get(o, "create_at");
	if (!json_is_integer(created))
		return false;
	*ret_at = json_integer_value(created);
	return true;
}

static bool
space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* s[0..len) without the whitespace at its ends; *len updated. */
static const char *
trim(const char *s, size_t *len)
{
	while (*len > 0 && space(s[0])) {
		s++;
		(*len)--;
	}
	while (*len > 0 && space(s[*len - 1]))
		(*len)--;
	return s;
}

enum answer_verdict
answer_text(const char *message, char *reason)
{
	static const char approve[] = "approve", refuse[] = "refuse";
	const size_t nrefuse = sizeof(refuse) - 1;
	size_t len = strlen(message), rlen;
	const char *s, *r;

	s = trim(message, &len);
	if (len == sizeof(approve) - 1 && strncasecmp(s, approve, len) == 0) {
		reason[0] = '\0';
		return ANSWER_APPROVE;
	}
	if (len < nrefuse || strncasecmp(s, refuse, nrefuse) != 0 ||
	    (len > nrefuse && !space(s[nrefuse])))
		return ANSWER_NONE;
	rlen = len - nrefuse;
	r = trim(s + nrefuse, &rlen);
	if (rlen > ANSWER_REASON_MAX) {
		/* Back to the start of a character: the cut stays UTF-8. */
		rlen = ANSWER_REASON_MAX;
		while (rlen > 0 && ((unsigned char)r[rlen] & 0xc0) == 0x80)
			rlen--;
		/* The cut may end in spaces: a reason is trimmed. */
		while (rlen > 0 && space(r[rlen - 1]))
			rlen--;
	}
	memcpy(reason, r, rlen);
	reason[rlen] = '\0';
	return ANSWER_REFUSE;
}

static enum answer_verdict
emoji_verdict(const char *name)
{
	if (name == NULL)
		return ANSWER_NONE;
	if (strcmp(name, "white_check_mark") == 0 || strcmp(name, "+1") == 0)
		return ANSWER_APPROVE;
	if (strcmp(name, "x") == 0 || strcmp(name, "-1") == 0)
		return ANSWER_REFUSE;
	return ANSWER_NONE;
}

int
answer_reactions(const struct answer_context *ctx, const json_t *reactions,
    struct answer *a, struct bx_error *err)
{
	struct answer found;
	const json_t *r;
	size_t i;

	/* A post nobody reacted to: [], or null from some servers. */
	if (json_is_null(reactions))
		return 0;
	if (!json_is_array(reactions))
		return bx_fail(err, "the post's reactions are not a JSON "
		    "array");
	json_array_foreach(reactions, i, r) {
		answer_init(&found);
		if (!owner_item(ctx, r, &found.a_at) ||
		    !field_is(r, "post_id", ctx->ac_post))
			continue;
		found.a_verdict = emoji_verdict(string_at(r, "emoji_name"));
		found.a_source = ANSWER_REACTION;
		if (found.a_verdict != ANSWER_NONE && comes_before(&found, a))
			*a = found;
	}
	return 0;
}

/*
 * Whether props (absent, or an object) let a post count: a post made
 * through a webhook, a bot, a plugin or an OAuth app says so with a
 * from_* key, and carries its creator's user id.
 */
static bool
props_plain(const json_t *props)
{
	const char *key;
	json_t *v;

	if (props == NULL)
		return true;
	if (!json_is_object(props))
		return false;
	json_object_foreach((json_t *)props, key, v)
		if (strncmp(key, "from_", 5) == 0)
			return false;
	return true;
}

/* One post of the thread, id its key in "posts", into *found. */
static bool
reply_answer(const struct answer_context *ctx, const char *id,
    const json_t *p, struct answer *found)
{
	const char *message;

	answer_init(found);
	if (!owner_item(ctx, p, &found->a_at) ||
	    !bridge_id_valid(id, strlen(id)) || !field_is(p, "id", id) ||
	    !field_is(p, "root_id", ctx->ac_post) ||
	    !field_is(p, "channel_id", ctx->ac_channel) ||
	    !field_is(p, "type", "") ||
	    !props_plain(json_object_get(p, "props")) ||
	    (message = string_at(p, "message")) == NULL)
		return false;
	found->a_verdict = answer_text(message, found->a_reason);
	found->a_source = ANSWER_REPLY;
	memcpy(found->a_post, id, BRIDGE_ID_LEN + 1);
	return found->a_verdict != ANSWER_NONE;
}

int
answer_thread(const struct answer_context *ctx, const json_t *thread,
    struct answer *a, struct bx_error *err)
{
	const json_t *order, *posts, *idv;
	struct answer found;
	const char *id;
	size_t i;

	order = json_object_get(thread, "order");
	posts = json_object_get(thread, "posts");
	if (!json_is_array(order) || !json_is_object(posts))
		return bx_fail(err, "the post's thread is not a post list "
		    "(an \"order\" array and a \"posts\" object)");
	json_array_foreach(order, i, idv) {
		if (i == ANSWER_THREAD_MAX)
			break;
		if ((id = json_string_value(idv)) == NULL)
			continue;
		if (reply_answer(ctx, id, json_object_get(posts, id),
		    &found) && comes_before(&found, a))
			*a = found;
	}
	return 0;
}
