/*
 * fake_reply.c: the fake llama-server's replies, in the shape a real
 * llama-server sends them: arguments as a JSON string, content "" beside
 * tool calls, ids of 32 letters and digits, finish_reason tool_calls or
 * stop (or as the script says), and the extra fields (usage, timings,
 * system_fingerprint) a strict client might trip on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_reply.h"

static const char *const reply_keys[] = {
	"text", "tool_calls", "content", "status", "body", "response",
	"hangup", "delay_ms", "hold", "repeat", "finish_reason", "stream",
	"stall", "chunk_ms", "endless", NULL
};
static const char *const call_keys[] = { "name", "arguments", "id", NULL };

static int
known(const char *key, const char *const *keys)
{
	for (; *keys != NULL; keys++)
		if (strcmp(key, *keys) == 0)
			return 1;
	return 0;
}

static int
check_call(const json_t *call, size_t i, size_t j, struct bx_error *err)
{
	const char *key;
	json_t *value;

	if (!json_is_object(call))
		return bx_fail(err, "reply %zu: tool call %zu is not an object",
		    i, j);
	json_object_foreach((json_t *)call, key, value) {
		if (!known(key, call_keys))
			return bx_fail(err, "reply %zu: tool call %zu: unknown "
			    "key \"%s\"", i, j, key);
	}
	if (!json_is_string(json_object_get(call, "name")))
		return bx_fail(err, "reply %zu: tool call %zu: \"name\" must "
		    "be a string", i, j);
	value = json_object_get(call, "arguments");
	if (value != NULL && !json_is_string(value) && !json_is_object(value))
		return bx_fail(err, "reply %zu: tool call %zu: \"arguments\" "
		    "must be an object or a string", i, j);
	return 0;
}

static int
check_reply(const json_t *reply, size_t i, struct bx_error *err)
{
	const char *key;
	json_t *value, *calls;
	size_t j;

	if (!json_is_object(reply))
		return bx_fail(err, "reply %zu is not an object", i);
	json_object_foreach((json_t *)reply, key, value) {
		if (!known(key, reply_keys))
			return bx_fail(err, "reply %zu: unknown key \"%s\"", i,
			    key);
	}
	value = json_object_get(reply, "text");
	if (value != NULL && !json_is_string(value))
		return bx_fail(err, "reply %zu: \"text\" must be a string", i);
	value = json_object_get(reply, "hold");
	if (value != NULL && !json_is_boolean(value))
		return bx_fail(err, "reply %zu: \"hold\" must be true or false",
		    i);
	value = json_object_get(reply, "stream");
	if (value != NULL && !json_is_string(value))
		return bx_fail(err, "reply %zu: \"stream\" must be a string",
		    i);
	value = json_object_get(reply, "chunk_ms");
	if (value != NULL && (!json_is_integer(value) ||
	    json_integer_value(value) < 0 || json_integer_value(value) > 10000))
		return bx_fail(err, "reply %zu: \"chunk_ms\" must be 0 to 10000",
		    i);
	value = json_object_get(reply, "endless");
	if (value != NULL && !json_is_boolean(value))
		return bx_fail(err, "reply %zu: \"endless\" must be true or "
		    "false", i);
	value = json_object_get(reply, "stall");
	if (value != NULL && !json_is_boolean(value))
		return bx_fail(err, "reply %zu: \"stall\" must be true or "
		    "false", i);
	value = json_object_get(reply, "body");
	if (value != NULL && !json_is_string(value))
		return bx_fail(err, "reply %zu: \"body\" must be a string", i);
	value = json_object_get(reply, "response");
	if (value != NULL && !json_is_object(value))
		return bx_fail(err, "reply %zu: \"response\" must be an object",
		    i);
	calls = json_object_get(reply, "tool_calls");
	if (calls != NULL && !json_is_array(calls))
		return bx_fail(err, "reply %zu: \"tool_calls\" must be an array",
		    i);
	json_array_foreach(calls, j, value) {
		if (check_call(value, i, j, err) == -1)
			return -1;
	}
	if (json_object_get(reply, "text") == NULL && calls == NULL &&
	    json_object_get(reply, "body") == NULL &&
	    json_object_get(reply, "response") == NULL &&
	    json_object_get(reply, "stream") == NULL &&
	    !json_is_true(json_object_get(reply, "endless")) &&
	    !json_is_true(json_object_get(reply, "hangup")))
		return bx_fail(err, "reply %zu: needs one of text, tool_calls, "
		    "body, response, stream, endless or hangup", i);
	return 0;
}

int
fake_reply_check_script(const json_t *script, struct bx_error *err)
{
	json_t *reply;
	size_t i;

	if (!json_is_array(script))
		return bx_fail(err, "the script must be a JSON array of replies");
	json_array_foreach(script, i, reply) {
		if (check_reply(reply, i, err) == -1)
			return -1;
	}
	return 0;
}

/* A call id like llama-server's: 32 letters and digits, here from n, j. */
static void
generate_id(size_t n, size_t j, char buf[33])
{
	static const char alnum[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned long long x = (unsigned long long)(n * 131 + j + 1) *
	    0x9E3779B97F4A7C15ULL;
	size_t i;

	for (i = 0; i < 32; i++) {
		x ^= x >> 29;
		x *= 0xBF58476D1CE4E5B9ULL;
		buf[i] = alnum[(x >> 32) % (sizeof(alnum) - 1)];
	}
	buf[32] = '\0';
}

static json_t *
build_call(const json_t *call, size_t n, size_t j)
{
	json_t *args = json_object_get(call, "arguments"), *id, *out;
	char gen[33];
	char *text;

	if (json_is_string(args))
		text = strdup(json_string_value(args));
	else if (args != NULL)
		text = json_dumps(args, JSON_COMPACT | JSON_PRESERVE_ORDER);
	else
		text = strdup("{}");
	if (text == NULL)
		return NULL;
	id = json_object_get(call, "id");
	generate_id(n, j, gen);
	out = json_pack("{s:s, s:{s:O, s:s}, s:s}",
	    "type", "function",
	    "function", "name", json_object_get(call, "name"),
	    "arguments", text,
	    "id", json_is_string(id) ? json_string_value(id) : gen);
	free(text);
	return out;
}

static json_t *
build_message(const json_t *reply, size_t n, const char **ret_finish)
{
	json_t *calls = json_object_get(reply, "tool_calls"), *out, *c;
	json_t *content = json_object_get(reply, "content");
	size_t j;

	if (calls == NULL) {
		*ret_finish = "stop";
		/* An endless reply has no text: null, never sent whole. */
		return json_pack("{s:s, s:O?}", "role", "assistant", "content",
		    json_object_get(reply, "text"));
	}
	*ret_finish = "tool_calls";
	if ((out = json_array()) == NULL)
		return NULL;
	json_array_foreach(calls, j, c) {
		if (json_array_append_new(out, build_call(c, n, j)) == -1) {
			json_decref(out);
			return NULL;
		}
	}
	if (content != NULL)
		return json_pack("{s:s, s:O, s:o}", "role", "assistant",
		    "content", content, "tool_calls", out);
	return json_pack("{s:s, s:s, s:o}", "role", "assistant", "content", "",
	    "tool_calls", out);
}

json_t *
fake_reply_build(const json_t *reply, const char *request_body, size_t n)
{
	json_t *given = json_object_get(reply, "response"), *req, *model;
	json_t *finish_override = json_object_get(reply, "finish_reason");
	const char *finish;
	json_t *msg, *body;
	char id[64];

	if (given != NULL)
		return json_deep_copy(given);
	if ((msg = build_message(reply, n, &finish)) == NULL)
		return NULL;
	if (json_is_string(finish_override))
		finish = json_string_value(finish_override);
	req = json_loads(request_body, 0, NULL);
	model = json_object_get(req, "model");
	snprintf(id, sizeof(id), "chatcmpl-fake%zu", n);
	body = json_pack("{s:[{s:s, s:i, s:o}], s:i, s:s, s:s, s:s, "
	    "s:{s:i, s:i, s:i}, s:s, s:{s:i, s:f, s:i, s:f}}",
	    "choices", "finish_reason", finish, "index", 0, "message", msg,
	    "created", 1758200000 + (int)n,
	    "model", json_is_string(model) ? json_string_value(model) : "fake",
	    "system_fingerprint", "b0000-fake",
	    "object", "chat.completion",
	    "usage", "completion_tokens", 8, "prompt_tokens", 64,
	    "total_tokens", 72,
	    "id", id,
	    "timings", "prompt_n", 64, "prompt_ms", 12.5, "predicted_n", 8,
	    "predicted_ms", 40.0);
	json_decref(req);
	return body;
}
