/*
 * test-serve-hangup.c: the owner's stop over loop.sock (protocol.md: a
 * client that closes its connection during a turn stops it). A client
 * reads the first delta of a stream the model server then stalls, and
 * closes: loopd's watcher sees the hang-up, the model request ends, the
 * session log gets the note and loads, the session is free for the next
 * turn, which the model is sent with the note. A client that only shuts
 * down its sending side after its frame is not stopping: it gets the
 * whole turn. The turn's time limit ([turn] max_s), which the same watcher
 * keeps, stops a model that never ends its answer the same way.
 */
#include <sys/socket.h>

#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "fake_llama.h"
#include "loopd/serve.h"
#include "loopd/session_log.h"
#include "proto/clock.h"
#include "proto/frame.h"
#include "proto/unixsock.h"
#include "testutil.h"

/* Generous: how long the test waits for loopd to act on the hang-up. */
#define HANGUP_WAIT_MS	20000

struct server {
	char			*home;
	char			 path[256];
	struct fake_llama	*fl;
	struct model_client	*mc;
	struct turn_env		 env;
	struct bx_peer_rule	 peers;
	atomic_int		 stop;
	int			 fd;
	struct bx_unix_file	 made;
	pthread_t		 thread;
};

static void *
serve_thread(void *arg)
{
	struct server *s = arg;
	struct bx_error err;

	loop_serve_run(s->fd, s->path, &s->made, &s->env, &s->peers, &s->stop,
	    NULL, &err);
	return NULL;
}

/* A server with script for the model; max_s is [turn] max_s (0: none). */
static void
start(struct server *s, const char *script, int max_s)
{
	struct fake_llama_opts opts = { .script = script };
	struct bx_error err;
	char url[64];

	memset(s, 0, sizeof(*s));
	s->home = tu_tmpdir();
	snprintf(s->path, sizeof(s->path), "%s/loop.sock", s->home);
	if (fake_llama_start(&opts, &s->fl, &err) == -1)
		fail_msg("%s", err.msg);
	fake_llama_url(s->fl, url, sizeof(url));
	assert_int_equal(model_client_new(url, "m", NULL, 30, 4096, &s->stop,
	    &s->mc, &err), 0);
	s->env.te_home = s->home;
	s->env.te_model = s->mc;
	s->env.te_max_steps = 4;
	s->env.te_max_s = max_s;
	s->env.te_stop = &s->stop;
	bx_peer_rule_init(&s->peers, "loop.sock");
	assert_int_equal(bx_peer_rule_add(&s->peers, geteuid(), &err), 0);
	if (loop_serve_bind(s->path, &s->fd, &s->made, &err) == -1)
		fail_msg("%s", err.msg);
	assert_int_equal(pthread_create(&s->thread, NULL, serve_thread, s), 0);
}

static void
stop(struct server *s)
{
	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	fake_llama_stop(s->fl);
	model_client_free(s->mc);
	tu_rmtree(s->home);
}

/* Sends a chat frame on a new connection; returns it. */
static int
chat(struct server *s, const char *session, const char *text)
{
	struct bx_msg *m = bx_msg_chat(session, text);
	struct bx_error err;
	int fd;

	if (bx_unix_connect(s->path, 0, &fd, &err) == -1)
		fail_msg("%s", err.msg);
	assert_non_null(m);
	assert_int_equal(bx_msg_send(fd, m, 5000, &err), 0);
	bx_msg_free(m);
	return fd;
}

/* Reads events until one of type; fails at the end of the stream. */
static void
read_until(struct bx_frame_reader *rd, enum bx_event type)
{
	struct bx_error err;
	struct bx_msg *m;
	const char *line;
	size_t len;
	bool found;

	do {
		if (bx_frame_read(rd, 30000, &line, &len, &err) != BX_FRAME_OK)
			fail_msg("the stream ended before event %d: %s",
			    (int)type, err.msg);
		assert_int_equal(bx_msg_decode(line, len, &m, &err), 0);
		found = m->kind == BX_MSG_TURN_EVENT &&
		    m->turn_event.type == type;
		bx_msg_free(m);
	} while (!found);
}

