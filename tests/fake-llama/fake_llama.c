/*
 * fake_llama.c: the scripted fake llama-server (see fake_llama.h). One
 * thread accepts and answers connections one at a time, which is all a
 * test needs; every answer closes its connection.
 */
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "fake_llama.h"
#include "fake_reply.h"
#include "fake_stream.h"

struct fake_llama {
	int		 fl_listen;
	int		 fl_stop[2];	/* a byte on [1] stops the thread */
	int		 fl_release[2];	/* a byte on [1] sends one held reply */
	int		 fl_port;
	pthread_t	 fl_thread;
	json_t		*fl_script;	/* the validated array of replies */
	char		*fl_record_dir;
	struct fake_gate fl_gate;	/* strings borrowed from the options */
	pthread_mutex_t	 fl_lock;	/* guards the four below */
	char		**fl_requests;
	size_t		 fl_nrequests;
	size_t		 fl_served;	/* replies taken from the script */
	size_t		 fl_hangups;	/* streams their client closed */
};

struct http_request {
	char	 method[16];
	char	 path[256];
	char	 authorization[512];	/* "" when not sent */
	char	*body;
	size_t	 body_len;
};

static bool
stopping(struct fake_llama *fl, int timeout_ms)
{
	struct pollfd pfd = { .fd = fl->fl_stop[0], .events = POLLIN };

	return poll(&pfd, 1, timeout_ms) > 0;
}

/*
 * Waits for fake_llama_release() (and takes its byte), the stop pipe or
 * FAKE_LLAMA_HOLD_MAX_MS; true when stopping.
 */
static bool
held(struct fake_llama *fl)
{
	struct pollfd pfd[2] = {
		{ .fd = fl->fl_stop[0], .events = POLLIN },
		{ .fd = fl->fl_release[0], .events = POLLIN },
	};
	char c;
	int r;

	while ((r = poll(pfd, 2, FAKE_LLAMA_HOLD_MAX_MS)) == -1 &&
	    errno == EINTR)
		;
	if (r > 0 && pfd[0].revents != 0)
		return true;
	if (r > 0)
		(void)!read(fl->fl_release[0], &c, 1);
	return false;
}

/* Reads once with a timeout; 0 on EOF, -1 on error or timeout. */
static ssize_t
read_some(int fd, char *buf, size_t len)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	ssize_t n;
	int r;

	for (;;) {
		r = poll(&pfd, 1, FAKE_LLAMA_IO_TIMEOUT_MS);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return -1;
		n = read(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		return n;
	}
}

static int
send_response(int fd, int status, const char *body)
{
	char head[256];
	int n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n"
	    "Content-Type: application/json; charset=utf-8\r\n"
	    "Content-Length: %zu\r\nServer: fake-llama\r\n"
	    "Connection: close\r\n\r\n", status,
	    status == 200 ? "OK" : "Error", strlen(body));
	if (fake_send_all(fd, head, (size_t)n) == -1)
		return -1;
	return fake_send_all(fd, body, strlen(body));
}

/* The value of header name in head, or NULL; copied into buf. */
static const char *
header(const char *head, const char *name, char *buf, size_t len)
{
	const char *line, *end, *colon;
	size_t nlen = strlen(name), vlen;

	for (line = strstr(head, "\r\n"); line != NULL; line = end) {
		line += 2;
		end = strstr(line, "\r\n");
		if (end == NULL || end == line)
			return NULL;
		colon = memchr(line, ':', (size_t)(end - line));
		if (colon == NULL || (size_t)(colon - line) != nlen ||
		    strncasecmp(line, name, nlen) != 0)
			continue;
		for (colon++; *colon == ' ' || *colon == '\t'; colon++)
			;
		vlen = (size_t)(end - colon);
		if (vlen >= len)
			vlen = len - 1;
		memcpy(buf, colon, vlen);
		buf[vlen] = '\0';
		return buf;
	}
	return NULL;
}

/*
 * Reads one request. Returns 0 with req filled, an HTTP status to answer
 * with (413, 411, 400), or -1 to drop the connection.
 */
