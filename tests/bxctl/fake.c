/*
 * fake.c: the fake admin socket and fake loopd (fake.h). One thread per
 * fake accepts connections and serves them one at a time; a pipe wakes it
 * to stop.
 */
#include <sys/socket.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "proto/frame.h"
#include "proto/unixsock.h"
#include "fake.h"
#include "run.h"

/* Generous: nothing here is timed, these only stop a stuck test. */
#define FAKE_IO_TIMEOUT_MS	30000
#define FAKE_WAIT_TIMEOUT_S	30
#define FAKE_KINDS_MAX		16
#define FAKE_SCRIPT_MAX		64

enum fake_role {
	FAKE_ADMIN,
	FAKE_LOOP,
};

struct fake_reply {
	char	*kind;
	char	*line;		/* NULL: close without answering */
};

struct fake {
	enum fake_role		 role;
	int			 listen_fd;
	int			 wake[2];
	pthread_t		 thread;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	char			**received;
	size_t			 nreceived;
	struct fake_reply	 replies[FAKE_KINDS_MAX];
	size_t			 nreplies;
	char			*script[FAKE_SCRIPT_MAX];
	size_t			 nscript;
	struct fake		*admin;
	size_t			 released;	/* fake_loop_release() calls */
};

static void
die(const char *what)
{
	fprintf(stderr, "fake: %s: %s\n", what, strerror(errno));
	abort();
}

/* The "kind" of a frame, into buf; "" if it has none. */
static void
frame_kind(const char *line, char *buf, size_t size)
{
	json_t *obj, *kind;

	buf[0] = '\0';
	if ((obj = json_loads(line, 0, NULL)) == NULL)
		return;
	kind = json_object_get(obj, "kind");
	if (json_is_string(kind))
		snprintf(buf, size, "%s", json_string_value(kind));
	json_decref(obj);
}

static void
record(struct fake *f, const char *line, size_t len)
{
	char *copy;

	if ((copy = strndup(line, len)) == NULL)
		die("strndup");
	pthread_mutex_lock(&f->mu);
	f->received = realloc(f->received,
	    (f->nreceived + 1) * sizeof(*f->received));
	if (f->received == NULL)
		die("realloc");
	f->received[f->nreceived++] = copy;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

static void
send_line(int fd, const char *line)
{
	size_t len = strlen(line);
	char *buf;

	if ((buf = malloc(len + 1)) == NULL)
		die("malloc");
	memcpy(buf, line, len);
	buf[len] = '\n';
	/* A client that went away is its own test's business. */
	(void)bx_frame_write(fd, buf, len + 1, FAKE_IO_TIMEOUT_MS, NULL);
	free(buf);
}

static void
serve_admin(struct fake *f, struct bx_frame_reader *fr, int fd)
{
	char kind[64], err[256], *reply = NULL;
	const char *line;
	bool found = false;
	size_t len, i;

	if (bx_frame_read(fr, FAKE_IO_TIMEOUT_MS, &line, &len, NULL) !=
	    BX_FRAME_OK)
		return;
	record(f, line, len);
	frame_kind(line, kind, sizeof(kind));
	pthread_mutex_lock(&f->mu);
	for (i = 0; i < f->nreplies && !found; i++) {
		if (strcmp(f->replies[i].kind, kind) != 0)
			continue;
		found = true;
		if (f->replies[i].line != NULL &&
		    (reply = strdup(f->replies[i].line)) == NULL)
			die("strdup");
	}
	pthread_mutex_unlock(&f->mu);
	if (!found) {
		snprintf(err, sizeof(err), "{\"kind\":\"error\",\"code\":"
		    "\"bad_request\",\"message\":\"the fake has no answer "
		    "to %s\"}", kind);
		send_line(fd, err);
	} else if (reply != NULL)
		send_line(fd, reply);
	free(reply);
}

/*
 * Waits until the admin fake has received an approve or refuse after its
 * first `from` frames; returns 'a', 'r', or 0 if none came in time.
 */
static int
wait_answer(struct fake *admin, size_t from)
{
	struct timespec deadline;
	char kind[64];
	int answer = 0, rc = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += FAKE_WAIT_TIMEOUT_S;
	pthread_mutex_lock(&admin->mu);
	while (answer == 0 && rc == 0) {
		for (; from < admin->nreceived && answer == 0; from++) {
			frame_kind(admin->received[from], kind, sizeof(kind));
			if (strcmp(kind, "approve") == 0)
				answer = 'a';
			else if (strcmp(kind, "refuse") == 0)
				answer = 'r';
		}
		if (answer == 0)
			rc = pthread_cond_timedwait(&admin->cv, &admin->mu,
			    &deadline);
	}
	pthread_mutex_unlock(&admin->mu);
	return answer;
}

/* Waits (bounded) until the test has released gate number n (from 1). */
static void
wait_gate(struct fake *f, size_t n)
{
	struct timespec deadline;
	int rc = 0;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += FAKE_WAIT_TIMEOUT_S;
	pthread_mutex_lock(&f->mu);
	while (f->released < n && rc == 0)
		rc = pthread_cond_timedwait(&f->cv, &f->mu, &deadline);
	pthread_mutex_unlock(&f->mu);
}

/* Waits (bounded) until bxctl closes; records "@closed" if it did. */
static void
await_close(struct fake *f, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, FAKE_IO_TIMEOUT_MS) > 0 && read(fd, &c, 1) == 0)
		record(f, "@closed", 7);
}

