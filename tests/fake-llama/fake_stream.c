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
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fake_stream.h"

/* Content pieces end at a space or after this many bytes. */
#define PIECE_MAX	16
/* Arguments come a few bytes at a time, as a real model's do. */
#define ARGS_PIECE	3
/* Each token of an endless answer. */
#define ENDLESS_TOKEN	"on "

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

/* "data: <chunk>\n\n", malloc'd, or NULL; steals chunk. */
static char *
event_text(json_t *chunk)
{
	char *text, *event;

	if (chunk == NULL)
		return NULL;
	text = json_dumps(chunk, JSON_COMPACT | JSON_PRESERVE_ORDER);
	json_decref(chunk);
	if (text == NULL || asprintf(&event, "data: %s\n\n", text) == -1)
		event = NULL;
	free(text);
	return event;
}

/* Appends "data: <chunk>\n\n"; steals chunk. */
static int
add_chunk(json_t *chunks, json_t *chunk)
{
	char *event;
	int r;

	if ((event = event_text(chunk)) == NULL)
		return -1;
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

/*
 * One HTTP chunk in one send, so that it leaves at once (TCP_NODELAY); a
 * failed send is the client gone.
 */
static int
send_chunk(int fd, const char *data, size_t len)
{
	char *buf;
	int n, r;

	if ((n = asprintf(&buf, "%zx\r\n%.*s\r\n", len, (int)len, data)) == -1)
		return FAKE_STREAM_FAILED;
	r = fake_send_all(fd, buf, (size_t)n);
	free(buf);
	return r == -1 ? FAKE_STREAM_GONE : FAKE_STREAM_SENT;
}

/* One event in one HTTP chunk; steals chunk. */
static int
send_event(int fd, json_t *chunk)
{
	char *event;
	int r;

	if ((event = event_text(chunk)) == NULL)
		return FAKE_STREAM_FAILED;
	r = send_chunk(fd, event, strlen(event));
	free(event);
	return r;
}

/* Whether the client closed its end, which made fd readable. */
static bool
client_gone(int fd, short revents)
{
	char buf[256];
	ssize_t n;

	if ((revents & (POLLHUP | POLLERR | POLLNVAL)) != 0)
		return true;
	if ((revents & POLLIN) == 0)
		return false;
	n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
	return n == 0 || (n == -1 && errno != EAGAIN && errno != EINTR);
}

/*
 * Waits ms (-1: for ever) unless the client closes its end or stop_fd
 * becomes readable first. FAKE_STREAM_SENT when the time passed.
 */
static int
wait_watching(int fd, int stop_fd, int ms)
{
	struct pollfd pfd[2] = {
		{ .fd = fd, .events = POLLIN },
		{ .fd = stop_fd, .events = POLLIN },
	};
	int r;

	for (;;) {
		r = poll(pfd, 2, ms);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == 0)
			return FAKE_STREAM_SENT;
		if (r == -1 || pfd[1].revents != 0)
			return FAKE_STREAM_FAILED;
		if (client_gone(fd, pfd[0].revents))
			return FAKE_STREAM_GONE;
	}
}

static int
send_head(int fd)
{
	static const char head[] = "HTTP/1.1 200 OK\r\n"
	    "Content-Type: text/event-stream\r\n"
	    "Transfer-Encoding: chunked\r\nServer: fake-llama\r\n"
	    "Keep-Alive: timeout=5, max=100\r\n\r\n";
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fake_send_all(fd, head, sizeof(head) - 1) == -1 ?
	    FAKE_STREAM_GONE : FAKE_STREAM_SENT;
}

/* The stream's last chunk: HTTP's end of the body. */
static int
send_end(int fd)
{
	return fake_send_all(fd, "0\r\n\r\n", 5) == -1 ? FAKE_STREAM_GONE :
	    FAKE_STREAM_SENT;
}

