/*
 * model_stream.c: the streamed answer's reader (model_stream.h). Bytes
 * become lines, lines become events (their data lines joined), and each
 * event's chunk adds to the content, the calls and the finish_reason.
 * Pieces are appended to growing buffers rather than to JSON strings, so
 * that arguments in thousands of fragments of a few bytes each cost no
 * more than one copy of the whole. At the end the joined message goes
 * through the same parser as a whole body (model_reply_from_message), so
 * a streamed call is checked and normalized exactly as a whole one.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "proto/json.h"
#include "loopd/model_stream.h"

/* A growing NUL-terminated buffer. */
struct sbuf {
	char	*sb_data;
	size_t	 sb_len;
	size_t	 sb_cap;
};

struct stream_call {
	char		*sc_id;		/* its first fragment's; NULL: none */
	struct sbuf	 sc_name;
	struct sbuf	 sc_args;
};

struct model_stream {
	model_delta_fn		*ms_on_delta;
	void			*ms_arg;
	size_t			 ms_total;	/* bytes fed */
	struct sbuf		 ms_line;	/* the line not yet ended */
	struct sbuf		 ms_data;	/* the event's data lines */
	bool			 ms_has_data;
	struct sbuf		 ms_content;
	struct stream_call	 ms_calls[MODEL_MAX_CALLS];
	size_t			 ms_ncalls;
	char			*ms_finish;
	long			 ms_usage_tokens;	/* -1: not said */
	long			 ms_predicted;	/* timings.predicted_n */
	bool			 ms_done;	/* data: [DONE] */
	bool			 ms_failed;
};

static int
sbuf_add(struct sbuf *sb, const char *s, size_t len, size_t max)
{
	size_t cap;
	char *grown;

	if (len > max || sb->sb_len > max - len)
		return -1;
	if (sb->sb_len + len + 1 > sb->sb_cap) {
		cap = sb->sb_cap == 0 ? 256 : sb->sb_cap;
		while (cap < sb->sb_len + len + 1)
			cap *= 2;
		if ((grown = realloc(sb->sb_data, cap)) == NULL)
			return -1;
		sb->sb_data = grown;
		sb->sb_cap = cap;
	}
	memcpy(sb->sb_data + sb->sb_len, s, len);
	sb->sb_len += len;
	sb->sb_data[sb->sb_len] = '\0';
	return 0;
}

int
model_stream_new(model_delta_fn *on_delta, void *arg,
    struct model_stream **ret, struct bx_error *err)
{
	struct model_stream *ms;

	if ((ms = calloc(1, sizeof(*ms))) == NULL)
		return bx_fail(err, "out of memory");
	ms->ms_on_delta = on_delta;
	ms->ms_arg = arg;
	ms->ms_usage_tokens = -1;
	ms->ms_predicted = -1;
	*ret = ms;
	return 0;
}

void
model_stream_free(struct model_stream *ms)
{
	size_t i;

	if (ms == NULL)
		return;
	for (i = 0; i < ms->ms_ncalls; i++) {
		free(ms->ms_calls[i].sc_id);
		free(ms->ms_calls[i].sc_name.sb_data);
		free(ms->ms_calls[i].sc_args.sb_data);
	}
	free(ms->ms_line.sb_data);
	free(ms->ms_data.sb_data);
	free(ms->ms_content.sb_data);
	free(ms->ms_finish);
	free(ms);
}

/* Marks the stream dead; returns -1. */
static int
broken(struct model_stream *ms)
{
	ms->ms_failed = true;
	return -1;
}

static int
add_content(struct model_stream *ms, const json_t *content,
    struct bx_error *err)
{
	if (content == NULL || json_is_null(content))
		return 0;
	if (!json_is_string(content))
		return bx_fail(err, "the model's stream: delta.content is "
		    "neither a string nor null");
	if (json_string_length(content) == 0)
		return 0;
	if (sbuf_add(&ms->ms_content, json_string_value(content),
	    json_string_length(content), MODEL_MAX_RESPONSE) == -1)
		return bx_fail(err, "out of memory");
	if (ms->ms_on_delta != NULL)
		ms->ms_on_delta(ms->ms_arg, json_string_value(content));
	return 0;
}