static int
read_request(int fd, struct http_request *req)
{
	char *head, *end, value[64];
	size_t have = 0, head_len, want;
	unsigned long long cl;
	ssize_t n;

	if ((head = malloc(FAKE_LLAMA_MAX_HEAD + 1)) == NULL)
		return -1;
	for (;;) {
		if (have == FAKE_LLAMA_MAX_HEAD) {
			free(head);
			return 413;
		}
		n = read_some(fd, head + have, FAKE_LLAMA_MAX_HEAD - have);
		if (n <= 0) {
			free(head);
			return -1;
		}
		have += (size_t)n;
		head[have] = '\0';
		if ((end = strstr(head, "\r\n\r\n")) != NULL)
			break;
	}
	head_len = (size_t)(end - head) + 4;
	if (sscanf(head, "%15s %255s", req->method, req->path) != 2) {
		free(head);
		return 400;
	}
	if (header(head, "Transfer-Encoding", value, sizeof(value)) != NULL) {
		free(head);
		return 411;
	}
	header(head, "Authorization", req->authorization,
	    sizeof(req->authorization));
	cl = 0;
	if (header(head, "Content-Length", value, sizeof(value)) != NULL)
		cl = strtoull(value, NULL, 10);
	if (cl > FAKE_LLAMA_MAX_BODY) {
		free(head);
		return 413;
	}
	if (header(head, "Expect", value, sizeof(value)) != NULL &&
	    strcasecmp(value, "100-continue") == 0 &&
	    fake_send_all(fd, "HTTP/1.1 100 Continue\r\n\r\n", 25) == -1) {
		free(head);
		return -1;
	}
	want = (size_t)cl;
	if ((req->body = malloc(want + 1)) == NULL) {
		free(head);
		return -1;
	}
	req->body_len = have - head_len < want ? have - head_len : want;
	memcpy(req->body, head + head_len, req->body_len);
	free(head);
	while (req->body_len < want) {
		n = read_some(fd, req->body + req->body_len,
		    want - req->body_len);
		if (n <= 0) {
			free(req->body);
			req->body = NULL;
			return -1;
		}
		req->body_len += (size_t)n;
	}
	req->body[req->body_len] = '\0';
	return 0;
}

static void
record(struct fake_llama *fl, const struct http_request *req)
{
	char path[PATH_MAX], *copy;
	char **grown;
	size_t index;
	FILE *f;

	if ((copy = strdup(req->body)) == NULL)
		return;
	pthread_mutex_lock(&fl->fl_lock);
	grown = realloc(fl->fl_requests,
	    (fl->fl_nrequests + 1) * sizeof(*grown));
	if (grown == NULL) {
		pthread_mutex_unlock(&fl->fl_lock);
		free(copy);
		return;
	}
	fl->fl_requests = grown;
	index = fl->fl_nrequests++;
	fl->fl_requests[index] = copy;
	pthread_mutex_unlock(&fl->fl_lock);
	if (fl->fl_record_dir == NULL)
		return;
	snprintf(path, sizeof(path), "%s/request-%03zu.json",
	    fl->fl_record_dir, index + 1);
	if ((f = fopen(path, "we")) == NULL)
		return;
	fwrite(req->body, 1, req->body_len, f);
	fputc('\n', f);
	fclose(f);
}

/* The next reply of the script (borrowed), or NULL when exhausted. */
static json_t *
next_reply(struct fake_llama *fl, size_t *ret_index)
{
	size_t n = json_array_size(fl->fl_script), i;
	json_t *reply;

	pthread_mutex_lock(&fl->fl_lock);
	i = fl->fl_served;
	if (i >= n && n > 0 &&
	    json_is_true(json_object_get(json_array_get(fl->fl_script, n - 1),
	    "repeat")))
		i = n - 1;
	reply = json_array_get(fl->fl_script, i);
	if (reply != NULL && !json_is_true(json_object_get(reply, "repeat")))
		fl->fl_served++;
	*ret_index = fl->fl_nrequests;
	pthread_mutex_unlock(&fl->fl_lock);
	return reply;
}

/* Counts the streams whose client went away before their end. */
static void
streamed(struct fake_llama *fl, int how)
{
	if (how != FAKE_STREAM_GONE)
		return;
	pthread_mutex_lock(&fl->fl_lock);
	fl->fl_hangups++;
	pthread_mutex_unlock(&fl->fl_lock);
}

