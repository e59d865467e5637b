/*
 * serve.c: loop.sock's listener and its connections. The accept loop
 * starts a thread per connection, which reads one chat frame, runs the
 * turn and streams its events; while the turn runs, a watcher thread of
 * its own waits for the client to hang up, which is the owner's stop, and
 * for the turn's time limit, which stops it the same way.
 */
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/clock.h"
#include "proto/frame.h"
#include "proto/message.h"
#include "proto/unixsock.h"
#include "loopd/busy.h"
#include "loopd/serve.h"

struct server {
	const struct turn_env	*s_env;
	const struct bx_peer_rule *s_peers;
	struct bx_peer_seen	 s_seen;	/* the accept loop's alone */
	struct busy		*s_busy;
	pthread_mutex_t		 s_lock;
	pthread_cond_t		 s_done;
	int			 s_threads;
};

struct conn {
	struct server	*c_server;
	int		 c_fd;
	bool		 c_gone;	/* a write failed: drop later events */
	atomic_int	 c_cancel;	/* why the turn stops (toolport.h) */
	int64_t		 c_deadline;	/* monotonic ms; 0: no time limit */
	int		 c_wake[2];	/* a pipe that ends the watcher */
	pthread_t	 c_watcher;
};

int
loop_serve_bind(const char *path, int *ret_fd, struct bx_unix_file *ret_made,
    struct bx_error *err)
{
	return bx_unix_listen(path, LOOP_SERVE_BACKLOG, 0, ret_fd, ret_made,
	    err);
}

/* The first reason stays: the turn's messages name the one that came. */
static void
stop_turn(struct conn *c, int why)
{
	int none = 0;

	atomic_compare_exchange_strong(&c->c_cancel, &none, why);
}

static void
emit(void *arg, struct bx_msg *ev)
{
	struct conn *c = arg;
	struct bx_error err;

	if (!c->c_gone && bx_msg_send(c->c_fd, ev, LOOP_SERVE_WRITE_TIMEOUT_MS,
	    &err) == -1) {
		/* Nobody reads the turn any more: it stops as on a hang-up. */
		c->c_gone = true;
		stop_turn(c, TURN_STOP_OWNER);
	}
	bx_msg_free(ev);
}

/* Best effort: the connection is being closed anyway. */
static void
send_error(int fd, enum bx_code code, const char *message, int timeout_ms)
{
	struct bx_error err;
	struct bx_msg *m;

	if ((m = bx_msg_error(code, message)) == NULL)
		return;
	bx_msg_send(fd, m, timeout_ms, &err);
	bx_msg_free(m);
}

static void
answer_error(struct conn *c, enum bx_code code, const char *message)
{
	send_error(c->c_fd, code, message, LOOP_SERVE_WRITE_TIMEOUT_MS);
}

/* Reads the chat frame; answers and returns NULL when there is none. */
static struct bx_msg *
read_chat(struct conn *c)
{
	struct bx_frame_reader rd;
	enum bx_frame_status st;
	struct bx_msg *m = NULL;
	struct bx_error err;
	const char *line;
	size_t len;

	bx_frame_reader_init(&rd, c->c_fd);
	st = bx_frame_read(&rd, LOOP_SERVE_READ_TIMEOUT_MS, &line, &len, &err);
	if (st == BX_FRAME_TOO_LARGE)
		answer_error(c, BX_CODE_FRAME_TOO_LARGE, err.msg);
	else if (st == BX_FRAME_TIMEOUT || st == BX_FRAME_PARTIAL)
		answer_error(c, BX_CODE_BAD_REQUEST, "no complete chat frame "
		    "arrived");
	else if (st == BX_FRAME_OK && bx_msg_decode(line, len, &m, &err) == -1)
		answer_error(c, BX_CODE_BAD_REQUEST, err.msg);
	else if (m != NULL && m->kind != BX_MSG_CHAT) {
		answer_error(c, BX_CODE_FORBIDDEN, "loop.sock takes chat "
		    "messages only");
		bx_msg_free(m);
		m = NULL;
	}
	bx_frame_reader_free(&rd);
	return m;
}

