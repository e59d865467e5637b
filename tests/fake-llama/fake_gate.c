/*
 * fake_gate.c: a real llama-server's refusals (see fake_gate.h), with its
 * exact wording, so loopd is tested against what it will really meet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "fake_gate.h"

static int
refuse(int status, const char *type, const char *message, char **ret_body)
{
	json_t *body;

	body = json_pack("{s:{s:i, s:s, s:s}}", "error", "code", status,
	    "message", message, "type", type);
	*ret_body = body == NULL ? NULL : json_dumps(body, JSON_COMPACT);
	json_decref(body);
	return *ret_body == NULL ? 500 : status;
}

static int
served(const char *models, const char *name)
{
	size_t len = strlen(name);
	const char *p = models;

	while (p != NULL && *p != '\0') {
		if (strncmp(p, name, len) == 0 && (p[len] == ',' ||
		    p[len] == '\0'))
			return 1;
		p = strchr(p, ',');
		if (p != NULL)
			p++;
	}
	return 0;
}

/* The history checks: 0, or a status with its body. */
static int
check_history(const json_t *messages, char **ret_body)
{
	json_t *msg, *calls, *call, *fn, *args, *parsed;
	const char *role;
	size_t i, j;

	json_array_foreach(messages, i, msg) {
		calls = json_object_get(msg, "tool_calls");
		role = json_string_value(json_object_get(msg, "role"));
		if (role != NULL && strcmp(role, "assistant") == 0 &&
		    json_object_get(msg, "content") == NULL && calls == NULL)
			return refuse(400, "invalid_request_error", "Assistant "
			    "message must contain either 'content' or "
			    "'tool_calls'!", ret_body);
		json_array_foreach(calls, j, call) {
			fn = json_object_get(call, "function");
			args = json_object_get(fn, "arguments");
			if (args == NULL)
				return refuse(500, "server_error", "Failed to "
				    "parse messages: [json.exception.out_of_"
				    "range.403] key 'arguments' not found",
				    ret_body);
			parsed = json_is_string(args) ? json_loads(
			    json_string_value(args), JSON_DECODE_ANY, NULL) :
			    json_incref(args);
			if (parsed == NULL)
				return refuse(500, "server_error", "Failed to "
				    "parse tool call arguments as JSON: [json."
				    "exception.parse_error.101] parse error",
				    ret_body);
			json_decref(parsed);
		}
	}
	return 0;
}

static int
context_full(long prompt, long n_ctx, char **ret_body)
{
	char message[160];
	json_t *body;

	snprintf(message, sizeof(message), "request (%ld tokens) exceeds the "
	    "available context size (%ld tokens), try increasing it", prompt,
	    n_ctx);
	body = json_pack("{s:{s:i, s:s, s:s, s:I, s:I}}", "error", "code", 400,
	    "message", message, "type", "exceed_context_size_error",
	    "n_prompt_tokens", (json_int_t)prompt, "n_ctx", (json_int_t)n_ctx);
	*ret_body = body == NULL ? NULL : json_dumps(body, JSON_COMPACT);
	json_decref(body);
	return *ret_body == NULL ? 500 : 400;
}

int
fake_gate_check(const struct fake_gate *g, const char *authorization,
    const char *body, char **ret_body)
{
	char want[512], message[320];
	json_t *req;
	const char *model;
	long prompt = (long)(strlen(body) / FAKE_GATE_BYTES_PER_TOKEN);
	int r = 0;

	snprintf(want, sizeof(want), "Bearer %s", g->fg_api_key != NULL ?
	    g->fg_api_key : "");
	if (g->fg_api_key != NULL && (authorization == NULL ||
	    strcmp(authorization, want) != 0))
		return refuse(401, "authentication_error", "Invalid API Key",
		    ret_body);
	if ((req = json_loads(body, 0, NULL)) == NULL)
		return refuse(500, "server_error", "[json.exception.parse_error"
		    ".101] parse error", ret_body);
	model = json_string_value(json_object_get(req, "model"));
	if (g->fg_models != NULL && (model == NULL ||
	    !served(g->fg_models, model))) {
		snprintf(message, sizeof(message), "model '%.200s' not found",
		    model != NULL ? model : "");
		r = refuse(400, "invalid_request_error", message, ret_body);
	} else if (!json_is_array(json_object_get(req, "messages")))
		r = refuse(400, "invalid_request_error", "'messages' is "
		    "required", ret_body);
	else
		r = check_history(json_object_get(req, "messages"), ret_body);
	if (r == 0 && g->fg_n_ctx > 0 && prompt > g->fg_n_ctx)
		r = context_full(prompt, g->fg_n_ctx, ret_body);
	json_decref(req);
	return r;
}
