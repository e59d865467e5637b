/*
 * model_reply.c: reading a chat.completion body into a struct model_reply.
 * Tolerant of what llama-server adds (unknown fields are ignored) and of
 * the two ways arguments arrive (a JSON string, as llama-server sends
 * them, or an object); every other surprise is an error naming the field.
 * Arguments that hold no JSON object (a call cut off at the length limit
 * sends "{") are kept aside in mc_invalid, never in mc_arguments.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/json.h"
#include "loopd/model.h"

static char *
dup_or_null(const char *s)
{
	return s == NULL ? NULL : strdup(s);
}

void
model_reply_free(struct model_reply *r)
{
	size_t i;

	if (r == NULL)
		return;
	for (i = 0; i < r->mr_ncalls; i++) {
		free(r->mr_calls[i].mc_id);
		free(r->mr_calls[i].mc_name);
		free(r->mr_calls[i].mc_arguments);
		free(r->mr_calls[i].mc_invalid);
	}
	free(r->mr_calls);
	free(r->mr_content);
	free(r->mr_finish);
	free(r);
}

/*
 * Fills mc_arguments with the compact text of the object args holds, or
 * "{}" with the model's own text in mc_invalid. An object is held to the
 * depth a string's text is (BX_JSON_MAX_DEPTH), since every later reader
 * parses mc_arguments with bx_json_parse. Fails only on memory.
 */
static int
normalize_arguments(const json_t *args, struct model_call *mc)
{
	json_t *obj = NULL;
	const char *text = "";
	char *dumped = NULL;

	if (args == NULL || json_is_null(args))
		obj = json_object();
	else if (json_is_object(args)) {
		if ((dumped = json_dumps(args, JSON_COMPACT |
		    JSON_PRESERVE_ORDER)) == NULL)
			return -1;
		if (bx_json_depth_check(dumped, strlen(dumped),
		    BX_JSON_MAX_DEPTH, NULL) == 0)
			obj = json_incref((json_t *)args);
		text = dumped;
	} else if (json_is_string(args)) { /* obj only if it holds an object */
		(void)bx_json_parse(json_string_value(args),
		    json_string_length(args), &obj, NULL);
		text = json_string_value(args);
	}
	if (obj != NULL) {
		mc->mc_arguments = json_dumps(obj, JSON_COMPACT |
		    JSON_PRESERVE_ORDER);
		json_decref(obj);
		free(dumped);
		return mc->mc_arguments == NULL ? -1 : 0;
	}
	mc->mc_invalid = strdup(text);
	mc->mc_arguments = strdup("{}");
	free(dumped);
	return mc->mc_invalid == NULL || mc->mc_arguments == NULL ? -1 : 0;
}

static int
parse_call(const json_t *tc, size_t i, struct model_call *mc,
    struct bx_error *err)
{
	json_t *fn, *name, *args, *id;

	fn = json_object_get(tc, "function");
	if (!json_is_object(fn))
		return bx_fail(err, "the model's reply: tool_calls[%zu] has no "
		    "\"function\" object", i);
	name = json_object_get(fn, "name");
	if (!json_is_string(name) || json_string_length(name) == 0)
		return bx_fail(err, "the model's reply: tool_calls[%zu].function"
		    " has no \"name\" string", i);
	args = json_object_get(fn, "arguments");
	if (args != NULL && !json_is_null(args) && !json_is_string(args) &&
	    !json_is_object(args))
		return bx_fail(err, "the model's reply: tool_calls[%zu].function"
		    ".arguments is neither a string nor an object", i);
	id = json_object_get(tc, "id");
	mc->mc_id = dup_or_null(json_string_value(id));
	mc->mc_name = strdup(json_string_value(name));
	if (normalize_arguments(args, mc) == -1 || mc->mc_name == NULL ||
	    (json_is_string(id) && mc->mc_id == NULL))
		return bx_fail(err, "out of memory");
	return 0;
}

static int
parse_message(const json_t *msg, const char *finish, struct model_reply *r,
    struct bx_error *err)
{
	json_t *content, *calls, *tc;
	size_t i;

	content = json_object_get(msg, "content");
	if (content != NULL && !json_is_null(content) &&
	    !json_is_string(content))
		return bx_fail(err, "the model's reply: message.content is "
		    "neither a string nor null");
	if (json_is_string(content) &&
	    (r->mr_content = strdup(json_string_value(content))) == NULL)
		return bx_fail(err, "out of memory");
	if (finish != NULL && (r->mr_finish = strdup(finish)) == NULL)
		return bx_fail(err, "out of memory");
	calls = json_object_get(msg, "tool_calls");
	if (calls == NULL || json_is_null(calls))
		return 0;
	if (!json_is_array(calls))
		return bx_fail(err, "the model's reply: message.tool_calls is "
		    "not an array");
	if (json_array_size(calls) > MODEL_MAX_CALLS)
		return bx_fail(err, "the model's reply has %zu tool calls; at "
		    "most %d are taken in one step", json_array_size(calls),
		    MODEL_MAX_CALLS);
	if (json_array_size(calls) == 0)
		return 0;
	r->mr_calls = calloc(json_array_size(calls), sizeof(*r->mr_calls));
	if (r->mr_calls == NULL)
		return bx_fail(err, "out of memory");
	json_array_foreach(calls, i, tc) {
		r->mr_ncalls = i + 1;
		if (parse_call(tc, i, &r->mr_calls[i], err) == -1)
			return -1;
	}
	return 0;
}

int
model_reply_from_message(const json_t *msg, const char *finish,
    long completion_tokens, struct model_reply **ret, struct bx_error *err)
{
	struct model_reply *r;

	if ((r = calloc(1, sizeof(*r))) == NULL)
		return bx_fail(err, "out of memory");
	if (parse_message(msg, finish, r, err) == -1) {
		model_reply_free(r);
		return -1;
	}
	r->mr_completion_tokens = completion_tokens;
	*ret = r;
	return 0;
}

int
model_reply_parse(const char *body, size_t len, struct model_reply **ret,
    struct bx_error *err)
{
	json_t *root, *choices, *choice, *msg, *tokens;
	json_error_t jerr;
	int status = -1;

	root = json_loadb(body, len, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return bx_fail(err, "the model's reply is not JSON (%s, at "
		    "byte %d)", jerr.text, jerr.position);
	if (!json_is_object(root)) {
		bx_fail(err, "the model's reply is not a JSON object");
		goto out;
	}
	choices = json_object_get(root, "choices");
	if (!json_is_array(choices) || json_array_size(choices) == 0) {
		bx_fail(err, "the model's reply has no choices");
		goto out;
	}
	choice = json_array_get(choices, 0);
	msg = json_object_get(choice, "message");
	if (!json_is_object(msg)) {
		bx_fail(err, "the model's reply: choices[0] has no message");
		goto out;
	}
	tokens = json_object_get(json_object_get(root, "usage"),
	    "completion_tokens");
	status = model_reply_from_message(msg, json_string_value(
	    json_object_get(choice, "finish_reason")), json_is_integer(tokens) ?
	    (long)json_integer_value(tokens) : -1, ret, err);
out:
	json_decref(root);
	return status;
}
