/*
 * test-model.c: the model client against the fake llama-server: what it
 * sends, what it accepts from a real llama-server's replies, and the clear
 * error it gives for each way a reply goes wrong.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "fake_llama.h"
#include "loopd/model.h"

/* What the client sends as max_tokens; not 4096, so that it is this. */
#define MAX_TOKENS	1234

struct fixture {
	struct fake_llama	*fl;
	struct model_client	*mc;
	json_t			*messages;
	json_t			*tools;
};

static void
setup(struct fixture *f, const char *script, int timeout_s)
{
	struct fake_llama_opts opts = { .script = script };
	struct bx_error err;
	char url[64];

	memset(f, 0, sizeof(*f));
	if (fake_llama_start(&opts, &f->fl, &err) == -1)
		fail_msg("%s", err.msg);
	fake_llama_url(f->fl, url, sizeof(url));
	/* A trailing slash is allowed and ignored. */
	strcat(url, "/");
	if (model_client_new(url, "test-model", NULL, timeout_s,
	    MAX_TOKENS, NULL, &f->mc, &err) == -1)
		fail_msg("%s", err.msg);
	f->messages = json_pack("[{s:s, s:s}]", "role", "user", "content",
	    "hello");
	f->tools = json_pack("[{s:s, s:{s:s, s:s, s:{s:s}}}]", "type",
	    "function", "function", "name", "clock", "description", "time",
	    "parameters", "type", "object");
}

static void
teardown(struct fixture *f)
{
	fake_llama_stop(f->fl);
	model_client_free(f->mc);
	json_decref(f->messages);
	json_decref(f->tools);
}

/* Runs one step expecting failure; returns the message. */
static const char *
fails(struct fixture *f, struct bx_error *err)
{
	struct model_reply *r = NULL;

	assert_int_equal(model_complete(f->mc, f->messages, f->tools, NULL,
	    NULL, NULL, &r, err), -1);
	assert_null(r);
	return err->msg;
}

static void
test_request_shape(void **state)
{
	struct model_reply *r = NULL;
	struct fixture f;
	struct bx_error err;
	json_t *req;
	char *body;

	(void)state;
	setup(&f, "[{\"text\":\"hi there\"}]", 30);
	assert_int_equal(model_complete(f.mc, f.messages, f.tools, NULL, NULL,
	    NULL, &r, &err), 0);
	assert_string_equal(r->mr_content, "hi there");
	assert_string_equal(r->mr_finish, "stop");
	assert_int_equal(r->mr_ncalls, 0);
	model_reply_free(r);
	body = fake_llama_request(f.fl, 0);
	req = json_loads(body, JSON_REJECT_DUPLICATES, NULL);
	assert_non_null(req);
	assert_string_equal(json_string_value(json_object_get(req, "model")),
	    "test-model");
	assert_string_equal(json_string_value(json_object_get(req,
	    "tool_choice")), "auto");
	assert_true(json_is_true(json_object_get(req, "stream")));
	assert_int_equal(json_integer_value(json_object_get(req,
	    "max_tokens")), MAX_TOKENS);
	assert_true(json_equal(json_object_get(req, "messages"), f.messages));
	assert_true(json_equal(json_object_get(req, "tools"), f.tools));
	json_decref(req);
	free(body);
	teardown(&f);
}

static void
test_tool_calls_as_llama_sends_them(void **state)
{
	struct model_reply *r = NULL;
	struct fixture f;
	struct bx_error err;

	(void)state;
	setup(&f, "[{\"tool_calls\":[{\"name\":\"clock\",\"arguments\":{}},"
	    "{\"name\":\"call_tool\",\"id\":\"abc\",\"arguments\":"
	    "\"{\\\"name\\\":\\\"read_file\\\"}\"}]}]", 30);
	assert_int_equal(model_complete(f.mc, f.messages, f.tools, NULL, NULL,
	    NULL, &r, &err), 0);
	assert_string_equal(r->mr_content, "");
	assert_string_equal(r->mr_finish, "tool_calls");
	assert_int_equal(r->mr_ncalls, 2);
	assert_string_equal(r->mr_calls[0].mc_name, "clock");
	assert_string_equal(r->mr_calls[0].mc_arguments, "{}");
	assert_non_null(r->mr_calls[0].mc_id);
	assert_string_equal(r->mr_calls[1].mc_id, "abc");
	assert_string_equal(r->mr_calls[1].mc_arguments,
	    "{\"name\":\"read_file\"}");
	model_reply_free(r);
	teardown(&f);
}

