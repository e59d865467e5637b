/*
 * test-stream.c: the stream reader (model_stream.h) fed llama-server's
 * streams (tests/fixtures/llama-stream/) whole, one byte at a time and cut
 * in two at every byte: the reply and the deltas are the same each way.
 * Then its bounds and the shapes a server might send besides.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "loopd/model_stream.h"
#include "testutil.h"

/* The deltas a stream handed over, joined with '|' between them. */
struct deltas {
	char	buf[4096];
	size_t	n;
};

static void
on_delta(void *arg, const char *text)
{
	struct deltas *d = arg;
	size_t len = strlen(d->buf);

	assert_true(text[0] != '\0');
	snprintf(d->buf + len, sizeof(d->buf) - len, "%s%s", d->n > 0 ? "|" :
	    "", text);
	d->n++;
}

static char *
fixture(const char *name)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char dir[512];
	char *text;

	assert_non_null(root);
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/llama-stream", root);
	if ((text = tu_read(dir, name)) == NULL)
		fail_msg("cannot read %s/%s", dir, name);
	return text;
}

/*
 * Feeds text in pieces: cut > 0 in two at cut, cut == 0 whole, cut < 0
 * one byte at a time. Returns what model_stream_finish() returned, or -1
 * if a feed failed; err says why.
 */
static int
feed(const char *text, long cut, struct deltas *d, struct model_reply **ret,
    struct bx_error *err)
{
	struct model_stream *ms;
	size_t len = strlen(text), i;
	int r = -1;

	memset(d, 0, sizeof(*d));
	*ret = NULL;
	assert_int_equal(model_stream_new(on_delta, d, &ms, err), 0);
	if (cut < 0) {
		for (i = 0; i < len; i++)
			if (model_stream_feed(ms, text + i, 1, err) == -1)
				goto out;
	} else if (model_stream_feed(ms, text, (size_t)cut, err) == -1 ||
	    model_stream_feed(ms, text + cut, len - (size_t)cut, err) == -1)
		goto out;
	r = model_stream_finish(ms, ret, err);
out:
	model_stream_free(ms);
	return r;
}

/* What one fixture must give, however it is cut. */
struct expect {
	const char	*file;
	int		 rc;
	const char	*content;	/* or the error's words */
	const char	*finish;
	const char	*deltas;
	size_t		 ncalls;
	const char	*name[2];
	const char	*args[2];
	const char	*invalid;	/* the last call's, or NULL */
	long		 tokens;
};

static const struct expect expects[] = {
	{ "text.sse", 0, "Hello from the tiny test model.", "stop",
	    "Hello| from| the| tiny| test| model|.", 0, { NULL }, { NULL },
	    NULL, 8 },
	{ "text-usage.sse", 0, "Hello from the tiny test model.", "stop",
	    "Hello| from| the| tiny| test| model|.", 0, { NULL }, { NULL },
	    NULL, 8 },
	{ "tool-call.sse", 0, "", "tool_calls", "", 1, { "clock" },
	    { "{}" }, NULL, 15 },
	{ "call-fragments.sse", 0, "", "tool_calls", "", 1, { "call_tool" },
	    { "{\"name\":\"read_file\",\"arguments\":{\"path\":"
	    "\"/etc/hostname\"}}" }, NULL, 15 },
	{ "two-calls.sse", 0, "", "tool_calls", "", 2,
	    { "clock", "find_tool" }, { "{}", "{\"query\":\"notes\"}" }, NULL,
	    15 },
	{ "length-before-arguments.sse", 0, "", "length", "", 0, { NULL },
	    { NULL }, NULL, 6 },
	{ "length-in-arguments.sse", 0, "", "length", "", 1, { "clock" },
	    { "{}" }, "{", 9 },
	{ "error.sse", -1, "the answer broke off with the server's error: "
	    "\"the slot was released: out of memory in the KV cache\"", NULL,
	    "Hello", 0, { NULL }, { NULL }, NULL, 0 },
	{ "stall.sse", -1, "ended before its answer did (no finish_reason",
	    NULL, "Hello", 0, { NULL }, { NULL }, NULL, 0 },
	{ "no-finish.sse", -1, "ended before its answer did (no "
	    "finish_reason", NULL, "Hello| from", 0, { NULL }, { NULL }, NULL,
	    0 },
};