/* Milliseconds until the turn's time limit, for poll(); -1: none. */
static int
until_deadline(const struct conn *c)
{
	int64_t left;

	if (c->c_deadline == 0)
		return -1;
	left = c->c_deadline - bx_clock_mono_ms();
	if (left <= 0)
		return 0;
	return left > INT_MAX ? INT_MAX : (int)left;
}

/*
 * Waits for the client to close its end (POLLHUP; a half close, POLLRDHUP,
 * is not a stop: a client may shut down its sending side after its one
 * frame), for the turn's time limit, or for the wake pipe. Its events are
 * 0 on the connection, so bytes the client sends do not wake it.
 */
static void *
watch_main(void *arg)
{
	struct conn *c = arg;
	struct pollfd pfd[2] = {
		{ .fd = c->c_fd, .events = 0 },
		{ .fd = c->c_wake[0], .events = POLLIN },
	};
	int r;

	for (;;) {
		if ((r = poll(pfd, 2, until_deadline(c))) == -1) {
			if (errno == EINTR)
				continue;
			return NULL;
		}
		if (r == 0) {
			if (until_deadline(c) != 0)
				continue;
			stop_turn(c, TURN_STOP_MAX_S);
			return NULL;
		}
		if (pfd[1].revents != 0)
			return NULL;
		if ((pfd[0].revents & (POLLHUP | POLLERR | POLLNVAL)) != 0) {
			stop_turn(c, TURN_STOP_OWNER);
			return NULL;
		}
	}
}

/*
 * Starts the watcher; false if it could not be (the turn is then refused:
 * nothing else would stop it at its time limit).
 */
static bool
watch_start(struct conn *c)
{
	if (pipe2(c->c_wake, O_CLOEXEC) == -1)
		return false;
	if (pthread_create(&c->c_watcher, NULL, watch_main, c) == 0)
		return true;
	close(c->c_wake[0]);
	close(c->c_wake[1]);
	return false;
}

static void
watch_stop(struct conn *c)
{
	/* A fresh pipe with room: only a signal can stop the write. */
	while (write(c->c_wake[1], "x", 1) == -1 && errno == EINTR)
		continue;
	pthread_join(c->c_watcher, NULL);
	close(c->c_wake[0]);
	close(c->c_wake[1]);
}

static void
handle(struct conn *c)
{
	struct server *s = c->c_server;
	char id[BX_ID_MAX + 1], msg[256];
	struct bx_msg *m;

	if ((m = read_chat(c)) == NULL)
		return;
	if (m->chat.session == NULL) {
		if (busy_new_session(s->s_busy, s->s_env->te_home, id) == -1) {
			answer_error(c, BX_CODE_INTERNAL, "out of memory");
			goto out;
		}
	} else {
		snprintf(id, sizeof(id), "%s", m->chat.session);
		if (busy_claim(s->s_busy, id) == -1) {
			snprintf(msg, sizeof(msg), "session %s already has a "
			    "turn in progress", id);
			answer_error(c, BX_CODE_BUSY, msg);
			goto out;
		}
	}
	if (s->s_env->te_max_s > 0)
		c->c_deadline = bx_clock_mono_ms() +
		    (int64_t)s->s_env->te_max_s * 1000;
	if (watch_start(c)) {
		turn_run(s->s_env, id, m->chat.text, &c->c_cancel, emit, c);
		watch_stop(c);
	} else
		answer_error(c, BX_CODE_INTERNAL, "loopd could not start the "
		    "thread that watches this turn for its stop and its time "
		    "limit; try again");
	busy_release(s->s_busy, id);
out:
	bx_msg_free(m);
}

static void *
conn_main(void *arg)
{
	struct conn *c = arg;
	struct server *s = c->c_server;

	handle(c);
	close(c->c_fd);
	free(c);
	pthread_mutex_lock(&s->s_lock);
	s->s_threads--;
	pthread_cond_signal(&s->s_done);
	pthread_mutex_unlock(&s->s_lock);
	return NULL;
}

