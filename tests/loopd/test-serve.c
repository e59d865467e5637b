/*
 * test-serve.c: loop.sock. Socket and directory modes, stale sockets, a
 * whole chat over the socket, busy sessions, bad frames and a clean stop;
 * and, as root, the peer check: with the modes opened by hand, the owner
 * (OWNER_UID here) and root served, another uid (loopd's jail's, say)
 * refused with error forbidden before anything is read, printed once.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include <curl/curl.h>

#include "../proto/peer-client.h"
#include "fake_llama.h"
#include "loopd/serve.h"
#include "proto/frame.h"
#include "proto/unixsock.h"
#include "testutil.h"

#define OWNER_UID	4242
#define OTHER_UID	4343
#define LOG_MAX		16

struct server {
	char			*home;
	char			 path[256];
	struct fake_llama	*fl;
	struct model_client	*mc;
	struct turn_env		 env;
	struct bx_peer_rule	 peers;
	pthread_mutex_t		 log_lock;
	char			*log[LOG_MAX];
	size_t			 nlog;
	atomic_int		 stop;
	int			 fd;
	struct bx_unix_file	 made;
	int			 rc;
	pthread_t		 thread;
};

static void *
serve_thread(void *arg)
{
	struct server *s = arg;
	struct bx_error err;

	s->rc = loop_serve_run(s->fd, s->path, &s->made, &s->env, &s->peers,
	    &s->stop, NULL, &err);
	return NULL;
}

static void
log_line(void *arg, const char *line)
{
	struct server *s = arg;

	pthread_mutex_lock(&s->log_lock);
	if (s->nlog < LOG_MAX)
		s->log[s->nlog++] = strdup(line);
	pthread_mutex_unlock(&s->log_lock);
}

/* How many logged lines contain text. */
static size_t
logged(struct server *s, const char *text)
{
	size_t i, n = 0;

	pthread_mutex_lock(&s->log_lock);
	for (i = 0; i < s->nlog; i++)
		if (s->log[i] != NULL && strstr(s->log[i], text) != NULL)
			n++;
	pthread_mutex_unlock(&s->log_lock);
	return n;
}

/*
 * Serves the uids of owner and root. An owner other than 0 (the test's
 * own) is another uid: the modes are opened for it by hand.
 */
static void
start_for(struct server *s, const char *script, uid_t owner)
{
	struct stat st;

	struct fake_llama_opts opts = { .script = script };
	struct bx_error err;
	char url[64];

	memset(s, 0, sizeof(*s));
	s->home = tu_tmpdir();
	snprintf(s->path, sizeof(s->path), "%s/run/owner-loop/loop.sock",
	    s->home);
	if (fake_llama_start(&opts, &s->fl, &err) == -1)
		fail_msg("%s", err.msg);
	fake_llama_url(s->fl, url, sizeof(url));
	assert_int_equal(model_client_new(url, "m", NULL, 30, 4096, &s->stop,
	    &s->mc, &err), 0);
	s->env.te_home = s->home;
	s->env.te_model = s->mc;
	s->env.te_max_steps = 4;
	s->env.te_stop = &s->stop;
	s->env.te_log = log_line;
	s->env.te_log_arg = s;
	pthread_mutex_init(&s->log_lock, NULL);
	bx_peer_rule_init(&s->peers, "loop.sock");
	assert_int_equal(bx_peer_rule_add(&s->peers, owner != 0 ? owner :
	    geteuid(), &err), 0);
	assert_int_equal(bx_peer_rule_add(&s->peers, 0, &err), 0);
	if (loop_serve_bind(s->path, &s->fd, &s->made, &err) == -1)
		fail_msg("%s", err.msg);
	if (owner != 0) {
		peer_open_modes(s->home, s->path);
		/* chmod changed its ctime: still the socket stop removes. */
		assert_int_equal(stat(s->path, &st), 0);
		s->made.uf_ctime = st.st_ctim;
	}
	assert_int_equal(pthread_create(&s->thread, NULL, serve_thread, s), 0);
}

static void
start(struct server *s, const char *script)
{
	start_for(s, script, 0);
}

