/* fake_brokerd.c: the scripted broker.sock of the loopd tests. */
#include <sys/socket.h>
#include <sys/un.h>

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/clock.h"
#include "proto/frame.h"
#include "proto/unixsock.h"
#include "fake_brokerd.h"

struct fbd {
	char			 f_path[108];
	int			 f_listen;
	pthread_t		 f_thread;
	const struct fbd_step	*f_steps;
	size_t			 f_nsteps;
	pthread_mutex_t		 f_lock;
	struct bx_msg		*f_requests[64];
	size_t			 f_nrequests;
	int			 f_stopping;
	size_t			 f_hangups;	/* loopd closed while pending */
};

static int
stopping(struct fbd *f)
{
	int r;

	pthread_mutex_lock(&f->f_lock);
	r = f->f_stopping;
	pthread_mutex_unlock(&f->f_lock);
	return r;
}

/* Accepts the next connection, or -1 once fbd_stop() was called. */
static int
next_conn(struct fbd *f)
{
	struct pollfd pfd = { .fd = f->f_listen, .events = POLLIN };

	while (!stopping(f))
		if (poll(&pfd, 1, 100) > 0)
			return accept4(f->f_listen, NULL, NULL, SOCK_CLOEXEC);
	return -1;
}

static void
send_msg(int fd, struct bx_msg *m)
{
	struct bx_error err;

	if (m != NULL)
		bx_msg_send(fd, m, 5000, &err);
	bx_msg_free(m);
}

static void
pending(int fd, const struct fbd_step *s)
{
	send_msg(fd, bx_msg_pending(s->fa_approval, s->fa_expires != 0 ?
	    s->fa_expires : bx_clock_wall_ms() + 3600 * 1000));
}

/* Waits (bounded) until the peer closes; counts it if it did. */
static void
await_hangup(struct fbd *f, int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	char c;

	if (poll(&pfd, 1, 30000) > 0 && read(fd, &c, 1) == 0) {
		pthread_mutex_lock(&f->f_lock);
		f->f_hangups++;
		pthread_mutex_unlock(&f->f_lock);
	}
}

/*
 * An approved call that runs until the test lets it end (at most 20 s):
 * what loopd does meanwhile is what the test looks at.
 */
static void
approved_run(int fd, const struct fbd_step *s)
{
	struct timespec nap = { 0, 10 * 1000000L };
	int64_t until = bx_clock_mono_ms() + 20000;

	pending(fd, s);
	send_msg(fd, bx_msg_approved());
	while (s->fa_hold != NULL && !atomic_load(s->fa_hold) &&
	    bx_clock_mono_ms() < until)
		nanosleep(&nap, NULL);
	send_msg(fd, bx_msg_result(s->fa_text, BX_CLASS_PRIVATE, true,
	    false));
}

static void
act(struct fbd *f, int fd, const struct fbd_step *s)
{
	switch (s->fa_act) {
	case FBD_RESULT:
		send_msg(fd, bx_msg_result(s->fa_text, BX_CLASS_PRIVATE, true,
		    false));
		break;
	case FBD_DENY:
		send_msg(fd, bx_msg_denied(s->fa_reason));
		break;
	case FBD_PENDING_DENY:
		pending(fd, s);
		send_msg(fd, bx_msg_denied(s->fa_reason));
		break;
	case FBD_PENDING_RESULT:
		pending(fd, s);
		send_msg(fd, bx_msg_result(s->fa_text, BX_CLASS_PRIVATE, true,
		    false));
		break;
	case FBD_PENDING_CLOSE:
		pending(fd, s);
		break;
	case FBD_PENDING_SILENT:
		pending(fd, s);
		await_hangup(f, fd);
		break;
	case FBD_CLOSE:
		break;
	case FBD_GARBAGE:
		(void)!write(fd, "this is not json\n", 17);
		break;
	case FBD_ERROR:
		send_msg(fd, bx_msg_error(BX_CODE_BUSY, "too many calls"));
		break;
	case FBD_TWO_PENDING:
		pending(fd, s);
		pending(fd, s);
		await_hangup(f, fd);
		break;
	case FBD_PENDING_APPROVED:
		approved_run(fd, s);
		break;
	}
}

static void *
serve(void *arg)
{
	struct fbd *f = arg;
	struct bx_frame_reader rd;
	struct bx_msg *m;
	struct bx_error err;
	const char *line;
	size_t len, i;
	int fd;

	for (i = 0; i < f->f_nsteps; i++) {
		if ((fd = next_conn(f)) == -1)
			break;
		bx_frame_reader_init(&rd, fd);
		if (bx_frame_read(&rd, 10000, &line, &len, &err) ==
		    BX_FRAME_OK && bx_msg_decode(line, len, &m, &err) == 0) {
			pthread_mutex_lock(&f->f_lock);
			if (f->f_nrequests < 64)
				f->f_requests[f->f_nrequests++] = m;
			else
				bx_msg_free(m);
			pthread_mutex_unlock(&f->f_lock);
			act(f, fd, &f->f_steps[i]);
		}
		bx_frame_reader_free(&rd);
		close(fd);
	}
	return NULL;
}

struct fbd *
fbd_start(const char *dir, const struct fbd_step *steps, size_t n)
{
	struct bx_unix_file made;
	struct bx_error err;
	struct fbd *f;

	if ((f = calloc(1, sizeof(*f))) == NULL)
		abort();
	snprintf(f->f_path, sizeof(f->f_path), "%s/broker.sock", dir);
	if (bx_unix_listen(f->f_path, 8, 0, &f->f_listen, &made, &err) == -1) {
		fprintf(stderr, "fake brokerd: %s\n", err.msg);
		abort();
	}
	f->f_steps = steps;
	f->f_nsteps = n;
	pthread_mutex_init(&f->f_lock, NULL);
	if (pthread_create(&f->f_thread, NULL, serve, f) != 0)
		abort();
	return f;
}

void
fbd_stop(struct fbd *f)
{
	size_t i;

	if (f == NULL)
		return;
	pthread_mutex_lock(&f->f_lock);
	f->f_stopping = 1;
	pthread_mutex_unlock(&f->f_lock);
	pthread_join(f->f_thread, NULL);
	close(f->f_listen);
	unlink(f->f_path);
	for (i = 0; i < f->f_nrequests; i++)
		bx_msg_free(f->f_requests[i]);
	pthread_mutex_destroy(&f->f_lock);
	free(f);
}

const char *
fbd_path(const struct fbd *f)
{
	return f->f_path;
}

size_t
fbd_count(struct fbd *f)
{
	size_t n;

	pthread_mutex_lock(&f->f_lock);
	n = f->f_nrequests;
	pthread_mutex_unlock(&f->f_lock);
	return n;
}

size_t
fbd_hangups(struct fbd *f)
{
	size_t n;

	pthread_mutex_lock(&f->f_lock);
	n = f->f_hangups;
	pthread_mutex_unlock(&f->f_lock);
	return n;
}

const struct bx_tool_request *
fbd_request(struct fbd *f, size_t i)
{
	const struct bx_tool_request *r = NULL;

	pthread_mutex_lock(&f->f_lock);
	if (i < f->f_nrequests)
		r = &f->f_requests[i]->tool_request;
	pthread_mutex_unlock(&f->f_lock);
	return r;
}