/* 32 arrays: inside an object, one level past BX_JSON_MAX_DEPTH. */
#define DEEP	"[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]"

static void
test_reply_variants(void **state)
{
	struct model_reply *r = NULL;
	struct bx_error err;
	const char *body;

	(void)state;
	/* Arguments as an object, content beside tool calls, extra fields. */
	body = "{\"choices\":[{\"message\":{\"role\":\"assistant\",\"content\":"
	    "\"let me look\",\"reasoning_content\":\"hm\",\"tool_calls\":[{"
	    "\"function\":{\"name\":\"clock\",\"arguments\":{\"a\":1}},"
	    "\"extra\":[1,2]}]},\"finish_reason\":\"tool_calls\",\"logprobs\""
	    ":null}],\"new_field\":{}}";
	assert_int_equal(model_reply_parse(body, strlen(body), &r, &err), 0);
	assert_string_equal(r->mr_content, "let me look");
	assert_null(r->mr_calls[0].mc_id);
	assert_string_equal(r->mr_calls[0].mc_arguments, "{\"a\":1}");
	model_reply_free(r);
	r = NULL;
	/* No finish_reason, no arguments, tool_calls null. */
	body = "{\"choices\":[{\"message\":{\"content\":null,\"tool_calls\":"
	    "null}}]}";
	assert_int_equal(model_reply_parse(body, strlen(body), &r, &err), 0);
	assert_null(r->mr_content);
	assert_null(r->mr_finish);
	assert_int_equal(r->mr_ncalls, 0);
	model_reply_free(r);
	r = NULL;
	/*
	 * An object nested deeper than any reader of mc_arguments takes is
	 * kept aside like a string's (fuzz/regress/model-reply).
	 */
	body = "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":"
	    "{\"name\":\"x\",\"arguments\":{\"a\":" DEEP "}}}]}}]}";
	assert_int_equal(model_reply_parse(body, strlen(body), &r, &err), 0);
	assert_string_equal(r->mr_calls[0].mc_arguments, "{}");
	assert_string_equal(r->mr_calls[0].mc_invalid, "{\"a\":" DEEP "}");
	model_reply_free(r);
}

static void
test_reply_refusals(void **state)
{
	static const struct {
		const char	*body;
		const char	*says;
	} cases[] = {
		{ "[]", "not a JSON object" },
		{ "{\"choices\":[]}", "no choices" },
		{ "{\"choices\":{}}", "no choices" },
		{ "{\"choices\":[{}]}", "has no message" },
		{ "{\"choices\":[{\"message\":{\"content\":5}}]}",
		    "message.content" },
		{ "{\"choices\":[{\"message\":{\"tool_calls\":{}}}]}",
		    "not an array" },
		{ "{\"choices\":[{\"message\":{\"tool_calls\":[{}]}}]}",
		    "tool_calls[0] has no \"function\"" },
		{ "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":"
		    "{\"name\":\"\"}}]}}]}", "no \"name\"" },
		{ "{\"choices\":[{\"message\":{\"tool_calls\":[{\"function\":"
		    "{\"name\":\"a\",\"arguments\":[1]}}]}}]}",
		    "neither a string nor an object" },
		{ "{\"a\":1,\"a\":2}", "not JSON" },
	};
	struct model_reply *r = NULL;
	struct bx_error err;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_int_equal(model_reply_parse(cases[i].body,
		    strlen(cases[i].body), &r, &err), -1);
		assert_null(r);
		if (strstr(err.msg, cases[i].says) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", cases[i].body,
			    err.msg, cases[i].says);
	}
}

static void
test_http_errors(void **state)
{
	struct fixture f;
	struct bx_error err;

	(void)state;
	setup(&f, "[{\"status\":500,\"body\":\"{\\\"error\\\":{\\\"code\\\":500,"
	    "\\\"message\\\":\\\"context full\\\"}}\"},"
	    "{\"status\":503,\"body\":\"Loading model\"},"
	    "{\"body\":\"<html>not json</html>\"},"
	    "{\"response\":{\"choices\":[],\"object\":\"chat.completion\"}},"
	    "{\"hangup\":true},"
	    "{\"body\":\"\"}]", 30);
	assert_non_null(strstr(fails(&f, &err), "HTTP 500: \"context full\""));
	assert_non_null(strstr(fails(&f, &err),
	    "HTTP 503: \"Loading model\""));
	assert_non_null(strstr(fails(&f, &err), "not JSON"));
	assert_non_null(strstr(fails(&f, &err), "no choices"));
	assert_non_null(strstr(fails(&f, &err), "could not be reached"));
	assert_non_null(strstr(fails(&f, &err), "empty reply"));
	assert_int_equal(fake_llama_request_count(f.fl), 6);
	teardown(&f);
}