static void
stop(struct server *s)
{
	struct stat st;

	atomic_store(&s->stop, 1);
	pthread_join(s->thread, NULL);
	assert_int_equal(s->rc, 0);
	/* Stopping removes the socket. */
	assert_int_equal(lstat(s->path, &st), -1);
	fake_llama_stop(s->fl);
	model_client_free(s->mc);
	tu_rmtree(s->home);
	while (s->nlog > 0)
		free(s->log[--s->nlog]);
	pthread_mutex_destroy(&s->log_lock);
}

static int
dial(const char *path)
{
	struct bx_error err;
	int fd;

	if (bx_unix_connect(path, 0, &fd, &err) == -1)
		fail_msg("%s", err.msg);
	return fd;
}

static void
send_line(int fd, const char *line)
{
	assert_int_equal(write(fd, line, strlen(line)), (ssize_t)strlen(line));
}

/* The next message from the peer, or NULL at the end of the stream. */
static struct bx_msg *
next(struct bx_frame_reader *rd)
{
	struct bx_error err;
	struct bx_msg *m;
	const char *line;
	size_t len;

	if (bx_frame_read(rd, 30000, &line, &len, &err) != BX_FRAME_OK)
		return NULL;
	if (bx_msg_decode(line, len, &m, &err) == -1)
		fail_msg("undecodable frame: %s", err.msg);
	return m;
}

/* Sends one chat line and collects every message until the stream ends. */
static void
chat(const char *path, const char *line, struct tu_events *ev)
{
	struct bx_frame_reader rd;
	struct bx_msg *m;
	int fd = dial(path);

	memset(ev, 0, sizeof(*ev));
	send_line(fd, line);
	bx_frame_reader_init(&rd, fd);
	while ((m = next(&rd)) != NULL)
		tu_record(ev, m);
	bx_frame_reader_free(&rd);
	close(fd);
}

