/*
 * stream-fuzzer.c: libFuzzer harness for loopd's reader of llama-server's
 * streamed answers (src/loopd/model_stream.h). The input is the body; its
 * first byte chooses where it is cut in two, so pieces that end inside a
 * line, a UTF-8 character or a JSON string are tried. What the harness
 * checks, aborting if a promise breaks:
 *
 * - every delta is a non-empty string, and the deltas joined are the
 *   reply's content when the stream finishes;
 * - the same body fed whole gives the same outcome, the same content and
 *   the same calls as fed in two pieces;
 * - a finished reply has a finish_reason, at most MODEL_MAX_CALLS calls,
 *   and every call a name and arguments that are a JSON object's text;
 * - after a piece fails, the stream refuses more pieces and the finish.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "loopd/model_stream.h"

#define FUZZ_INPUT_MAX	65536

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

struct joined {
	char	buf[FUZZ_INPUT_MAX + 1];
	size_t	len;
};

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
on_delta(void *arg, const char *text)
{
	struct joined *j = arg;
	size_t len = strlen(text);

	check(len > 0 && j->len + len <= FUZZ_INPUT_MAX);
	memcpy(j->buf + j->len, text, len);
	j->len += len;
	j->buf[j->len] = '\0';
}

/* Feeds body cut at cut; the reply or NULL. */
static struct model_reply *
run(const char *body, size_t len, size_t cut, struct joined *j)
{
	struct model_stream *ms;
	struct model_reply *r = NULL;
	struct bx_error err;

	memset(j, 0, sizeof(*j));
	check(model_stream_new(on_delta, j, &ms, &err) == 0);
	if (model_stream_feed(ms, body, cut, &err) == 0 &&
	    model_stream_feed(ms, body + cut, len - cut, &err) == 0)
		(void)model_stream_finish(ms, &r, &err);
	else {
		check(model_stream_feed(ms, "\n\n", 2, &err) == -1);
		check(model_stream_finish(ms, &r, &err) == -1 && r == NULL);
	}
	model_stream_free(ms);
	return r;
}

static void
check_reply(const struct model_reply *r, const struct joined *j)
{
	json_t *args;
	size_t i;

	check(r->mr_finish != NULL && r->mr_content != NULL);
	check(strcmp(r->mr_content, j->buf) == 0);
	check(r->mr_ncalls <= MODEL_MAX_CALLS);
	for (i = 0; i < r->mr_ncalls; i++) {
		check(r->mr_calls[i].mc_name[0] != '\0');
		args = json_loads(r->mr_calls[i].mc_arguments, 0, NULL);
		check(json_is_object(args));
		json_decref(args);
	}
}

static void
check_same(const struct model_reply *a, const struct model_reply *b)
{
	size_t i;

	check((a == NULL) == (b == NULL));
	if (a == NULL)
		return;
	check(strcmp(a->mr_content, b->mr_content) == 0);
	check(a->mr_ncalls == b->mr_ncalls);
	for (i = 0; i < a->mr_ncalls; i++)
		check(strcmp(a->mr_calls[i].mc_arguments,
		    b->mr_calls[i].mc_arguments) == 0);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct joined whole, cut;
	struct model_reply *a, *b;
	const char *body;
	size_t len, at;

	if (size < 1 || size > FUZZ_INPUT_MAX)
		return 0;
	body = (const char *)data + 1;
	len = size - 1;
	at = len == 0 ? 0 : (size_t)data[0] * len / 256;
	a = run(body, len, len, &whole);
	b = run(body, len, at, &cut);
	if (a != NULL)
		check_reply(a, &whole);
	check_same(a, b);
	model_reply_free(a);
	model_reply_free(b);
	return 0;
}