static void
answer_completion(struct fake_llama *fl, int fd,
    const struct http_request *req)
{
	json_t *reply, *body;
	json_int_t delay;
	size_t index;
	char *text;
	int status;

	record(fl, req);
	if ((status = fake_gate_check(&fl->fl_gate, req->authorization[0] !=
	    '\0' ? req->authorization : NULL, req->body, &text)) != 0) {
		send_response(fd, status, text != NULL ? text : "{}");
		free(text);
		return;
	}
	if ((reply = next_reply(fl, &index)) == NULL) {
		send_response(fd, 500, "{\"error\":{\"code\":500,"
		    "\"message\":\"fake-llama: script exhausted\","
		    "\"type\":\"server_error\"}}");
		return;
	}
	delay = json_integer_value(json_object_get(reply, "delay_ms"));
	if (delay > 0 && stopping(fl, (int)delay))
		return;
	if (json_is_true(json_object_get(reply, "hold")) && held(fl))
		return;
	if (json_is_true(json_object_get(reply, "hangup")))
		return;
	if (json_object_get(reply, "stream") != NULL) {
		streamed(fl, fake_stream_answer(fd, reply, NULL, req->body,
		    fl->fl_stop[0], FAKE_LLAMA_HOLD_MAX_MS));
		return;
	}
	if (json_object_get(reply, "body") != NULL) {
		status = (int)json_integer_value(json_object_get(reply,
		    "status"));
		send_response(fd, status == 0 ? 200 : status,
		    json_string_value(json_object_get(reply, "body")));
		return;
	}
	if ((body = fake_reply_build(reply, req->body, index)) == NULL) {
		send_response(fd, 500, "{\"error\":\"fake-llama: out of memory\"}");
		return;
	}
	/* A "response" is a whole body whatever was asked, as a server that
	 * does not stream would send it. */
	if (fake_stream_wanted(req->body) &&
	    json_object_get(reply, "response") == NULL) {
		streamed(fl, fake_stream_answer(fd, reply, body, req->body,
		    fl->fl_stop[0], FAKE_LLAMA_HOLD_MAX_MS));
		json_decref(body);
		return;
	}
	text = json_dumps(body, JSON_COMPACT);
	json_decref(body);
	if (text != NULL)
		send_response(fd, 200, text);
	free(text);
}

static void
serve_one(struct fake_llama *fl, int fd)
{
	struct http_request req;
	int r;

	memset(&req, 0, sizeof(req));
	r = read_request(fd, &req);
	if (r > 0)
		send_response(fd, r, "{\"error\":\"fake-llama: bad request\"}");
	if (r != 0)
		return;
	if (strcmp(req.method, "POST") == 0 &&
	    strcmp(req.path, "/v1/chat/completions") == 0)
		answer_completion(fl, fd, &req);
	else if (strcmp(req.method, "GET") == 0 &&
	    strcmp(req.path, "/health") == 0)
		send_response(fd, 200, "{\"status\":\"ok\"}");
	else
		send_response(fd, 404, "{\"error\":{\"code\":404,"
		    "\"message\":\"File Not Found\",\"type\":\"not_found_error\"}}");
	free(req.body);
}

static void *
serve_loop(void *arg)
{
	struct fake_llama *fl = arg;
	struct pollfd pfd[2];
	int fd;

	pfd[0].fd = fl->fl_listen;
	pfd[0].events = POLLIN;
	pfd[1].fd = fl->fl_stop[0];
	pfd[1].events = POLLIN;
	for (;;) {
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents != 0)
			break;
		fd = accept4(fl->fl_listen, NULL, NULL, SOCK_CLOEXEC);
		if (fd == -1)
			continue;
		serve_one(fl, fd);
		shutdown(fd, SHUT_WR);
		close(fd);
	}
	return NULL;
}

static int
listen_on(int port, int *ret_fd, int *ret_port, struct bx_error *err)
{
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return bx_fail(err, "fake-llama: socket: %s", strerror(errno));
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_port = htons((uint16_t)port);
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(fd, 16) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1) {
		bx_fail(err, "fake-llama: 127.0.0.1:%d: %s", port,
		    strerror(errno));
		close(fd);
		return -1;
	}
	*ret_fd = fd;
	*ret_port = ntohs(sin.sin_port);
	return 0;
}

int
fake_llama_start(const struct fake_llama_opts *opts, struct fake_llama **ret,
    struct bx_error *err)
{
	struct fake_llama *fl;
	json_error_t jerr;
	json_t *script;