static void
test_chat_over_socket(void **state)
{
	struct server s;
	struct tu_events ev;
	struct stat st;
	const char *id;
	char dir[300], name[128], *log;

	(void)state;
	start(&s, "[{\"text\":\"hello\"}]");
	assert_int_equal(lstat(s.path, &st), 0);
	assert_true(S_ISSOCK(st.st_mode));
	assert_int_equal(st.st_mode & 0777, 0600);
	snprintf(dir, sizeof(dir), "%s/run/owner-loop", s.home);
	assert_int_equal(stat(dir, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0700);

	chat(s.path, "{\"kind\":\"chat\",\"session\":null,\"text\":\"hi\"}\n",
	    &ev);
	/* started, the text as it streamed in, done with all of it. */
	assert_int_equal(ev.n, 3);
	id = ev.ev[0]->turn_event.session;
	assert_int_equal(strncmp(id, "chat-", 5), 0);
	assert_true(strspn(id + 5, "0123456789") == strlen(id + 5));
	assert_true(strlen(id) >= 5 + 13);
	assert_int_equal(ev.ev[1]->turn_event.type, BX_EVENT_TEXT_DELTA);
	assert_string_equal(ev.ev[1]->turn_event.text, "hello");
	assert_int_equal(ev.ev[2]->turn_event.type, BX_EVENT_DONE);
	assert_string_equal(ev.ev[2]->turn_event.text, "hello");
	snprintf(name, sizeof(name), "sessions/%s.jsonl", id);
	log = tu_read(s.home, name);
	assert_non_null(log);
	assert_non_null(strstr(log, "\"hi\""));
	free(log);
	tu_events_free(&ev);
	stop(&s);
}

static void
test_busy_session(void **state)
{
	struct bx_frame_reader rd;
	struct tu_events ev;
	struct bx_msg *m;
	struct server s;
	int a;

	(void)state;
	/* The first turn's model request is held until the test lets it go. */
	start(&s, "[{\"hold\":true,\"text\":\"first\"},{\"text\":\"third\"}]");
	a = dial(s.path);
	send_line(a, "{\"kind\":\"chat\",\"session\":\"chat-x\",\"text\":\"1\"}\n");
	bx_frame_reader_init(&rd, a);
	m = next(&rd);
	assert_non_null(m);
	assert_int_equal(m->turn_event.type, BX_EVENT_STARTED);
	bx_msg_free(m);

	/* chat-x is busy until the first turn ends; another session is not. */
	chat(s.path, "{\"kind\":\"chat\",\"session\":\"chat-x\",\"text\":\"2\"}\n",
	    &ev);
	assert_int_equal(ev.n, 1);
	assert_int_equal(ev.ev[0]->kind, BX_MSG_ERROR);
	assert_int_equal(ev.ev[0]->error.code, BX_CODE_BUSY);
	assert_non_null(strstr(ev.ev[0]->error.message, "chat-x"));
	tu_events_free(&ev);

	fake_llama_release(s.fl);
	m = next(&rd);
	assert_non_null(m);
	assert_int_equal(m->turn_event.type, BX_EVENT_TEXT_DELTA);
	assert_string_equal(m->turn_event.text, "first");
	bx_msg_free(m);
	m = next(&rd);
	assert_non_null(m);
	assert_int_equal(m->turn_event.type, BX_EVENT_DONE);
	assert_string_equal(m->turn_event.text, "first");
	bx_msg_free(m);
	assert_null(next(&rd));
	bx_frame_reader_free(&rd);
	close(a);

	chat(s.path, "{\"kind\":\"chat\",\"session\":\"chat-x\",\"text\":\"3\"}\n",
	    &ev);
	assert_string_equal(tu_find(&ev, BX_EVENT_DONE, 0)->text, "third");
	tu_events_free(&ev);
	assert_int_equal(fake_llama_request_count(s.fl), 2);
	stop(&s);
}

static void
test_stop_cuts_a_turn_short(void **state)
{
	struct bx_frame_reader rd;
	struct bx_msg *m;
	struct server s;
	int a;

	(void)state;
	start(&s, "[{\"delay_ms\":60000,\"text\":\"never\"}]");
	a = dial(s.path);
	send_line(a, "{\"kind\":\"chat\",\"session\":\"chat-s\",\"text\":\"1\"}\n");
	bx_frame_reader_init(&rd, a);
	m = next(&rd);
	assert_int_equal(m->turn_event.type, BX_EVENT_STARTED);
	bx_msg_free(m);
	/* The model request in flight ends; the turn says why. */
	atomic_store(&s.stop, 1);
	m = next(&rd);
	assert_non_null(m);
	assert_int_equal(m->turn_event.type, BX_EVENT_ERROR);
	assert_non_null(strstr(m->turn_event.text, "loopd is stopping"));
	bx_msg_free(m);
	bx_frame_reader_free(&rd);
	close(a);
	stop(&s);
}

static void
test_bad_requests(void **state)
{
	static const struct {
		const char	*line;
		enum bx_code	 code;
	} cases[] = {
		{ "not json\n", BX_CODE_BAD_REQUEST },
		{ "{\"kind\":\"chat\",\"session\":\"Bad Id\",\"text\":\"x\"}\n",
		    BX_CODE_BAD_REQUEST },
		/* A missing required field; an absent session would be null. */
		{ "{\"kind\":\"chat\",\"session\":null}\n", BX_CODE_BAD_REQUEST },
		{ "{\"kind\":\"approvals\"}\n", BX_CODE_FORBIDDEN },
		{ "{\"kind\":\"tool_request\",\"session\":\"a\",\"call\":\"b\","
		    "\"tool\":\"shell\",\"arguments\":\"{}\"}\n",
		    BX_CODE_FORBIDDEN },
		{ "{\"kind\":\"chat\"", BX_CODE_BAD_REQUEST },
	};
	struct tu_events ev;
	struct server s;
	size_t i;
	int fd;

	(void)state;
	start(&s, "[]");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		memset(&ev, 0, sizeof(ev));
		if (strchr(cases[i].line, '\n') == NULL) {
			/* A half frame, then the client closes its side. */
			struct bx_frame_reader rd;
			struct bx_msg *m;

			fd = dial(s.path);
			send_line(fd, cases[i].line);
			shutdown(fd, SHUT_WR);
			bx_frame_reader_init(&rd, fd);
			while ((m = next(&rd)) != NULL)
				tu_record(&ev, m);
			bx_frame_reader_free(&rd);
			close(fd);
		} else
			chat(s.path, cases[i].line, &ev);
		assert_int_equal(ev.n, 1);
		assert_int_equal(ev.ev[0]->kind, BX_MSG_ERROR);
		assert_int_equal(ev.ev[0]->error.code, cases[i].code);
		tu_events_free(&ev);
	}
	assert_int_equal(fake_llama_request_count(s.fl), 0);
	stop(&s);
}