/* Waits until session's log holds n messages; returns it. */
static json_t *
await_log(struct server *s, const char *session, size_t n)
{
	int64_t until = bx_clock_mono_ms() + HANGUP_WAIT_MS;
	struct timespec nap = { 0, 10 * 1000000L };
	struct bx_error err;
	json_t *history;

	for (;;) {
		if (session_log_load(s->home, session, &history, &err) == -1)
			fail_msg("%s", err.msg);
		if (json_array_size(history) >= n)
			return history;
		json_decref(history);
		if (bx_clock_mono_ms() > until)
			fail_msg("waited %d ms for %zu messages in the log of "
			    "%s", HANGUP_WAIT_MS, n, session);
		nanosleep(&nap, NULL);
	}
}

/*
 * Sends text to session until the answer is not busy, and reads that turn
 * to its done event; fails if the session stays busy past HANGUP_WAIT_MS.
 */
static void
free_again(struct server *s, const char *session, const char *text)
{
	int64_t until = bx_clock_mono_ms() + HANGUP_WAIT_MS;
	struct timespec nap = { 0, 10 * 1000000L };
	struct bx_frame_reader rd;
	struct bx_error err;
	struct bx_msg *m;
	const char *line;
	size_t len;
	bool busy;
	int fd;

	for (;;) {
		fd = chat(s, session, text);
		bx_frame_reader_init(&rd, fd);
		if (bx_frame_read(&rd, 30000, &line, &len, &err) != BX_FRAME_OK)
			fail_msg("no answer to the chat: %s", err.msg);
		assert_int_equal(bx_msg_decode(line, len, &m, &err), 0);
		busy = m->kind == BX_MSG_ERROR &&
		    m->error.code == BX_CODE_BUSY;
		bx_msg_free(m);
		if (!busy)
			break;
		bx_frame_reader_free(&rd);
		close(fd);
		if (bx_clock_mono_ms() > until)
			fail_msg("session %s still busy %d ms after its stop",
			    session, HANGUP_WAIT_MS);
		nanosleep(&nap, NULL);
	}
	read_until(&rd, BX_EVENT_DONE);
	bx_frame_reader_free(&rd);
	close(fd);
}

static void
test_hangup_stops_the_turn(void **state)
{
	struct bx_frame_reader rd;
	struct server s;
	json_t *history, *req;
	char *body;
	int fd;

	(void)state;
	start(&s, "[{\"text\":\"Let me think\",\"stall\":true},"
	    "{\"text\":\"Noted.\"}]", 0);
	fd = chat(&s, "chat-h", "hi");
	bx_frame_reader_init(&rd, fd);
	read_until(&rd, BX_EVENT_TEXT_DELTA);
	bx_frame_reader_free(&rd);
	close(fd);
	history = await_log(&s, "chat-h", 2);
	assert_int_equal(json_array_size(history), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    history, 1), "content")), TURN_STOPPED_NOTE);
	json_decref(history);
	/*
	 * The session is free again: the turn writes the note while it still
	 * holds the session and lets go as it returns, so a chat sent at once
	 * may still be told busy, for a moment and no longer.
	 */
	free_again(&s, "chat-h", "go on");
	body = fake_llama_request(s.fl, 1);
	assert_non_null(body);
	req = json_loads(body, 0, NULL);
	free(body);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(req, "messages"), 2), "content")),
	    TURN_STOPPED_NOTE);
	json_decref(req);
	stop(&s);
}

/*
 * Reads events to the turn's error; returns its message (the caller frees
 * it) and counts the text_delta events before it into *deltas.
 */
static char *
read_error(struct bx_frame_reader *rd, size_t *deltas)
{
	struct bx_error err;
	struct bx_msg *m;
	const char *line;
	char *text = NULL;
	size_t len;

	*deltas = 0;
	while (text == NULL) {
		if (bx_frame_read(rd, 30000, &line, &len, &err) != BX_FRAME_OK)
			fail_msg("the stream ended before its error: %s",
			    err.msg);
		assert_int_equal(bx_msg_decode(line, len, &m, &err), 0);
		assert_int_equal(m->kind, BX_MSG_TURN_EVENT);
		assert_int_not_equal(m->turn_event.type, BX_EVENT_DONE);
		if (m->turn_event.type == BX_EVENT_TEXT_DELTA)
			(*deltas)++;
		if (m->turn_event.type == BX_EVENT_ERROR)
			text = strdup(m->turn_event.text);
		bx_msg_free(m);
	}
	return text;
}

