/*
 * model.h: loopd's client for llama-server's OpenAI-compatible
 * POST /v1/chat/completions (non-streaming, tools as function schemas,
 * tool_choice "auto"), over libcurl.
 *
 * The client is strict about sizes and tolerant about shape: it accepts
 * what a real llama-server sends (arguments as a JSON string, content ""
 * or null beside tool calls, any finish_reason, fields it does not know)
 * and turns everything else (HTTP errors, timeouts, a body that is not
 * JSON, no choices) into an error message a person can act on, quoting
 * the server's error.message and ending with a docs/runbook.md pointer.
 *
 * Arguments are normalized here, once: a call whose arguments hold a JSON
 * object gets that object re-serialized compactly (what the history, the
 * events and brokerd see); any other call keeps the model's text in
 * mc_invalid and gets "{}" as mc_arguments, so that what goes back to the
 * server is always valid JSON and the call itself is never run.
 *
 * The API key, when there is one, is sent as "Authorization: Bearer" and
 * appears in no message.
 *
 * Ownership: model_client_new() allocates the client, model_client_free()
 * frees it (NULL allowed). model_complete() and model_reply_parse()
 * allocate *ret, freed with model_reply_free() (NULL allowed); every string
 * in a reply belongs to it. The caller keeps its messages and tools.
 * curl_global_init() must have been called once by the program.
 */
#ifndef LOOPD_MODEL_H
#define LOOPD_MODEL_H

#include <stdatomic.h>
#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"

/* The request loopd sends, the whole conversation included. */
#define MODEL_MAX_REQUEST	(8 * 1024 * 1024)
/* The body loopd accepts back; a longer one ends the step. */
#define MODEL_MAX_RESPONSE	(4 * 1024 * 1024)
/* Tool calls in one reply. */
#define MODEL_MAX_CALLS		32
/* The base URL in loopd.toml. */
#define MODEL_MAX_URL		2048
/* How much of an error body is quoted in a message. */
#define MODEL_ERROR_QUOTE	200

struct model_client;

struct model_call {
	char	*mc_id;		/* as the model sent it; NULL if it sent none */
	char	*mc_name;
	char	*mc_arguments;	/* a JSON object's compact text, always */
	char	*mc_invalid;	/* NULL, or the model's arguments that are not
				   a JSON object (the call is not run) */
};

struct model_reply {
	char			*mr_content;	/* NULL when null or absent */
	char			*mr_finish;	/* NULL when absent */
	struct model_call	*mr_calls;
	size_t			 mr_ncalls;
	long			 mr_completion_tokens;	/* -1 when not said */
};

/*
 * Called with each piece of the model's text as it arrives (a streamed
 * answer's delta.content): whole UTF-8 characters, never empty, borrowed
 * for the call.
 */
typedef void	model_delta_fn(void *arg, const char *text);

/* model_complete() fails with this when the prompt exceeds the context. */
#define MODEL_CONTEXT_FULL	(-2)
/* ... and with this when its cancel flag ended the request. */
#define MODEL_CANCELLED		(-3)

/*
 * base_url is llama-server's base ("http://127.0.0.1:8080"); model is the
 * name sent in every request; api_key (NULL: none) is copied; timeout_s
 * bounds each silence of the server: the wait for its first byte, and
 * every gap between two pieces of a streamed answer; max_tokens (at least
 * 1) is sent as every request's max_tokens, so that the server stops a
 * step there with finish_reason "length" (its own default is no limit
 * but the context). When cancel is not
 * NULL and becomes non-zero, a request in flight ends (it is
 * read from libcurl's progress callback on the turn's thread, hence an
 * atomic rather than a volatile flag).
 */
int	model_client_new(const char *base_url, const char *model,
	    const char *api_key, int timeout_s, int max_tokens,
	    const atomic_int *cancel, struct model_client **ret,
	    struct bx_error *err);
void	model_client_free(struct model_client *);
/* The max_tokens the client sends. */
int	model_client_max_tokens(const struct model_client *);

/*
 * Sends every request through the Unix socket at path (loopd's jail
 * reaches the model only through the launcher's relay) instead of
 * connecting to the URL's host; the URL still names the host and port for
 * HTTP and TLS, which stay end to end. path is copied.
 */
int	model_client_via(struct model_client *, const char *path,
	    struct bx_error *err);

/* The request body for messages and tools. New reference, or NULL. */
json_t	*model_request(const struct model_client *, const json_t *messages,
	    const json_t *tools);

/*
 * One step: sends messages with tools, asking for a stream, and reads the
 * reply: server-sent events (model_stream.h), each piece of text handed
 * to on_delta (NULL: none) as it arrives, or a whole chat.completion body
 * from a server that answers with one. Returns 0, -1, or
 * MODEL_CONTEXT_FULL (err says the prompt's and the context's sizes).
 * cancel (NULL: none) is this request's own flag beside the client's: the
 * turn's, set when the owner stops it; once non-zero the request ends
 * within a progress tick (libcurl calls progress about once a second, and
 * at every piece received) and fails with MODEL_CANCELLED.
 */
int	model_complete(struct model_client *, const json_t *messages,
	    const json_t *tools, model_delta_fn *on_delta, void *arg,
	    const atomic_int *cancel, struct model_reply **ret,
	    struct bx_error *err);

/* Parses a chat.completion body (len bytes). */
int	model_reply_parse(const char *body, size_t len,
	    struct model_reply **ret, struct bx_error *err);

/*
 * A reply from an assistant message object (content, tool_calls, as in
 * choices[0].message), its finish_reason (NULL: none) and its completion
 * tokens (-1: not said): what a stream's joined chunks become.
 */
int	model_reply_from_message(const json_t *msg, const char *finish,
	    long completion_tokens, struct model_reply **ret,
	    struct bx_error *err);
void	model_reply_free(struct model_reply *);

#endif
