/*
 * model.c: one model step over HTTP with libcurl. Each request uses its
 * own easy handle, so several turns may call the model at once; sizes are
 * bounded both ways (MODEL_MAX_REQUEST, MODEL_MAX_RESPONSE), redirects are
 * not followed, and every silence of the server is bounded by timeout_s
 * (a streamed answer may take longer than that as a whole, as long as it
 * keeps coming). The answer is read as a stream when the server says
 * text/event-stream (model_stream.h), as one body otherwise. Every
 * failure names the runbook entry for what the owner can do about it:
 * model-unavailable (nothing answers there, or not as llama-server),
 * model-refused (the server refused the request, its key or its model
 * name), context-full (the conversation no longer fits).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <curl/curl.h>

#include "loopd/model.h"
#include "loopd/model_stream.h"

#define COMPLETIONS_PATH	"/v1/chat/completions"
#define BEARER			"Authorization: Bearer "
#define RUNBOOK_UNAVAILABLE	"see docs/runbook.md#model-unavailable"
#define RUNBOOK_REFUSED		"see docs/runbook.md#model-refused"
#define RUNBOOK_CONTEXT		"see docs/runbook.md#context-full"

struct model_client {
	char				*mc_url;	/* the full endpoint */
	char				*mc_model;
	char				*mc_auth;	/* its header, or NULL */
	char				*mc_via;	/* a Unix socket, or NULL */
	long				 mc_timeout_s;
	int				 mc_max_tokens;
	const atomic_int		*mc_cancel;
};

/* How the answer's body is being read, decided by its first bytes. */
enum body_mode {
	BODY_UNKNOWN,
	BODY_WHOLE,		/* one JSON body, or an error's */
	BODY_STREAM		/* server-sent events, fed to b_stream */
};

/* One request's answer as it arrives. */
struct body {
	const struct model_client	*b_mc;
	CURL				*b_curl;
	enum body_mode			 b_mode;
	char				*b_data;	/* BODY_WHOLE */
	size_t				 b_len;		/* bytes received */
	bool				 b_too_large;
	struct model_stream		*b_stream;
	struct bx_error			 b_stream_err;
	bool				 b_stream_failed;
	struct timespec			 b_last;	/* the last byte */
	bool				 b_silent;	/* timeout_s passed */
	const atomic_int		*b_cancel;	/* the turn's, or NULL */
	bool				 b_cancelled;	/* b_cancel ended it */
};

int
model_client_new(const char *base_url, const char *model,
    const char *api_key, int timeout_s, int max_tokens,
    const atomic_int *cancel, struct model_client **ret,
    struct bx_error *err)
{
	struct model_client *mc;
	size_t len = strlen(base_url);

	if (len == 0 || len > MODEL_MAX_URL)
		return bx_fail(err, "model url must be 1 to %d bytes",
		    MODEL_MAX_URL);
	if (strncmp(base_url, "http://", 7) != 0 &&
	    strncmp(base_url, "https://", 8) != 0)
		return bx_fail(err, "model url \"%s\" must start with http:// "
		    "or https://", base_url);
	if (timeout_s < 1)
		return bx_fail(err, "model timeout_s must be at least 1");
	if (max_tokens < 1)
		return bx_fail(err, "model max_tokens must be at least 1");
	while (len > 0 && base_url[len - 1] == '/')
		len--;
	if ((mc = calloc(1, sizeof(*mc))) == NULL ||
	    (mc->mc_url = malloc(len + sizeof(COMPLETIONS_PATH))) == NULL ||
	    (mc->mc_model = strdup(model)) == NULL ||
	    (api_key != NULL && asprintf(&mc->mc_auth, BEARER "%s",
	    api_key) == -1)) {
		if (mc != NULL)
			mc->mc_auth = NULL;
		model_client_free(mc);
		return bx_fail(err, "out of memory");
	}
	memcpy(mc->mc_url, base_url, len);
	memcpy(mc->mc_url + len, COMPLETIONS_PATH, sizeof(COMPLETIONS_PATH));
	mc->mc_timeout_s = timeout_s;
	mc->mc_max_tokens = max_tokens;
	mc->mc_cancel = cancel;
	*ret = mc;
	return 0;
}

