/*
 * fake_stream.c: streamed answers for the fake llama-server (see
 * fake_stream.h). Pieces are cut at UTF-8 character boundaries, since each
 * goes into a JSON string of its own, as llama-server's do.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_stream.h"

/* Content pieces end at a space or after this many bytes. */
#define PIECE_MAX	16
/* Arguments come a few bytes at a time, as a real model's do. */
#define ARGS_PIECE	3

bool
fake_stream_wanted(const char *request_body)
{
	json_t *req = json_loads(request_body, 0, NULL);
	bool wanted = json_is_true(json_object_get(req, "stream"));

	json_decref(req);
	return wanted;
}

/* The length of the piece of s (len > 0) that starts there. */
static size_t
piece(const char *s, size_t len, size_t max, bool at_space)
{
	size_t n = 1;

	while (n < len && n < max && !(at_space && s[n] == ' '))
		n++;
	/* Never in the middle of a character. */
	while (n < len && ((unsigned char)s[n] & 0xc0) == 0x80)
		n++;
	return n;
}

/* Appends "data: <chunk>\n\n"; steals chunk. */
static int
add_chunk(json_t *chunks, json_t *chunk)
{
	char *text, *event;
	int r;

	if (chunk == NULL)
		return -1;
	text = json_dumps(chunk, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(chunk);
	if (text == NULL || asprintf(&event, "data: %s\n\n", text) == -1) {
		free(text);
		return -1;
	}
	free(text);
	r = json_array_append_new(chunks, json_string(event));
	free(event);
	return r;
}

/* A chunk with delta (stolen) and finish, and the completion's ids. */
static json_t *
chunk(const json_t *completion, json_t *delta, const char *finish)
{
	return json_pack("{s:[{s:s?, s:i, s:o}], s:O, s:O, s:O, s:O, s:s}",
	    "choices", "finish_reason", finish, "index", 0, "delta", delta,
	    "created", json_object_get(completion, "created"),
	    "id", json_object_get(completion, "id"),
	    "model", json_object_get(completion, "model"),
	    "system_fingerprint", json_object_get(completion,
	    "system_fingerprint"),
	    "object", "chat.completion.chunk");
}

static int
add_content(json_t *chunks, const json_t *completion, const char *s)
{
	size_t len = strlen(s), n;

	for (; len > 0; s += n, len -= n) {
		n = piece(s, len, PIECE_MAX, true);
		if (add_chunk(chunks, chunk(completion, json_pack("{s:s%}",
		    "content", s, n), NULL)) == -1)
			return -1;
	}
	return 0;
}

static int
add_call(json_t *chunks, const json_t *completion, const json_t *call,
    size_t j)
{
	const json_t *fn = json_object_get(call, "function");
	const char *args = json_string_value(json_object_get(fn, "arguments"));
	size_t len = strlen(args), n;

	n = len == 0 ? 0 : piece(args, len, ARGS_PIECE, false);
	if (add_chunk(chunks, chunk(completion, json_pack("{s:[{s:i, s:O, "
	    "s:s, s:{s:O, s:s%}}]}", "tool_calls", "index", (int)j, "id",
	    json_object_get(call, "id"), "type", "function", "function",
	    "name", json_object_get(fn, "name"), "arguments", args, n),
	    NULL)) == -1)
		return -1;
	for (args += n, len -= n; len > 0; args += n, len -= n) {
		n = piece(args, len, ARGS_PIECE, false);
		if (add_chunk(chunks, chunk(completion, json_pack("{s:[{s:i, "
		    "s:{s:s%}}]}", "tool_calls", "index", (int)j, "function",
		    "arguments", args, n), NULL)) == -1)
			return -1;
	}
	return 0;
}

json_t *
fake_stream_generate(const json_t *completion, bool stall)
{
	const json_t *choice, *msg, *content, *call;
	json_t *chunks, *last;
	size_t j;

	choice = json_array_get(json_object_get(completion, "choices"), 0);
	msg = json_object_get(choice, "message");
	content = json_object_get(msg, "content");
	if ((chunks = json_array()) == NULL ||
	    add_chunk(chunks, chunk(completion, json_pack("{s:s, s:n}", "role",
	    "assistant", "content"), NULL)) == -1 ||
	    (json_is_string(content) && add_content(chunks, completion,
	    json_string_value(content)) == -1))
		goto fail;
	json_array_foreach(json_object_get(msg, "tool_calls"), j, call) {
		if (add_call(chunks, completion, call, j) == -1)
			goto fail;
	}
	if (stall)
		return chunks;
	last = chunk(completion, json_object(), json_string_value(
	    json_object_get(choice, "finish_reason")));
	if (last == NULL || json_object_set(last, "timings",
	    json_object_get(completion, "timings")) == -1 ||
	    add_chunk(chunks, last) == -1 ||
	    json_array_append_new(chunks,
	    json_string("data: [DONE]\n\n")) == -1)
		goto fail;
	return chunks;
fail:
	json_decref(chunks);
	return NULL;
}

json_t *
fake_stream_split(const char *text)
{
	const char *end;
	json_t *chunks;
	size_t n;

	if ((chunks = json_array()) == NULL)
		return NULL;
	while (*text != '\0') {
		end = strstr(text, "\n\n");
		n = end == NULL ? strlen(text) : (size_t)(end - text) + 2;
		if (json_array_append_new(chunks,
		    json_stringn(text, n)) == -1) {
			json_decref(chunks);
			return NULL;
		}
		text += n;
	}
	return chunks;
}

int
fake_send_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len > 0) {
		n = send(fd, buf, len, MSG_NOSIGNAL);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		buf += n;
		len -= (size_t)n;
	}
	return 0;
}