	script = json_loads(opts->script, JSON_REJECT_DUPLICATES, &jerr);
	if (script == NULL)
		return bx_fail(err, "fake-llama: script line %d: %s",
		    jerr.line, jerr.text);
	if (fake_reply_check_script(script, err) == -1) {
		json_decref(script);
		return -1;
	}
	if ((fl = calloc(1, sizeof(*fl))) == NULL) {
		json_decref(script);
		return bx_fail(err, "fake-llama: out of memory");
	}
	fl->fl_script = script;
	fl->fl_gate = opts->gate;
	fl->fl_stop[0] = fl->fl_stop[1] = -1;
	fl->fl_release[0] = fl->fl_release[1] = -1;
	pthread_mutex_init(&fl->fl_lock, NULL);
	if (opts->record_dir != NULL &&
	    (fl->fl_record_dir = strdup(opts->record_dir)) == NULL) {
		bx_fail(err, "fake-llama: out of memory");
		goto fail;
	}
	if (listen_on(opts->port, &fl->fl_listen, &fl->fl_port, err) == -1) {
		fl->fl_listen = -1;
		goto fail;
	}
	if (pipe2(fl->fl_stop, O_CLOEXEC) == -1 ||
	    pipe2(fl->fl_release, O_CLOEXEC) == -1) {
		bx_fail(err, "fake-llama: pipe: %s", strerror(errno));
		goto fail;
	}
	if (pthread_create(&fl->fl_thread, NULL, serve_loop, fl) != 0) {
		bx_fail(err, "fake-llama: cannot start its thread");
		goto fail;
	}
	*ret = fl;
	return 0;
fail:
	if (fl->fl_listen != -1)
		close(fl->fl_listen);
	if (fl->fl_stop[0] != -1) {
		close(fl->fl_stop[0]);
		close(fl->fl_stop[1]);
	}
	if (fl->fl_release[0] != -1) {
		close(fl->fl_release[0]);
		close(fl->fl_release[1]);
	}
	pthread_mutex_destroy(&fl->fl_lock);
	free(fl->fl_record_dir);
	json_decref(fl->fl_script);
	free(fl);
	return -1;
}

int
fake_llama_start_file(const char *path, const char *record_dir, int port,
    const struct fake_gate *gate, struct fake_llama **ret,
    struct bx_error *err)
{
	struct fake_llama_opts opts = { .record_dir = record_dir,
	    .port = port };
	json_error_t jerr;
	json_t *script;
	int r;

	script = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
	if (script == NULL)
		return bx_fail(err, "%s:%d: %s", path, jerr.line, jerr.text);
	opts.script = json_dumps(script, JSON_COMPACT | JSON_ENCODE_ANY);
	json_decref(script);
	if (opts.script == NULL)
		return bx_fail(err, "fake-llama: out of memory");
	if (gate != NULL)
		opts.gate = *gate;
	r = fake_llama_start(&opts, ret, err);
	if (r == -1)
		bx_error_prefix(err, "%s", path);
	free((char *)opts.script);
	return r;
}

void
fake_llama_stop(struct fake_llama *fl)
{
	size_t i;

	if (fl == NULL)
		return;
	(void)!write(fl->fl_stop[1], "x", 1);
	pthread_join(fl->fl_thread, NULL);
	close(fl->fl_listen);
	close(fl->fl_stop[0]);
	close(fl->fl_stop[1]);
	close(fl->fl_release[0]);
	close(fl->fl_release[1]);
	for (i = 0; i < fl->fl_nrequests; i++)
		free(fl->fl_requests[i]);
	free(fl->fl_requests);
	free(fl->fl_record_dir);
	json_decref(fl->fl_script);
	pthread_mutex_destroy(&fl->fl_lock);
	free(fl);
}

void
fake_llama_release(struct fake_llama *fl)
{
	(void)!write(fl->fl_release[1], "x", 1);
}

int
fake_llama_port(const struct fake_llama *fl)
{
	return fl->fl_port;
}

void
fake_llama_url(const struct fake_llama *fl, char *buf, size_t len)
{
	snprintf(buf, len, "http://127.0.0.1:%d", fl->fl_port);
}

size_t
fake_llama_request_count(struct fake_llama *fl)
{
	size_t n;

	pthread_mutex_lock(&fl->fl_lock);
	n = fl->fl_nrequests;
	pthread_mutex_unlock(&fl->fl_lock);
	return n;
}

size_t
fake_llama_hangups(struct fake_llama *fl)
{
	size_t n;

	pthread_mutex_lock(&fl->fl_lock);
	n = fl->fl_hangups;
	pthread_mutex_unlock(&fl->fl_lock);
	return n;
}

char *
fake_llama_request(struct fake_llama *fl, size_t i)
{
	char *copy = NULL;

	pthread_mutex_lock(&fl->fl_lock);
	if (i < fl->fl_nrequests)
		copy = strdup(fl->fl_requests[i]);
	pthread_mutex_unlock(&fl->fl_lock);
	return copy;
}