/*
 * A model that never ends its answer, and nobody to stop it: at [turn]
 * max_s the watcher stops the turn as a hang-up does. The model request is
 * closed (the fake sees its client go, as llama-server would and then
 * frees its slot), the client gets an error naming the limit and its
 * runbook entry, the session log gets the note and loads, and the next
 * chat of the session is sent the note.
 */
static void
test_time_limit_stops_the_turn(void **state)
{
	struct timespec nap = { 0, 10 * 1000000L };
	struct bx_frame_reader rd;
	struct server s;
	int64_t t0, ended, gone;
	json_t *history, *req;
	size_t deltas;
	char *text, *body;
	int fd;

	(void)state;
	start(&s, "[{\"endless\":true,\"chunk_ms\":20},"
	    "{\"text\":\"Noted.\"}]", 1);
	t0 = bx_clock_mono_ms();
	fd = chat(&s, "chat-l", "talk for ever");
	bx_frame_reader_init(&rd, fd);
	text = read_error(&rd, &deltas);
	ended = bx_clock_mono_ms() - t0;
	bx_frame_reader_free(&rd);
	close(fd);
	if (strstr(text, TURN_MAX_S " ([turn] max_s = 1 s) and was stopped") ==
	    NULL || strstr(text, "see docs/runbook.md#turn-time-limit") == NULL)
		fail_msg("the error \"%s\" does not name the limit and its "
		    "runbook entry", text);
	free(text);
	/* Never before the limit; the upper bound only catches a hang. */
	if (ended < 1000 || ended > HANGUP_WAIT_MS)
		fail_msg("the turn ended after %lld ms, with max_s 1",
		    (long long)ended);
	assert_true(deltas > 0);
	while (fake_llama_hangups(s.fl) == 0) {
		if (bx_clock_mono_ms() - t0 > HANGUP_WAIT_MS)
			fail_msg("waited %d ms for the model request to be "
			    "closed", HANGUP_WAIT_MS);
		nanosleep(&nap, NULL);
	}
	gone = bx_clock_mono_ms() - t0;
	print_message("max_s 1: the error came after %lld ms and %zu deltas; "
	    "the model's connection was seen closed by %lld ms\n",
	    (long long)ended, deltas, (long long)gone);
	history = await_log(&s, "chat-l", 2);
	assert_int_equal(json_array_size(history), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    history, 1), "content")), TURN_MAX_S_NOTE);
	json_decref(history);
	free_again(&s, "chat-l", "go on");
	body = fake_llama_request(s.fl, 1);
	assert_non_null(body);
	req = json_loads(body, 0, NULL);
	free(body);
	assert_string_equal(json_string_value(json_object_get(json_array_get(
	    json_object_get(req, "messages"), 2), "content")),
	    TURN_MAX_S_NOTE);
	json_decref(req);
	json_decref(await_log(&s, "chat-l", 4));
	stop(&s);
}

static void
test_half_close_is_no_stop(void **state)
{
	struct bx_frame_reader rd;
	struct server s;
	int fd;

	(void)state;
	start(&s, "[{\"text\":\"whole\"}]", 0);
	fd = chat(&s, "chat-w", "hi");
	assert_int_equal(shutdown(fd, SHUT_WR), 0);
	bx_frame_reader_init(&rd, fd);
	read_until(&rd, BX_EVENT_DONE);
	bx_frame_reader_free(&rd);
	close(fd);
	json_decref(await_log(&s, "chat-w", 2));
	stop(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hangup_stops_the_turn),
		cmocka_unit_test(test_half_close_is_no_stop),
		cmocka_unit_test(test_time_limit_stops_the_turn),
	};
	int rc;

	curl_global_init(CURL_GLOBAL_DEFAULT);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	curl_global_cleanup();
	return rc;
}