static void
serve_loop(struct fake *f, struct bx_frame_reader *fr, int fd)
{
	const char *line;
	size_t len, i, mark = 0, gates = 0;
	int answer = 0;

	if (bx_frame_read(fr, FAKE_IO_TIMEOUT_MS, &line, &len, NULL) !=
	    BX_FRAME_OK)
		return;
	if (f->admin != NULL)
		mark = fake_count(f->admin);
	record(f, line, len);
	for (i = 0; i < f->nscript; i++) {
		line = f->script[i];
		if (strcmp(line, "@wait") == 0) {
			answer = wait_answer(f->admin, mark);
			continue;
		}
		if (strcmp(line, "@gate") == 0) {
			wait_gate(f, ++gates);
			continue;
		}
		if (strcmp(line, "@hangup") == 0) {
			await_close(f, fd);
			return;
		}
		if (strncmp(line, "@approved ", 10) == 0) {
			if (answer == 'a')
				send_line(fd, line + 10);
			continue;
		}
		if (strncmp(line, "@refused ", 9) == 0) {
			if (answer == 'r')
				send_line(fd, line + 9);
			continue;
		}
		send_line(fd, line);
	}
}

static void *
serve(void *arg)
{
	struct fake *f = arg;
	struct bx_frame_reader fr;
	struct pollfd pfd[2];
	int fd;

	for (;;) {
		pfd[0].fd = f->listen_fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = f->wake[0];
		pfd[1].events = POLLIN;
		if (poll(pfd, 2, -1) == -1) {
			if (errno == EINTR)
				continue;
			die("poll");
		}
		if (pfd[1].revents != 0)
			return NULL;
		if ((fd = accept4(f->listen_fd, NULL, NULL, SOCK_CLOEXEC)) ==
		    -1)
			continue;
		bx_frame_reader_init(&fr, fd);
		if (f->role == FAKE_ADMIN)
			serve_admin(f, &fr, fd);
		else
			serve_loop(f, &fr, fd);
		bx_frame_reader_free(&fr);
		close(fd);
	}
}