static void
start_conn(struct server *s, int fd)
{
	pthread_attr_t attr;
	struct conn *c = NULL, refused = { .c_server = s,
	    .c_fd = fd };
	pthread_t tid;
	bool room;
	int r;

	pthread_mutex_lock(&s->s_lock);
	room = s->s_threads < LOOP_SERVE_MAX_CONNECTIONS;
	if (room)
		s->s_threads++;
	pthread_mutex_unlock(&s->s_lock);
	if (room && (c = calloc(1, sizeof(*c))) != NULL) {
		c->c_server = s;
		c->c_fd = fd;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		r = pthread_create(&tid, &attr, conn_main, c);
		pthread_attr_destroy(&attr);
		if (r == 0)
			return;
	}
	answer_error(&refused, BX_CODE_BUSY, "loopd has too many connections; "
	    "try again");
	close(fd);
	free(c);
	if (!room)
		return;
	pthread_mutex_lock(&s->s_lock);
	s->s_threads--;
	pthread_mutex_unlock(&s->s_lock);
}

/*
 * Whether fd's peer is a uid loop.sock serves. If not, before a byte of it
 * is read, it gets error forbidden and is closed; the refusal is logged
 * the first time its uid is refused.
 */
static bool
peer_served(struct server *s, int fd)
{
	const struct turn_env *env = s->s_env;
	struct bx_error err;
	uid_t uid;

	if (bx_peer_check(fd, s->s_peers, &uid, &err) == 0)
		return true;
	if (bx_peer_seen_first(&s->s_seen, uid) && env->te_log != NULL)
		env->te_log(env->te_log_arg, err.msg);
	send_error(fd, BX_CODE_FORBIDDEN, err.msg,
	    LOOP_SERVE_REFUSE_TIMEOUT_MS);
	close(fd);
	return false;
}

/* Waits for connection threads to end, at most the grace period. */
static void
drain(struct server *s)
{
	struct timespec ts;

	bx_clock_after(CLOCK_MONOTONIC, LOOP_SERVE_STOP_GRACE_MS, &ts);
	pthread_mutex_lock(&s->s_lock);
	while (s->s_threads > 0)
		if (pthread_cond_timedwait(&s->s_done, &s->s_lock, &ts) != 0)
			break;
	pthread_mutex_unlock(&s->s_lock);
}

int
loop_serve_run(int fd, const char *path, const struct bx_unix_file *made,
    const struct turn_env *env, const struct bx_peer_rule *peers,
    const atomic_int *stop, const sigset_t *wait_mask, struct bx_error *err)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct timespec tick = { 0, LOOP_SERVE_POLL_MS * 1000000L };
	struct server *s;
	int cfd, left;

	if ((s = calloc(1, sizeof(*s))) == NULL ||
	    (s->s_busy = busy_new()) == NULL) {
		free(s);
		return bx_fail(err, "out of memory");
	}
	s->s_env = env;
	s->s_peers = peers;
	pthread_mutex_init(&s->s_lock, NULL);
	bx_clock_cond_init(&s->s_done);
	while (!atomic_load(stop)) {
		if (ppoll(&pfd, 1, &tick, wait_mask) <= 0)
			continue;
		cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		if (cfd != -1) {
			if (peer_served(s, cfd))
				start_conn(s, cfd);
		} else if (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)
			/*
			 * The connection stays queued, so the listener stays
			 * readable: wait a tick instead of spinning on it.
			 */
			ppoll(NULL, 0, &tick, wait_mask);
	}
	close(fd);
	/* Only the socket made: a successor's at path is left alone. */
	bx_unix_remove(path, made);
	drain(s);
	pthread_mutex_lock(&s->s_lock);
	left = s->s_threads;
	pthread_mutex_unlock(&s->s_lock);
	/* Threads still running use s: it is left to the process's exit. */
	if (left > 0)
		return bx_fail(err, "%d turns were still running after %d s",
		    left, LOOP_SERVE_STOP_GRACE_MS / 1000);
	pthread_cond_destroy(&s->s_done);
	pthread_mutex_destroy(&s->s_lock);
	busy_free(s->s_busy);
	free(s);
	return 0;
}