void
model_client_free(struct model_client *mc)
{
	if (mc == NULL)
		return;
	free(mc->mc_url);
	free(mc->mc_model);
	free(mc->mc_via);
	if (mc->mc_auth != NULL)
		explicit_bzero(mc->mc_auth, strlen(mc->mc_auth));
	free(mc->mc_auth);
	free(mc);
}

int
model_client_max_tokens(const struct model_client *mc)
{
	return mc->mc_max_tokens;
}

int
model_client_via(struct model_client *mc, const char *path,
    struct bx_error *err)
{
	char *copy;

	if ((copy = strdup(path)) == NULL)
		return bx_fail(err, "out of memory");
	free(mc->mc_via);
	mc->mc_via = copy;
	return 0;
}

json_t *
model_request(const struct model_client *mc, const json_t *messages,
    const json_t *tools)
{
	return json_pack("{s:s, s:O, s:O, s:s, s:b, s:i}",
	    "model", mc->mc_model,
	    "messages", messages,
	    "tools", tools,
	    "tool_choice", "auto",
	    "stream", 1,
	    "max_tokens", mc->mc_max_tokens);
}

static void
now(struct timespec *ts)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
}

/* A 200 answer that says text/event-stream is read as a stream. */
static void
choose_mode(struct body *b)
{
	const char *type = NULL;
	long status = 0;

	b->b_mode = BODY_WHOLE;
	curl_easy_getinfo(b->b_curl, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_getinfo(b->b_curl, CURLINFO_CONTENT_TYPE, &type);
	if (status == 200 && type != NULL &&
	    strncasecmp(type, "text/event-stream", 17) == 0 &&
	    b->b_stream != NULL)
		b->b_mode = BODY_STREAM;
}

static size_t
keep_whole(struct body *b, const char *ptr, size_t add)
{
	char *grown;

	if ((grown = realloc(b->b_data, b->b_len + add + 1)) == NULL)
		return 0;
	memcpy(grown + b->b_len, ptr, add);
	grown[b->b_len + add] = '\0';
	b->b_data = grown;
	return add;
}

static size_t
collect(char *ptr, size_t size, size_t n, void *arg)
{
	struct body *b = arg;
	size_t add = size * n;

	now(&b->b_last);
	if (b->b_mode == BODY_UNKNOWN)
		choose_mode(b);
	if (b->b_len + add > MODEL_MAX_RESPONSE) {
		b->b_too_large = true;
		return 0;
	}
	if (b->b_mode == BODY_STREAM) {
		if (model_stream_feed(b->b_stream, ptr, add,
		    &b->b_stream_err) == -1) {
			b->b_stream_failed = true;
			return 0;
		}
	} else if (keep_whole(b, ptr, add) != add)
		return 0;
	b->b_len += add;
	return add;
}

/*
 * Cancels on loopd's stop, on the turn's cancel, and when the server has
 * been silent too long.
 */
static int
progress(void *arg, curl_off_t dltotal, curl_off_t dlnow, curl_off_t ultotal,
    curl_off_t ulnow)
{
	struct body *b = arg;
	const struct model_client *mc = b->b_mc;
	struct timespec t;
	long ms;

	(void)dltotal;
	(void)dlnow;
	(void)ultotal;
	(void)ulnow;
	if (mc->mc_cancel != NULL && atomic_load(mc->mc_cancel) != 0)
		return 1;
	if (b->b_cancel != NULL && atomic_load(b->b_cancel) != 0) {
		b->b_cancelled = true;
		return 1;
	}
	now(&t);
	ms = (long)(t.tv_sec - b->b_last.tv_sec) * 1000 +
	    (t.tv_nsec - b->b_last.tv_nsec) / 1000000;
	if (ms >= mc->mc_timeout_s * 1000) {
		b->b_silent = true;
		return 1;
	}
	return 0;
}

/* What the owner can do about an HTTP error status, with its entry. */
static const char *
http_hint(long status)
{
	if (status == 401 || status == 403)
		return "llama-server wants the key it was started with "
		    "(--api-key) in [model] api_key_file; " RUNBOOK_REFUSED;
	if (status == 404)
		return "[model] url must be llama-server's base URL, without "
		    "/v1; " RUNBOOK_UNAVAILABLE;
	if (status >= 400 && status <= 500)
		return "the server refused this request (a model name it does "
		    "not serve, or a history it cannot read); this step was "
		    "not kept; " RUNBOOK_REFUSED;
	return "the server is not able to answer now; " RUNBOOK_UNAVAILABLE;
}

/* A 400 exceed_context_size_error: the sizes it gives, in the message. */
static int
context_full(const struct model_client *mc, const json_t *error,
    struct bx_error *err)
{
	json_t *prompt = json_object_get(error, "n_prompt_tokens");
	json_t *ctx = json_object_get(error, "n_ctx");

	bx_fail(err, "the conversation no longer fits the model's context: "
	    "the prompt is %lld tokens, the context %lld (the model server %s "
	    "answered HTTP 400: \"%.*s\"); this turn was not kept; "
	    RUNBOOK_CONTEXT, (long long)json_integer_value(prompt),
	    (long long)json_integer_value(ctx), mc->mc_url, MODEL_ERROR_QUOTE,
	    json_string_value(json_object_get(error, "message")));
	return MODEL_CONTEXT_FULL;
}

/* An HTTP error: the server's own message when it sent one, else a quote. */
static int
http_error(const struct model_client *mc, long status, const struct body *b,
    struct bx_error *err)
{
	json_t *root, *error, *msg;
	int r;

	root = b->b_data == NULL ? NULL : json_loadb(b->b_data, b->b_len,
	    JSON_REJECT_DUPLICATES, NULL);
	error = json_object_get(root, "error");
	msg = json_object_get(error, "message");
	if (json_is_string(msg) && status == 400 &&
	    json_is_string(json_object_get(error, "type")) &&
	    strcmp(json_string_value(json_object_get(error, "type")),
	    "exceed_context_size_error") == 0)
		r = context_full(mc, error, err);
	else
		r = bx_fail(err, "the model server %s answered HTTP %ld: "
		    "\"%.*s\"; %s", mc->mc_url, status, MODEL_ERROR_QUOTE,
		    json_is_string(msg) ? json_string_value(msg) :
		    b->b_data == NULL ? "(no body)" : b->b_data,
		    http_hint(status));
	json_decref(root);
	return r;
}

/* A reply that is not llama-server's still tells the owner where to look. */
static void
add_pointer(struct bx_error *err, const char *pointer)
{
	size_t len = strlen(err->msg);

	snprintf(err->msg + len, sizeof(err->msg) - len, "%s", pointer);
}

static int
transfer_error(const struct model_client *mc, CURLcode rc,
    const struct body *b, const char *detail, struct bx_error *err)
{
	if (b->b_cancelled) {
		bx_fail(err, "the owner stopped the turn; the model request "
		    "was ended");
		return MODEL_CANCELLED;
	}
	if (b->b_too_large)
		return bx_fail(err, "the model server's reply is larger than "
		    "%d bytes", MODEL_MAX_RESPONSE);
	if (b->b_stream_failed) {
		*err = b->b_stream_err;
		bx_error_prefix(err, "the model server %s", mc->mc_url);
		add_pointer(err, "; this step was not kept; "
		    RUNBOOK_UNAVAILABLE);
		return -1;
	}
	if (b->b_silent && b->b_len == 0)
		return bx_fail(err, "the model server %s did not answer within "
		    "%ld s ([model] timeout_s); " RUNBOOK_UNAVAILABLE,
		    mc->mc_url, mc->mc_timeout_s);
	if (b->b_silent)
		return bx_fail(err, "the model server %s went silent for %ld s "
		    "([model] timeout_s) in the middle of its answer, after "
		    "%zu bytes; this step was not kept; " RUNBOOK_UNAVAILABLE,
		    mc->mc_url, mc->mc_timeout_s, b->b_len);
	if (rc == CURLE_ABORTED_BY_CALLBACK)
		return bx_fail(err, "the model request was cancelled: loopd "
		    "is stopping");
	return bx_fail(err, "the model server %s could not be reached: %s; "
	    RUNBOOK_UNAVAILABLE, mc->mc_url,
	    detail[0] != '\0' ? detail : curl_easy_strerror(rc));
}

static int
perform(const struct model_client *mc, const char *req, struct body *b,
    long *ret_status, struct bx_error *err)
{
	char detail[CURL_ERROR_SIZE] = "";
	struct curl_slist *headers = NULL, *h;
	CURLcode rc;
	CURL *c;

	if ((c = curl_easy_init()) == NULL)
		return bx_fail(err, "libcurl could not start a request");
	h = curl_slist_append(NULL, "Content-Type: application/json");
	if (h != NULL)
		headers = curl_slist_append(h, "Expect:");
	if (headers != NULL && mc->mc_auth != NULL)
		headers = curl_slist_append(h, mc->mc_auth);
	if (headers == NULL) {
		curl_slist_free_all(h);
		curl_easy_cleanup(c);
		return bx_fail(err, "out of memory");
	}
	curl_easy_setopt(c, CURLOPT_URL, mc->mc_url);
	if (mc->mc_via != NULL)
		curl_easy_setopt(c, CURLOPT_UNIX_SOCKET_PATH, mc->mc_via);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, "http,https");
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, mc->mc_timeout_s);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, req);
	curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
	    (curl_off_t)strlen(req));
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, collect);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, progress);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, b);
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, detail);
	b->b_curl = c;
	now(&b->b_last);
	rc = curl_easy_perform(c);
	b->b_curl = NULL;
	if (rc == CURLE_OK)
		curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, ret_status);
	curl_slist_free_all(headers);
	curl_easy_cleanup(c);
	if (rc != CURLE_OK)
		return transfer_error(mc, rc, b, detail, err);
	return 0;
}