static void
check(const struct expect *x, long cut, int rc, const struct deltas *d,
    const struct model_reply *r, const struct bx_error *err)
{
	size_t i;

	if (rc != x->rc)
		fail_msg("%s cut at %ld: %d, not %d (%s)", x->file, cut, rc,
		    x->rc, rc == -1 ? err->msg : "");
	if (strcmp(d->buf, x->deltas) != 0)
		fail_msg("%s cut at %ld: deltas \"%s\"", x->file, cut, d->buf);
	if (rc == -1) {
		if (strstr(err->msg, x->content) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", x->file, err->msg,
			    x->content);
		return;
	}
	assert_string_equal(r->mr_content, x->content);
	assert_string_equal(r->mr_finish, x->finish);
	assert_int_equal(r->mr_completion_tokens, x->tokens);
	assert_int_equal(r->mr_ncalls, x->ncalls);
	for (i = 0; i < x->ncalls; i++) {
		assert_string_equal(r->mr_calls[i].mc_name, x->name[i]);
		assert_string_equal(r->mr_calls[i].mc_arguments, x->args[i]);
		assert_int_equal(strlen(r->mr_calls[i].mc_id), 32);
	}
	if (x->invalid != NULL)
		assert_string_equal(r->mr_calls[x->ncalls - 1].mc_invalid,
		    x->invalid);
	else if (x->ncalls > 0)
		assert_null(r->mr_calls[x->ncalls - 1].mc_invalid);
}

static void
test_recorded_streams_every_cut(void **state)
{
	struct model_reply *r;
	struct bx_error err;
	struct deltas d;
	size_t i, len;
	long cut;
	char *text;
	int rc;

	(void)state;
	for (i = 0; i < sizeof(expects) / sizeof(expects[0]); i++) {
		text = fixture(expects[i].file);
		len = strlen(text);
		for (cut = -1; cut <= (long)len; cut++) {
			rc = feed(text, cut, &d, &r, &err);
			check(&expects[i], cut, rc, &d, r, &err);
			model_reply_free(r);
		}
		free(text);
	}
}

/* Runs text whole; returns the error message, or "" on success. */
static const char *
outcome(const char *text, struct bx_error *err, struct model_reply **ret)
{
	struct deltas d;

	if (feed(text, 0, &d, ret, err) == 0)
		return "";
	return err->msg;
}

#define CHUNK(delta, finish) "data: {\"choices\":[{\"index\":0,\"delta\":" \
	delta ",\"finish_reason\":" finish "}]}\n\n"