int
fake_stream_send(int fd, const json_t *chunks, bool stall, int chunk_ms,
    int stop_fd, int max_ms)
{
	const json_t *c;
	size_t i;
	int r;

	if ((r = send_head(fd)) != FAKE_STREAM_SENT)
		return r;
	json_array_foreach(chunks, i, c) {
		/* chunk_ms between chunks, as a model writes. */
		if (i > 0 && chunk_ms > 0 &&
		    (r = wait_watching(fd, stop_fd, chunk_ms)) !=
		    FAKE_STREAM_SENT)
			return r;
		if ((r = send_chunk(fd, json_string_value(c),
		    json_string_length(c))) != FAKE_STREAM_SENT)
			return r;
	}
	if (stall)
		return wait_watching(fd, stop_fd, max_ms);
	return send_end(fd);
}

static int64_t
mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The last chunk of an answer cut at n tokens, as llama-server sends it. */
static int
send_length_end(int fd, const json_t *completion, long n, int chunk_ms)
{
	json_t *last;
	int r;

	last = chunk(completion, json_object(), "length");
	if (last == NULL || json_object_set_new(last, "timings", json_pack(
	    "{s:i, s:f, s:i, s:f}", "prompt_n", 64, "prompt_ms", 12.5,
	    "predicted_n", (json_int_t)n, "predicted_ms",
	    (double)n * chunk_ms)) == -1) {
		json_decref(last);
		return FAKE_STREAM_FAILED;
	}
	if ((r = send_event(fd, last)) != FAKE_STREAM_SENT)
		return r;
	if ((r = send_chunk(fd, "data: [DONE]\n\n", 14)) != FAKE_STREAM_SENT)
		return r;
	return send_end(fd);
}

int
fake_stream_endless(int fd, const json_t *completion, long max_tokens,
    int chunk_ms, int stop_fd, int max_ms)
{
	int64_t until = mono_ms() + max_ms;
	long n;
	int r;

	if ((r = send_head(fd)) != FAKE_STREAM_SENT ||
	    (r = send_event(fd, chunk(completion, json_pack("{s:s, s:n}",
	    "role", "assistant", "content"), NULL))) != FAKE_STREAM_SENT)
		return r;
	for (n = 0; max_tokens <= 0 || n < max_tokens; n++) {
		/* Each token, however fast, looks at the client first. */
		if ((r = wait_watching(fd, stop_fd, chunk_ms)) !=
		    FAKE_STREAM_SENT)
			return r;
		if (mono_ms() >= until)
			return FAKE_STREAM_SENT;
		if ((r = send_event(fd, chunk(completion, json_pack("{s:s}",
		    "content", ENDLESS_TOKEN), NULL))) != FAKE_STREAM_SENT)
			return r;
	}
	return send_length_end(fd, completion, n, chunk_ms);
}

/* The request's max_tokens, as llama-server reads it; 0: none. */
static long
request_max_tokens(const char *request_body)
{
	json_t *req = json_loads(request_body, 0, NULL);
	json_int_t n = json_integer_value(json_object_get(req, "max_tokens"));

	json_decref(req);
	return n > 0 ? (long)n : 0;
}

int
fake_stream_answer(int fd, const json_t *reply, const json_t *completion,
    const char *request_body, int stop_fd, int max_ms)
{
	bool stall = json_is_true(json_object_get(reply, "stall"));
	int chunk_ms = (int)json_integer_value(json_object_get(reply,
	    "chunk_ms"));
	json_t *chunks;
	int r;

	if (json_is_true(json_object_get(reply, "endless")))
		return fake_stream_endless(fd, completion,
		    request_max_tokens(request_body), chunk_ms, stop_fd,
		    max_ms);
	if (json_is_string(json_object_get(reply, "stream")))
		chunks = fake_stream_split(json_string_value(
		    json_object_get(reply, "stream")));
	else
		chunks = fake_stream_generate(completion, stall);
	if (chunks == NULL)
		return FAKE_STREAM_FAILED;
	r = fake_stream_send(fd, chunks, stall, chunk_ms, stop_fd, max_ms);
	json_decref(chunks);
	return r;
}