/* The error bodies a real llama-server sent, each quoted with its entry. */
static void
test_real_error_bodies(void **state)
{
	static const struct {
		int		 status;
		const char	*body;
		int		 rc;
		const char	*quote;
		const char	*entry;
	} shapes[] = {
		{ 400, "{\"error\":{\"code\":400,\"message\":\"request (5273 "
		    "tokens) exceeds the available context size (4096 tokens), "
		    "try increasing it\",\"type\":\"exceed_context_size_error\","
		    "\"n_prompt_tokens\":5273,\"n_ctx\":4096}}",
		    MODEL_CONTEXT_FULL, "the prompt is 5273 tokens, the context "
		    "4096", "#context-full" },
		{ 400, "{\"error\":{\"code\":400,\"message\":\"model 'local' "
		    "not found\",\"type\":\"invalid_request_error\"}}", -1,
		    "HTTP 400: \"model 'local' not found\"", "#model-refused" },
		{ 401, "{\"error\":{\"message\":\"Invalid API Key\",\"type\":"
		    "\"authentication_error\",\"code\":401}}", -1,
		    "HTTP 401: \"Invalid API Key\"", "#model-refused" },
		{ 404, "{\"error\":{\"message\":\"File Not Found\",\"type\":"
		    "\"not_found_error\",\"code\":404}}", -1,
		    "HTTP 404: \"File Not Found\"", "#model-unavailable" },
		{ 500, "{\"error\":{\"code\":500,\"message\":\"Failed to parse "
		    "tool call arguments as JSON: [json.exception.parse_error.101]"
		    "\",\"type\":\"server_error\"}}", -1, "HTTP 500: \"Failed to "
		    "parse tool call arguments as JSON", "#model-refused" },
		{ 503, "{\"error\":{\"code\":503,\"message\":\"Loading model\","
		    "\"type\":\"unavailable_error\"}}", -1,
		    "HTTP 503: \"Loading model\"", "#model-unavailable" },
	};
	struct model_reply *r = NULL;
	struct fixture f;
	struct bx_error err;
	json_t *script;
	char *text;
	size_t i;

	(void)state;
	script = json_array();
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++)
		json_array_append_new(script, json_pack("{s:i, s:s}", "status",
		    shapes[i].status, "body", shapes[i].body));
	text = json_dumps(script, JSON_COMPACT);
	json_decref(script);
	setup(&f, text, 30);
	free(text);
	for (i = 0; i < sizeof(shapes) / sizeof(shapes[0]); i++) {
		assert_int_equal(model_complete(f.mc, f.messages, f.tools,
		    NULL, NULL, NULL, &r, &err), shapes[i].rc);
		assert_null(r);
		if (strstr(err.msg, shapes[i].quote) == NULL ||
		    strstr(err.msg, shapes[i].entry) == NULL ||
		    strstr(err.msg, "see docs/runbook.md#") == NULL)
			fail_msg("HTTP %d: \"%s\" lacks \"%s\" or \"%s\"",
			    shapes[i].status, err.msg, shapes[i].quote,
			    shapes[i].entry);
	}
	teardown(&f);
}

/* A URL with /v1 reaches the fake's real 404, which points at the url. */
static void
test_wrong_path(void **state)
{
	struct model_reply *r = NULL;
	struct fake_llama_opts opts = { .script = "[{\"text\":\"x\"}]" };
	struct model_client *mc;
	struct fake_llama *fl;
	struct bx_error err;
	json_t *messages;
	char url[64];

	(void)state;
	assert_int_equal(fake_llama_start(&opts, &fl, &err), 0);
	fake_llama_url(fl, url, sizeof(url) - 4);
	strcat(url, "/v1");
	assert_int_equal(model_client_new(url, "m", NULL, 5, MAX_TOKENS, NULL,
	    &mc, &err), 0);
	messages = json_array();
	assert_int_equal(model_complete(mc, messages, messages, NULL, NULL,
	    NULL, &r, &err), -1);
	assert_non_null(strstr(err.msg, "HTTP 404: \"File Not Found\""));
	assert_non_null(strstr(err.msg, "without /v1"));
	assert_non_null(strstr(err.msg, "docs/runbook.md#model-unavailable"));
	json_decref(messages);
	model_client_free(mc);
	fake_llama_stop(fl);
}