/* A 200 answer, streamed or whole, into *ret. */
static int
read_answer(const struct model_client *mc, const struct body *b,
    struct model_reply **ret, struct bx_error *err)
{
	int r;

	if (b->b_mode == BODY_STREAM) {
		if ((r = model_stream_finish(b->b_stream, ret, err)) == -1) {
			bx_error_prefix(err, "the model server %s", mc->mc_url);
			add_pointer(err, "; this step was not kept; "
			    RUNBOOK_UNAVAILABLE);
		}
		return r;
	}
	if (b->b_data == NULL)
		return bx_fail(err, "the model server %s sent an empty reply; "
		    RUNBOOK_UNAVAILABLE, mc->mc_url);
	if ((r = model_reply_parse(b->b_data, b->b_len, ret, err)) == -1)
		add_pointer(err, "; " RUNBOOK_UNAVAILABLE);
	return r;
}

int
model_complete(struct model_client *mc, const json_t *messages,
    const json_t *tools, model_delta_fn *on_delta, void *arg,
    const atomic_int *cancel, struct model_reply **ret, struct bx_error *err)
{
	struct body b;
	json_t *req;
	char *text;
	long status = 0;
	int r = -1;

	memset(&b, 0, sizeof(b));
	b.b_mc = mc;
	b.b_cancel = cancel;
	if ((req = model_request(mc, messages, tools)) == NULL)
		return bx_fail(err, "cannot build the model request");
	text = json_dumps(req, JSON_COMPACT);
	json_decref(req);
	if (text == NULL)
		return bx_fail(err, "cannot build the model request");
	/* Like an overflow the server reports: the turn must not be kept. */
	if (strlen(text) > MODEL_MAX_REQUEST) {
		bx_fail(err, "the model request would be %zu bytes, over the "
		    "limit of %d: the session is too long; this turn was not "
		    "kept; " RUNBOOK_CONTEXT, strlen(text), MODEL_MAX_REQUEST);
		r = MODEL_CONTEXT_FULL;
		goto out;
	}
	if (model_stream_new(on_delta, arg, &b.b_stream, err) == -1 ||
	    (r = perform(mc, text, &b, &status, err)) != 0)
		goto out;
	if (status != 200) {
		r = http_error(mc, status, &b, err);
		goto out;
	}
	r = read_answer(mc, &b, ret, err);
out:
	free(text);
	free(b.b_data);
	model_stream_free(b.b_stream);
	return r;
}