/* One HTTP chunk in one send, so that it leaves at once (TCP_NODELAY). */
static int
send_chunk(int fd, const char *data, size_t len)
{
	char *buf;
	int n, r;

	if ((n = asprintf(&buf, "%zx\r\n%.*s\r\n", len, (int)len, data)) == -1)
		return -1;
	r = fake_send_all(fd, buf, (size_t)n);
	free(buf);
	return r;
}

/* Until the client closes, stop_fd is readable or max_ms pass. */
static void
stall_until(int fd, int stop_fd, int max_ms)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	char buf[256];
	int r;

	for (;;) {
		r = poll(pfd, 2, max_ms);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0 || pfd[1].revents != 0)
			return;
		if (recv(fd, buf, sizeof(buf), 0) <= 0)
			return;
	}
}

/* chunk_ms between chunks, as a model writes; false when told to stop. */
static bool
pace(int stop_fd, int chunk_ms)
{
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
	int r;

	if (chunk_ms <= 0)
		return true;
	while ((r = poll(&pfd, 1, chunk_ms)) == -1 && errno == EINTR)
		;
	return r == 0;
}

int
fake_stream_send(int fd, const json_t *chunks, bool stall, int chunk_ms,
    int stop_fd, int max_ms)
{
	static const char head[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/event-stream\r\n"
	    "Transfer-Encoding: chunked\r\nServer: fake-llama\r\n"
	    "Keep-Alive: timeout=5, max=100\r\n\r\n";
	const json_t *c;
	size_t i;
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (fake_send_all(fd, head, sizeof(head) - 1) == -1)
		return -1;
	json_array_foreach(chunks, i, c) {
		if ((i > 0 && !pace(stop_fd, chunk_ms)) ||
		    send_chunk(fd, json_string_value(c),
		    json_string_length(c)) == -1)
			return -1;
	}
	if (stall) {
		stall_until(fd, stop_fd, max_ms);
		return 0;
	}
	return fake_send_all(fd, "0\r\n\r\n", 5);
}

int
fake_stream_answer(int fd, const json_t *reply, const json_t *completion,
    int stop_fd, int max_ms)
{
	bool stall = json_is_true(json_object_get(reply, "stall"));
	json_t *chunks;
	int r;

	if (json_is_string(json_object_get(reply, "stream")))
		chunks = fake_stream_split(json_string_value(
		    json_object_get(reply, "stream")));
	else
		chunks = fake_stream_generate(completion, stall);
	if (chunks == NULL)
		return -1;
	r = fake_stream_send(fd, chunks, stall, (int)json_integer_value(
	    json_object_get(reply, "chunk_ms")), stop_fd, max_ms);
	json_decref(chunks);
	return r;
}
