/*
 * fake_gate.h: what a real llama-server refuses before it generates
 * anything, with the exact bodies it sends (recorded from llama.cpp's
 * llama-server, --jinja, Qwen2.5 template):
 *
 *	--api-key K, no or another key    401 authentication_error
 *	router mode, a model not served   400 "model 'X' not found"
 *	a prompt past the context         400 exceed_context_size_error with
 *	                                  n_prompt_tokens and n_ctx
 *	no "messages"                     400 "'messages' is required"
 *	an assistant message with neither content nor tool_calls
 *	                                  400 invalid_request_error
 *	a tool call without arguments     500 "key 'arguments' not found"
 *	a tool call whose arguments are not JSON
 *	                                  500 "Failed to parse tool call
 *	                                  arguments as JSON"
 *
 * The history checks always apply (a real server always makes them); the
 * others only when configured. The fake counts a prompt's tokens as its
 * request body's bytes divided by FAKE_GATE_BYTES_PER_TOKEN.
 *
 * Ownership: fake_gate_check() sets *ret_body to a malloc'd body the
 * caller frees, only when it returns a status.
 */
#ifndef FAKE_GATE_H
#define FAKE_GATE_H

#define FAKE_GATE_BYTES_PER_TOKEN	4

struct fake_gate {
	const char	*fg_api_key;	/* NULL: no key is asked for */
	const char	*fg_models;	/* NULL: a single-model server; else
					   router mode, the names served,
					   comma-separated */
	long		 fg_n_ctx;	/* 0: no context limit */
};

/* 0 to answer from the script, else the HTTP status to refuse with. */
int	fake_gate_check(const struct fake_gate *, const char *authorization,
	    const char *body, char **ret_body);

#endif