static void
test_stale_and_live_sockets(void **state)
{
	struct bx_unix_file made;
	struct bx_error err;
	char *dir = tu_tmpdir(), path[256];
	int fd, fd2;

	(void)state;
	snprintf(path, sizeof(path), "%s/loop.sock", dir);
	/* A socket left behind by a loopd that died. */
	assert_int_equal(bx_unix_listen(path, 1, 0, &fd, &made, &err), 0);
	close(fd);
	assert_int_equal(loop_serve_bind(path, &fd, &made, &err), 0);
	/* A live one is not taken over. */
	assert_int_equal(loop_serve_bind(path, &fd2, &made, &err), -1);
	assert_non_null(strstr(err.msg, "already listening"));
	close(fd);
	unlink(path);
	/* Nor is a file that is not a socket. */
	tu_write(dir, "loop.sock", "x", 1);
	assert_int_equal(loop_serve_bind(path, &fd2, &made, &err), -1);
	assert_non_null(strstr(err.msg, "is not a socket"));
	tu_rmtree(dir);
}

static void
test_stop_leaves_a_successors_socket(void **state)
{
	struct server s;
	struct bx_unix_file theirs;
	struct bx_error err;
	struct stat st;
	int fd;

	(void)state;
	start(&s, "[{\"text\":\"hello\"}]");
	/* Another loopd took the path over (ours removed by hand). */
	assert_int_equal(unlink(s.path), 0);
	assert_int_equal(bx_unix_listen(s.path, 1, 0, &fd, &theirs, &err), 0);
	atomic_store(&s.stop, 1);
	pthread_join(s.thread, NULL);
	assert_int_equal(s.rc, 0);
	/* Stopping left the successor's socket where it was. */
	assert_int_equal(lstat(s.path, &st), 0);
	assert_true(st.st_ino == theirs.uf_ino);
	close(fd);
	bx_unix_remove(s.path, &theirs);
	fake_llama_stop(s.fl);
	model_client_free(s.mc);
	tu_rmtree(s.home);
}

static void
test_peer_check(void **state)
{
	const char *hi =
	    "{\"kind\":\"chat\",\"session\":null,\"text\":\"hi\"}\n";
	struct server s;
	struct bx_msg *m;

	(void)state;
	if (geteuid() != 0)
		skip();
	start_for(&s, "[{\"text\":\"hello\"},{\"text\":\"again\"}]",
	    OWNER_UID);
	/* Another uid, twice: refused each time, printed once. */
	peer_expect_forbidden(peer_exchange(OTHER_UID, s.path, hi),
	    "loop.sock", OTHER_UID);
	peer_expect_forbidden(peer_exchange(OTHER_UID, s.path, hi),
	    "loop.sock", OTHER_UID);
	assert_int_equal(logged(&s, "refused a connection on loop.sock from "
	    "uid 4343: loop.sock serves only uids 4242 and 0; "
	    "see docs/runbook.md#socket-forbidden"), 1);
	/* Before anything is read: a client that sends nothing is told too. */
	peer_expect_forbidden(peer_exchange(OTHER_UID + 1, s.path, NULL),
	    "loop.sock", OTHER_UID + 1);
	assert_int_equal(fake_llama_request_count(s.fl), 0);
	/* The owner is served, and root. */
	m = peer_exchange(OWNER_UID, s.path, hi);
	assert_int_equal(m->kind, BX_MSG_TURN_EVENT);
	assert_int_equal(m->turn_event.type, BX_EVENT_STARTED);
	bx_msg_free(m);
	m = peer_exchange(0, s.path, hi);
	assert_int_equal(m->kind, BX_MSG_TURN_EVENT);
	bx_msg_free(m);
	assert_int_equal(logged(&s, "refused"), 2);
	stop(&s);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chat_over_socket),
		cmocka_unit_test(test_busy_session),
		cmocka_unit_test(test_stop_cuts_a_turn_short),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_stale_and_live_sockets),
		cmocka_unit_test(test_stop_leaves_a_successors_socket),
		cmocka_unit_test(test_peer_check),
	};

	signal(SIGPIPE, SIG_IGN);
	curl_global_init(CURL_GLOBAL_DEFAULT);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