/* The call a fragment with index idx adds to: an earlier one or the next. */
static struct stream_call *
fragment_call(struct model_stream *ms, const json_t *idx, size_t i,
    struct bx_error *err)
{
	json_int_t n;

	if (!json_is_integer(idx) || (n = json_integer_value(idx)) < 0) {
		bx_fail(err, "the model's stream: delta.tool_calls[%zu] has no "
		    "\"index\"", i);
		return NULL;
	}
	if (n >= MODEL_MAX_CALLS) {
		bx_fail(err, "the model's stream has a tool call of index "
		    "%lld; at most %d are taken in one step", (long long)n,
		    MODEL_MAX_CALLS);
		return NULL;
	}
	if ((size_t)n > ms->ms_ncalls) {
		bx_fail(err, "the model's stream: tool call %lld began before "
		    "tool call %zu", (long long)n, ms->ms_ncalls);
		return NULL;
	}
	if ((size_t)n == ms->ms_ncalls)
		ms->ms_ncalls++;
	return &ms->ms_calls[n];
}

static int
add_fragment(struct model_stream *ms, const json_t *frag, size_t i,
    struct bx_error *err)
{
	struct stream_call *sc;
	json_t *fn, *name, *args, *id;
	char *text;
	int r;

	if ((sc = fragment_call(ms, json_object_get(frag, "index"), i,
	    err)) == NULL)
		return -1;
	id = json_object_get(frag, "id");
	if (sc->sc_id == NULL && json_is_string(id) &&
	    (sc->sc_id = strdup(json_string_value(id))) == NULL)
		return bx_fail(err, "out of memory");
	fn = json_object_get(frag, "function");
	name = json_object_get(fn, "name");
	args = json_object_get(fn, "arguments");
	if (json_is_string(name) && sbuf_add(&sc->sc_name,
	    json_string_value(name), json_string_length(name),
	    MODEL_MAX_RESPONSE) == -1)
		return bx_fail(err, "out of memory");
	if (json_is_string(args))
		r = sbuf_add(&sc->sc_args, json_string_value(args),
		    json_string_length(args), MODEL_MAX_RESPONSE);
	else if (json_is_object(args)) {
		/* Not llama-server's way, but a whole reply's. */
		if ((text = json_dumps(args, JSON_COMPACT |
		    JSON_PRESERVE_ORDER)) == NULL)
			return bx_fail(err, "out of memory");
		r = sbuf_add(&sc->sc_args, text, strlen(text),
		    MODEL_MAX_RESPONSE);
		free(text);
	} else
		r = 0;
	return r == -1 ? bx_fail(err, "out of memory") : 0;
}

static int
add_delta(struct model_stream *ms, const json_t *delta, struct bx_error *err)
{
	json_t *calls, *frag;
	size_t i;

	if (delta == NULL || json_is_null(delta))
		return 0;
	if (!json_is_object(delta))
		return bx_fail(err, "the model's stream: choices[0].delta is "
		    "not an object");
	if (add_content(ms, json_object_get(delta, "content"), err) == -1)
		return -1;
	calls = json_object_get(delta, "tool_calls");
	if (calls == NULL || json_is_null(calls))
		return 0;
	if (!json_is_array(calls))
		return bx_fail(err, "the model's stream: delta.tool_calls is "
		    "not an array");
	json_array_foreach(calls, i, frag) {
		if (!json_is_object(frag))
			return bx_fail(err, "the model's stream: "
			    "delta.tool_calls[%zu] is not an object", i);
		if (add_fragment(ms, frag, i, err) == -1)
			return -1;
	}
	return 0;
}

/* The server's own message when a chunk is an error, quoted. */
static int
stream_error(const json_t *error, struct bx_error *err)
{
	json_t *msg = json_object_get(error, "message");

	return bx_fail(err, "the answer broke off with the server's error: "
	    "\"%.*s\"", MODEL_ERROR_QUOTE, json_is_string(msg) ?
	    json_string_value(msg) : json_is_string(error) ?
	    json_string_value(error) : "(no message)");
}

