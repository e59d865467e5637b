/*
 * test-fake-gate.c: the fake llama-server refuses what a real one refuses,
 * with the real server's status, type and message (fake_gate.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "fake_gate.h"

/* Checks body; asserts the status, and the error's type and message. */
static void
expect(const struct fake_gate *g, const char *auth, const char *body,
    int status, const char *type, const char *message)
{
	char *out = NULL;
	json_t *root, *error;

	assert_int_equal(fake_gate_check(g, auth, body, &out), status);
	if (status == 0) {
		assert_null(out);
		return;
	}
	root = json_loads(out, 0, NULL);
	assert_non_null(root);
	error = json_object_get(root, "error");
	assert_int_equal(json_integer_value(json_object_get(error, "code")),
	    status);
	assert_string_equal(json_string_value(json_object_get(error, "type")),
	    type);
	if (strstr(json_string_value(json_object_get(error, "message")),
	    message) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", out, message);
	json_decref(root);
	free(out);
}

static void
test_history(void **state)
{
	struct fake_gate g = { 0 };

	(void)state;
	expect(&g, NULL, "{\"messages\":[]}", 0, NULL, NULL);
	expect(&g, NULL, "{\"model\":\"x\"}", 400, "invalid_request_error",
	    "'messages' is required");
	expect(&g, NULL, "{\"model\": \"local\", \"messages\": [", 500,
	    "server_error", "parse error");
	expect(&g, NULL, "{\"messages\":[{\"role\":\"assistant\"}]}", 400,
	    "invalid_request_error", "Assistant message must contain either "
	    "'content' or 'tool_calls'!");
	expect(&g, NULL, "{\"messages\":[{\"role\":\"assistant\","
	    "\"content\":null}]}", 0, NULL, NULL);
	expect(&g, NULL, "{\"messages\":[{\"role\":\"assistant\",\"content\":"
	    "\"\",\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":"
	    "\"clock\",\"arguments\":\"{\"}}]}]}", 500, "server_error",
	    "Failed to parse tool call arguments as JSON");
	expect(&g, NULL, "{\"messages\":[{\"role\":\"assistant\",\"content\":"
	    "\"\",\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":"
	    "\"clock\"}}]}]}", 500, "server_error",
	    "key 'arguments' not found");
	expect(&g, NULL, "{\"messages\":[{\"role\":\"assistant\",\"content\":"
	    "\"\",\"tool_calls\":[{\"id\":\"a\",\"function\":{\"name\":"
	    "\"clock\",\"arguments\":\"{\\n}\"}}]}]}", 0, NULL, NULL);
}

static void
test_api_key(void **state)
{
	struct fake_gate g = { .fg_api_key = "s3cret" };
	const char *body = "{\"messages\":[]}";

	(void)state;
	expect(&g, NULL, body, 401, "authentication_error", "Invalid API Key");
	expect(&g, "Bearer other", body, 401, "authentication_error",
	    "Invalid API Key");
	expect(&g, "Bearer s3cret", body, 0, NULL, NULL);
}

static void
test_router_models(void **state)
{
	struct fake_gate single = { 0 };
	struct fake_gate router = { .fg_models = "tiny-toolcall,qwen" };

	(void)state;
	expect(&single, NULL, "{\"model\":\"no-such-model\",\"messages\":[]}",
	    0, NULL, NULL);
	expect(&router, NULL, "{\"model\":\"local\",\"messages\":[]}", 400,
	    "invalid_request_error", "model 'local' not found");
	expect(&router, NULL, "{\"model\":\"tiny\",\"messages\":[]}", 400,
	    "invalid_request_error", "model 'tiny' not found");
	expect(&router, NULL, "{\"model\":\"qwen\",\"messages\":[]}", 0, NULL,
	    NULL);
}

static void
test_context(void **state)
{
	struct fake_gate g = { .fg_n_ctx = 16 };
	char *out = NULL;
	json_t *root, *error;
	const char *big = "{\"messages\":[{\"role\":\"user\",\"content\":"
	    "\"hello hello hello hello hello hello hello hello\"}]}";

	(void)state;
	expect(&g, NULL, "{\"messages\":[]}", 0, NULL, NULL);
	assert_int_equal(fake_gate_check(&g, NULL, big, &out), 400);
	root = json_loads(out, 0, NULL);
	error = json_object_get(root, "error");
	assert_string_equal(json_string_value(json_object_get(error, "type")),
	    "exceed_context_size_error");
	assert_int_equal(json_integer_value(json_object_get(error,
	    "n_prompt_tokens")), (json_int_t)(strlen(big) /
	    FAKE_GATE_BYTES_PER_TOKEN));
	assert_int_equal(json_integer_value(json_object_get(error, "n_ctx")),
	    16);
	assert_non_null(strstr(json_string_value(json_object_get(error,
	    "message")), "exceeds the available context size (16 tokens)"));
	json_decref(root);
	free(out);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history),
		cmocka_unit_test(test_api_key),
		cmocka_unit_test(test_router_models),
		cmocka_unit_test(test_context),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