static void
test_other_shapes(void **state)
{
	struct model_reply *r = NULL;
	struct bx_error err;

	(void)state;
	/* CR LF, no space after the colon, comments and other fields. */
	assert_string_equal(outcome(": ping\r\nevent: x\r\nid: 1\r\n"
	    "data:{\"choices\":[{\"delta\":{\"content\":\"a\"},\r\n"
	    "data: \"finish_reason\":\"stop\"}]}\r\n\r\n", &err, &r), "");
	assert_string_equal(r->mr_content, "a");
	model_reply_free(r);
	r = NULL;
	/* An error line, as older servers send it. */
	assert_non_null(strstr(outcome("error: {\"code\":500,\"message\":"
	    "\"boom\"}\n\n", &err, &r), "server's error: \"boom\""));
	/* The last event without its end of line still counts. */
	assert_string_equal(outcome("data: {\"choices\":[{\"delta\":{},"
	    "\"finish_reason\":\"stop\"}]}", &err, &r), "");
	model_reply_free(r);
	r = NULL;
	/* Arguments as an object, as a whole reply may have them. */
	assert_string_equal(outcome(CHUNK("{\"tool_calls\":[{\"index\":0,"
	    "\"function\":{\"name\":\"clock\",\"arguments\":{\"a\":1}}}]}",
	    "\"tool_calls\""), &err, &r), "");
	assert_string_equal(r->mr_calls[0].mc_arguments, "{\"a\":1}");
	assert_null(r->mr_calls[0].mc_id);
	model_reply_free(r);
	r = NULL;
	assert_non_null(strstr(outcome("data: {nope\n\n", &err, &r),
	    "not a JSON object"));
	assert_non_null(strstr(outcome(CHUNK("[]", "null"), &err, &r),
	    "delta is not an object"));
	assert_non_null(strstr(outcome(CHUNK("{\"content\":1}", "null"), &err,
	    &r), "delta.content"));
	assert_non_null(strstr(outcome(CHUNK("{\"tool_calls\":[{\"function\""
	    ":{\"name\":\"a\"}}]}", "null"), &err, &r), "has no \"index\""));
	assert_non_null(strstr(outcome(CHUNK("{\"tool_calls\":[{\"index\":1,"
	    "\"function\":{\"name\":\"a\"}}]}", "null"), &err, &r),
	    "tool call 1 began before tool call 0"));
	assert_non_null(strstr(outcome(CHUNK("{\"tool_calls\":[{\"index\":32,"
	    "\"function\":{\"name\":\"a\"}}]}", "null"), &err, &r),
	    "at most 32"));
	/* A call that never got a name is refused as a whole reply's is. */
	assert_non_null(strstr(outcome(CHUNK("{\"tool_calls\":[{\"index\":0,"
	    "\"function\":{\"arguments\":\"{}\"}}]}", "\"tool_calls\""), &err,
	    &r), "no \"name\""));
	assert_null(r);
}

static void
test_bounds(void **state)
{
	struct model_stream *ms;
	struct model_reply *r = NULL;
	struct bx_error err;
	char *big;
	size_t i;

	(void)state;
	big = malloc(MODEL_STREAM_LINE_MAX + 16);
	assert_non_null(big);
	/* One line past the bound, fed in pieces: refused once it is. */
	memset(big, 'x', MODEL_STREAM_LINE_MAX + 16);
	memcpy(big, "data: ", 6);
	assert_int_equal(model_stream_new(NULL, NULL, &ms, &err), 0);
	for (i = 0; i < MODEL_STREAM_LINE_MAX; i += 4096)
		assert_int_equal(model_stream_feed(ms, big + i, 4096, &err), 0);
	assert_int_equal(model_stream_feed(ms, big, 16, &err), -1);
	assert_non_null(strstr(err.msg, "a line longer than 1048576 bytes"));
	assert_int_equal(model_stream_feed(ms, "\n", 1, &err), -1);
	assert_int_equal(model_stream_finish(ms, &r, &err), -1);
	assert_null(r);
	model_stream_free(ms);
	/* An event of many short data lines is bounded as one line is. */
	assert_int_equal(model_stream_new(NULL, NULL, &ms, &err), 0);
	for (i = 0; i < 2 * MODEL_STREAM_LINE_MAX / 1024; i++) {
		memset(big, 'y', 1024);
		memcpy(big, "data: ", 6);
		big[1023] = '\n';
		if (model_stream_feed(ms, big, 1024, &err) == -1)
			break;
	}
	assert_true(i < 2 * MODEL_STREAM_LINE_MAX / 1024);
	assert_non_null(strstr(err.msg, "an event longer than"));
	model_stream_free(ms);
	/* The whole body is bounded too, whatever its lines. */
	assert_int_equal(model_stream_new(NULL, NULL, &ms, &err), 0);
	memset(big, '\n', MODEL_STREAM_LINE_MAX);
	for (i = 0; i < 5; i++)
		if (model_stream_feed(ms, big, MODEL_STREAM_LINE_MAX, &err) ==
		    -1)
			break;
	assert_int_equal(i, MODEL_MAX_RESPONSE / MODEL_STREAM_LINE_MAX);
	assert_non_null(strstr(err.msg, "larger than"));
	model_stream_free(ms);
	free(big);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_streams_every_cut),
		cmocka_unit_test(test_other_shapes),
		cmocka_unit_test(test_bounds),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