static void
add_tokens(struct model_stream *ms, const json_t *chunk)
{
	json_t *n;

	n = json_object_get(json_object_get(chunk, "usage"),
	    "completion_tokens");
	if (json_is_integer(n))
		ms->ms_usage_tokens = (long)json_integer_value(n);
	n = json_object_get(json_object_get(chunk, "timings"), "predicted_n");
	if (json_is_integer(n))
		ms->ms_predicted = (long)json_integer_value(n);
}

static int
add_chunk(struct model_stream *ms, const json_t *chunk, struct bx_error *err)
{
	json_t *choices, *choice, *finish;

	if (json_object_get(chunk, "error") != NULL &&
	    !json_is_null(json_object_get(chunk, "error")))
		return stream_error(json_object_get(chunk, "error"), err);
	add_tokens(ms, chunk);
	choices = json_object_get(chunk, "choices");
	if (choices == NULL || json_is_null(choices))
		return 0;
	if (!json_is_array(choices))
		return bx_fail(err, "the model's stream: choices is not an "
		    "array");
	/* The usage chunk has none. */
	if (json_array_size(choices) == 0)
		return 0;
	choice = json_array_get(choices, 0);
	if (!json_is_object(choice))
		return bx_fail(err, "the model's stream: choices[0] is not an "
		    "object");
	if (add_delta(ms, json_object_get(choice, "delta"), err) == -1)
		return -1;
	finish = json_object_get(choice, "finish_reason");
	if (json_is_string(finish)) {
		free(ms->ms_finish);
		if ((ms->ms_finish = strdup(json_string_value(finish))) == NULL)
			return bx_fail(err, "out of memory");
	}
	return 0;
}

/* One event's data: a chunk, or [DONE]. */
static int
dispatch(struct model_stream *ms, struct bx_error *err)
{
	const char *data = ms->ms_data.sb_data;
	size_t len = ms->ms_data.sb_len;
	json_t *chunk;
	int r;

	ms->ms_has_data = false;
	ms->ms_data.sb_len = 0;
	if (ms->ms_done)
		return 0;
	if (len == 6 && memcmp(data, "[DONE]", 6) == 0) {
		ms->ms_done = true;
		return 0;
	}
	if (bx_json_parse(data, len, &chunk, err) == -1)
		return bx_error_prefix(err, "the model's stream sent a chunk "
		    "that is not a JSON object");
	r = add_chunk(ms, chunk, err);
	json_decref(chunk);
	return r;
}

/* An `error: {json}` line, as some llama-server versions send. */
static int
error_line(const char *value, size_t len, struct bx_error *err)
{
	json_t *obj;
	int r;

	if (bx_json_parse(value, len, &obj, NULL) == -1)
		return bx_fail(err, "the answer broke off with the server's "
		    "error: \"%.*s\"", (int)(len < MODEL_ERROR_QUOTE ? len :
		    MODEL_ERROR_QUOTE), value);
	r = stream_error(json_object_get(obj, "error") != NULL ?
	    json_object_get(obj, "error") : obj, err);
	json_decref(obj);
	return r;
}

/* One line, its end of line gone. */
static int
line(struct model_stream *ms, const char *s, size_t len, struct bx_error *err)
{
	const char *colon, *value;
	size_t flen, vlen;

	if (len == 0)
		return ms->ms_has_data ? dispatch(ms, err) : 0;
	if (s[0] == ':')
		return 0;
	colon = memchr(s, ':', len);
	flen = colon == NULL ? len : (size_t)(colon - s);
	value = colon == NULL ? s + len : colon + 1;
	vlen = len - (size_t)(value - s);
	if (vlen > 0 && value[0] == ' ') {
		value++;
		vlen--;
	}
	if (flen == 5 && memcmp(s, "error", 5) == 0)
		return error_line(value, vlen, err);
	if (flen != 4 || memcmp(s, "data", 4) != 0)
		return 0;
	if ((ms->ms_has_data && sbuf_add(&ms->ms_data, "\n", 1,
	    MODEL_STREAM_LINE_MAX) == -1) ||
	    sbuf_add(&ms->ms_data, value, vlen, MODEL_STREAM_LINE_MAX) == -1)
		return bx_fail(err, "the model's stream sent an event longer "
		    "than %d bytes", MODEL_STREAM_LINE_MAX);
	ms->ms_has_data = true;
	return 0;
}