/* admin is set before the thread starts, which reads it. */
static struct fake *
start(const char *path, enum fake_role role, struct fake *admin)
{
	struct bx_unix_file made;
	struct bx_error err;
	struct fake *f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		die("calloc");
	f->role = role;
	f->admin = admin;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	if (bx_unix_listen(path, 16, 0, &f->listen_fd, &made, &err) == -1) {
		fprintf(stderr, "fake: %s\n", err.msg);
		abort();
	}
	if (pipe2(f->wake, O_CLOEXEC) == -1)
		die("pipe2");
	if (pthread_create(&f->thread, NULL, serve, f) != 0)
		die("pthread_create");
	return f;
}

struct fake *
fake_admin_start(const char *path)
{
	return start(path, FAKE_ADMIN, NULL);
}

struct fake *
fake_loop_start(const char *path, struct fake *admin)
{
	return start(path, FAKE_LOOP, admin);
}

void
fake_admin_reply(struct fake *f, const char *kind, const char *line)
{
	struct fake_reply *r = NULL;
	size_t i;

	pthread_mutex_lock(&f->mu);
	for (i = 0; i < f->nreplies; i++)
		if (strcmp(f->replies[i].kind, kind) == 0)
			r = &f->replies[i];
	if (r == NULL) {
		if (f->nreplies == FAKE_KINDS_MAX)
			abort();
		r = &f->replies[f->nreplies++];
		if ((r->kind = strdup(kind)) == NULL)
			die("strdup");
	} else
		free(r->line);
	r->line = NULL;
	if (line != NULL && (r->line = strdup(line)) == NULL)
		die("strdup");
	pthread_mutex_unlock(&f->mu);
}

void
fake_loop_script(struct fake *f, const char *line)
{
	pthread_mutex_lock(&f->mu);
	if (f->nscript == FAKE_SCRIPT_MAX)
		abort();
	if ((f->script[f->nscript++] = strdup(line)) == NULL)
		die("strdup");
	pthread_mutex_unlock(&f->mu);
}

void
fake_loop_release(struct fake *f)
{
	pthread_mutex_lock(&f->mu);
	f->released++;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
}

size_t
fake_count(struct fake *f)
{
	size_t n;

	pthread_mutex_lock(&f->mu);
	n = f->nreceived;
	pthread_mutex_unlock(&f->mu);
	return n;
}

const char *
fake_received(struct fake *f, size_t i)
{
	const char *line = NULL;

	pthread_mutex_lock(&f->mu);
	if (i < f->nreceived)
		line = f->received[i];
	pthread_mutex_unlock(&f->mu);
	return line;
}

void
fake_stop(struct fake *f)
{
	size_t i;

	if (f == NULL)
		return;
	if (write(f->wake[1], "x", 1) != 1)
		die("write");
	pthread_join(f->thread, NULL);
	close(f->listen_fd);
	close(f->wake[0]);
	close(f->wake[1]);
	for (i = 0; i < f->nreceived; i++)
		free(f->received[i]);
	free(f->received);
	for (i = 0; i < f->nreplies; i++) {
		free(f->replies[i].kind);
		free(f->replies[i].line);
	}
	for (i = 0; i < f->nscript; i++)
		free(f->script[i]);
	pthread_mutex_destroy(&f->mu);
	pthread_cond_destroy(&f->cv);
	free(f);
}

int
fake_pair_setup(void **state)
{
	struct fake_pair *e;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		abort();
	e->dir = run_tempdir();
	snprintf(e->admin_sock, sizeof(e->admin_sock), "%s/admin.sock",
	    e->dir);
	snprintf(e->loop_sock, sizeof(e->loop_sock), "%s/loop.sock", e->dir);
	e->admin = fake_admin_start(e->admin_sock);
	e->loop = fake_loop_start(e->loop_sock, e->admin);
	*state = e;
	return 0;
}

int
fake_pair_teardown(void **state)
{
	struct fake_pair *e = *state;

	fake_stop(e->loop);
	fake_stop(e->admin);
	run_rmdir(e->dir);
	free(e);
	return 0;
}