static void
test_timeout(void **state)
{
	struct fixture f;
	struct bx_error err;

	(void)state;
	setup(&f, "[{\"delay_ms\":4000,\"text\":\"late\"}]", 1);
	assert_non_null(strstr(fails(&f, &err), "did not answer within 1 s"));
	teardown(&f);
}

static void
test_size_limits(void **state)
{
	struct model_reply *r;
	struct fixture f;
	struct bx_error err;
	json_t *script;
	char *big, *text;

	(void)state;
	big = malloc(MODEL_MAX_REQUEST + 2);
	assert_non_null(big);
	memset(big, 'x', MODEL_MAX_REQUEST + 1);
	big[MODEL_MAX_RESPONSE + 1] = '\0';
	script = json_pack("[{s:s}]", "text", big);
	text = json_dumps(script, JSON_COMPACT);
	setup(&f, text, 30);
	/* The message, when it is another: a timeout under load says so. */
	if (strstr(fails(&f, &err), "larger than") == NULL)
		fail_msg("a reply over the limit failed otherwise: %s", err.msg);
	assert_int_equal(fake_llama_request_count(f.fl), 1);

	/*
	 * A request over the limit is refused before it is sent, as a full
	 * context is: the turn that made it so is not to be kept.
	 */
	json_decref(f.messages);
	big[MODEL_MAX_RESPONSE + 1] = 'x';
	big[MODEL_MAX_REQUEST] = '\0';
	f.messages = json_pack("[{s:s, s:s}]", "role", "user", "content", big);
	r = NULL;
	assert_int_equal(model_complete(f.mc, f.messages, f.tools, NULL, NULL,
	    NULL, &r, &err), MODEL_CONTEXT_FULL);
	assert_null(r);
	assert_non_null(strstr(err.msg, "the session is too long; this turn "
	    "was not kept; see docs/runbook.md#context-full"));
	assert_int_equal(fake_llama_request_count(f.fl), 1);
	teardown(&f);
	json_decref(script);
	free(text);
	free(big);
}

static void
test_unreachable_and_bad_config(void **state)
{
	struct model_client *mc = NULL;
	struct model_reply *r = NULL;
	struct fixture f;
	struct bx_error err;
	char url[64];

	(void)state;
	setup(&f, "[]", 30);
	fake_llama_url(f.fl, url, sizeof(url));
	fake_llama_stop(f.fl);
	f.fl = NULL;
	model_client_free(f.mc);
	assert_int_equal(model_client_new(url, "m", NULL, 5, MAX_TOKENS, NULL,
	    &f.mc, &err), 0);
	assert_int_equal(model_complete(f.mc, f.messages, f.tools, NULL, NULL,
	    NULL, &r, &err), -1);
	assert_non_null(strstr(err.msg, "could not be reached"));
	teardown(&f);

	assert_int_equal(model_client_new("ftp://x", "m", NULL, 5, MAX_TOKENS,
	    NULL, &mc, &err), -1);
	assert_non_null(strstr(err.msg, "http://"));
	assert_int_equal(model_client_new("http://x", "m", NULL, 0, MAX_TOKENS,
	    NULL, &mc, &err), -1);
	assert_null(mc);
	assert_int_equal(model_client_new("http://x", "m", NULL, 5, 0, NULL,
	    &mc, &err), -1);
	assert_non_null(strstr(err.msg, "max_tokens must be at least 1"));
	assert_null(mc);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_request_shape),
		cmocka_unit_test(test_tool_calls_as_llama_sends_them),
		cmocka_unit_test(test_reply_variants),
		cmocka_unit_test(test_reply_refusals),
		cmocka_unit_test(test_http_errors),
		cmocka_unit_test(test_real_error_bodies),
		cmocka_unit_test(test_wrong_path),
		cmocka_unit_test(test_timeout),
		cmocka_unit_test(test_size_limits),
		cmocka_unit_test(test_unreachable_and_bad_config),
	};

	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