/* The line held so far, ended: CR LF and LF both end a line. */
static int
end_line(struct model_stream *ms, struct bx_error *err)
{
	struct sbuf *l = &ms->ms_line;
	size_t len = l->sb_len;

	if (len > 0 && l->sb_data[len - 1] == '\r')
		len--;
	l->sb_len = 0;
	return line(ms, len == 0 ? "" : l->sb_data, len, err);
}

int
model_stream_feed(struct model_stream *ms, const char *buf, size_t len,
    struct bx_error *err)
{
	const char *nl;
	size_t n;

	if (ms->ms_failed)
		return bx_fail(err, "the model's stream already failed");
	if (len > MODEL_MAX_RESPONSE - ms->ms_total) {
		bx_fail(err, "the model server's reply is larger than %d bytes",
		    MODEL_MAX_RESPONSE);
		return broken(ms);
	}
	ms->ms_total += len;
	while (len > 0) {
		nl = memchr(buf, '\n', len);
		n = nl == NULL ? len : (size_t)(nl - buf);
		/* The line's CR, if any, is counted against the bound too. */
		if (sbuf_add(&ms->ms_line, buf, n,
		    MODEL_STREAM_LINE_MAX) == -1) {
			bx_fail(err, "the model's stream sent a line longer "
			    "than %d bytes", MODEL_STREAM_LINE_MAX);
			return broken(ms);
		}
		if (nl == NULL)
			break;
		if (end_line(ms, err) == -1)
			return broken(ms);
		buf += n + 1;
		len -= n + 1;
	}
	return 0;
}

/* The joined message, as choices[0].message would have held it. */
static json_t *
joined_message(const struct model_stream *ms)
{
	const struct stream_call *sc;
	json_t *msg, *calls;
	size_t i;

	/* "" when no piece came, as llama-server's whole answer has it. */
	msg = json_pack("{s:s%}", "content", ms->ms_content.sb_len == 0 ? "" :
	    ms->ms_content.sb_data, ms->ms_content.sb_len);
	if (msg == NULL || ms->ms_ncalls == 0)
		return msg;
	if ((calls = json_array()) == NULL ||
	    json_object_set_new(msg, "tool_calls", calls) == -1) {
		json_decref(msg);
		return NULL;
	}
	for (i = 0; i < ms->ms_ncalls; i++) {
		sc = &ms->ms_calls[i];
		if (json_array_append_new(calls, json_pack("{s:s?, s:{s:s, "
		    "s:s}}", "id", sc->sc_id, "function", "name",
		    sc->sc_name.sb_len == 0 ? "" : sc->sc_name.sb_data,
		    "arguments", sc->sc_args.sb_len == 0 ? "" :
		    sc->sc_args.sb_data)) == -1) {
			json_decref(msg);
			return NULL;
		}
	}
	return msg;
}

int
model_stream_finish(struct model_stream *ms, struct model_reply **ret,
    struct bx_error *err)
{
	json_t *msg;
	int r;

	if (ms->ms_failed)
		return bx_fail(err, "the model's stream already failed");
	/* An event not closed by its empty line still counts, unless the
	 * answer was already whole. */
	if (!ms->ms_done && ms->ms_finish == NULL &&
	    ((ms->ms_line.sb_len > 0 && end_line(ms, err) == -1) ||
	    (ms->ms_has_data && dispatch(ms, err) == -1)))
		return broken(ms);
	if (ms->ms_finish == NULL) {
		bx_fail(err, "the model's stream ended before its answer did "
		    "(no finish_reason, after %zu bytes)", ms->ms_total);
		return broken(ms);
	}
	if ((msg = joined_message(ms)) == NULL)
		return bx_fail(err, "out of memory");
	r = model_reply_from_message(msg, ms->ms_finish, ms->ms_usage_tokens >=
	    0 ? ms->ms_usage_tokens : ms->ms_predicted, ret, err);
	json_decref(msg);
	return r;
}
