/*
 * relay.c: a relay's listener and its workers (relay.h). The
 * accept thread checks each peer's uid before reading anything and hands
 * the connection to an idle worker, starting one only when none is idle.
 * A worker then waits for the next connection instead of ending: waking
 * a waiting thread is quick, where a new thread on a busy machine may
 * wait a scheduler tick to run (bench/README.md). Workers connect and
 * copy (relay_copy.c). Every poll also watches r_stop, an eventfd written
 * once by relay_free() and never read, so one write wakes every thread.
 */
#include <sys/eventfd.h>
#include <sys/socket.h>

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/clock.h"
#include "proto/unixsock.h"
#include "jailrun/relay_impl.h"

/* How long the accept loop rests when it is out of descriptors. */
#define RELAY_RETRY_MS	100

struct relay {
	const char		*r_name;	/* "model": what it reaches */
	char			*r_path;
	struct relay_target	 r_target;
	uid_t			 r_uid;
	void			(*r_log)(void *, const char *);
	void			*r_log_arg;
	int			 r_listen;
	struct bx_unix_file	 r_made;
	int			 r_stop;	/* eventfd: stopping */
	bool			 r_started;
	pthread_t		 r_accept;
	uid_t			 r_logged[RELAY_MAX_LOGGED_UIDS];
	size_t			 r_nlogged;	/* accept thread's */
	/* r_lock guards the rest. */
	pthread_mutex_t		 r_lock;
	pthread_cond_t		 r_work;	/* a queued fd, or stop */
	pthread_cond_t		 r_done;	/* a worker ended */
	int			 r_queue[RELAY_MAX_CONNECTIONS];
	int			 r_queued;
	int			 r_active;	/* queued or copying */
	int			 r_workers;	/* started, not ended */
	int			 r_idle;	/* of them, waiting */
	bool			 r_stopping;
	bool			 r_orphaned;	/* last worker frees */
};

struct worker {
	struct relay		*w_relay;
	struct relay_pipe	 w_pipe;
};

/* Frees r and closes what it holds; no thread uses it any more. */
static void
destroy(struct relay *r)
{
	int i;

	for (i = 0; i < r->r_queued; i++)
		close(r->r_queue[i]);
	if (r->r_stop != -1)
		close(r->r_stop);
	pthread_cond_destroy(&r->r_work);
	pthread_cond_destroy(&r->r_done);
	pthread_mutex_destroy(&r->r_lock);
	free(r->r_path);
	free(r);
}

int
relay_new(const char *name, const char *sock_path, const char *url,
    uid_t allowed_uid, void (*log)(void *, const char *), void *log_arg,
    struct relay **ret, struct bx_error *err)
{
	struct relay_target t;
	struct relay *r;

	if (relay_parse_url(name, url, &t, err) == -1)
		return -1;
	if ((r = calloc(1, sizeof(*r))) == NULL)
		return bx_fail(err, "out of memory");
	r->r_name = name;
	r->r_target = t;
	r->r_uid = allowed_uid;
	r->r_log = log;
	r->r_log_arg = log_arg;
	r->r_listen = -1;
	pthread_mutex_init(&r->r_lock, NULL);
	pthread_cond_init(&r->r_work, NULL);
	bx_clock_cond_init(&r->r_done);
	if ((r->r_stop = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK)) == -1) {
		bx_fail(err, "%s relay: eventfd: %s", name, strerror(errno));
		goto fail;
	}
	if ((r->r_path = strdup(sock_path)) == NULL) {
		bx_fail(err, "out of memory");
		goto fail;
	}
	/* Non-blocking: a peer gone between poll and accept blocks nothing. */
	if (bx_unix_listen(sock_path, RELAY_BACKLOG, BX_UNIX_NONBLOCK,
	    &r->r_listen, &r->r_made, err) == -1) {
		bx_error_prefix(err, "%s relay", name);
		goto fail;
	}
	*ret = r;
	return 0;
fail:
	destroy(r);
	return -1;
}

const char *
relay_path(const struct relay *r)
{
	return r->r_path;
}

/*
 * Waits for the next connection and takes it from the queue; -1 once
 * stopping. finished: the worker's last one has ended.
 */
static int
next_conn(struct relay *r, bool finished)
{
	int fd = -1;

	pthread_mutex_lock(&r->r_lock);
	if (finished)
		r->r_active--;
	r->r_idle++;
	while (r->r_queued == 0 && !r->r_stopping)
		pthread_cond_wait(&r->r_work, &r->r_lock);
	r->r_idle--;
	if (!r->r_stopping) {
		fd = r->r_queue[0];
		r->r_queued--;
		memmove(r->r_queue, r->r_queue + 1,
		    (size_t)r->r_queued * sizeof(r->r_queue[0]));
	}
	pthread_mutex_unlock(&r->r_lock);
	return fd;
}

static void *
worker_main(void *arg)
{
	struct worker *w = arg;
	struct relay *r = w->w_relay;
	bool last;
	int fd;

	for (fd = next_conn(r, false); fd != -1; fd = next_conn(r, true)) {
		relay_pipe_run(&w->w_pipe, &r->r_target, fd, r->r_stop);
		close(fd);
	}
	free(w);
	pthread_mutex_lock(&r->r_lock);
	r->r_workers--;
	last = r->r_orphaned && r->r_workers == 0;
	pthread_cond_signal(&r->r_done);
	pthread_mutex_unlock(&r->r_lock);
	/* relay_free() has returned and left r to the last worker. */
	if (last)
		destroy(r);
	return NULL;
}

/* Starts a worker, with r_lock held. */
static int
start_worker(struct relay *r)
{
	pthread_attr_t attr;
	struct worker *w;
	pthread_t tid;
	int rc;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return -1;
	w->w_relay = r;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	rc = pthread_create(&tid, &attr, worker_main, w);
	pthread_attr_destroy(&attr);
	if (rc != 0) {
		free(w);
		return -1;
	}
	r->r_workers++;
	return 0;
}

/*
 * Queues fd for a worker: an idle one if there are more of them than
 * connections queued, else a new one. Past RELAY_MAX_CONNECTIONS, or
 * when no worker can be had, fd is closed at once.
 */
static void
enqueue(struct relay *r, int fd)
{
	bool queued = false;

	pthread_mutex_lock(&r->r_lock);
	if (r->r_active < RELAY_MAX_CONNECTIONS) {
		r->r_queue[r->r_queued++] = fd;
		if (r->r_queued <= r->r_idle || start_worker(r) == 0) {
			pthread_cond_signal(&r->r_work);
			r->r_active++;
			queued = true;
		} else
			r->r_queued--;
	}
	pthread_mutex_unlock(&r->r_lock);
	if (!queued)
		close(fd);
}

/* Logs a refused uid the first time, for at most RELAY_MAX_LOGGED_UIDS. */
static void
log_refused(struct relay *r, uid_t uid)
{
	char line[128];
	size_t i;

	for (i = 0; i < r->r_nlogged; i++)
		if (r->r_logged[i] == uid)
			return;
	if (r->r_nlogged == RELAY_MAX_LOGGED_UIDS)
		return;
	r->r_logged[r->r_nlogged++] = uid;
	if (r->r_log == NULL)
		return;
	snprintf(line, sizeof(line), "%s relay: refused a connection "
	    "from uid %lu", r->r_name, (unsigned long)uid);
	r->r_log(r->r_log_arg, line);
}

/* Checks the peer before anything of it is read. */
static void
admit(struct relay *r, int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) == -1 ||
	    len != sizeof(cred)) {
		close(fd);
		return;
	}
	if (cred.uid != r->r_uid) {
		log_refused(r, cred.uid);
		close(fd);
		return;
	}
	enqueue(r, fd);
}

static void *
accept_main(void *arg)
{
	struct relay *r = arg;
	struct pollfd pfd[2] = { { r->r_listen, POLLIN, 0 },
	    { r->r_stop, POLLIN, 0 } };
	int fd;

	for (;;) {
		if (poll(pfd, 2, -1) == -1 && errno != EINTR) {
			(void)poll(&pfd[1], 1, RELAY_RETRY_MS);
			continue;
		}
		if (pfd[1].revents != 0)
			return NULL;
		if (pfd[0].revents == 0)
			continue;
		fd = accept4(r->r_listen, NULL, NULL,
		    SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd != -1)
			admit(r, fd);
		else if (errno == EMFILE || errno == ENFILE ||
		    errno == ENOBUFS || errno == ENOMEM)
			/* The peer stays queued: rest instead of spinning. */
			(void)poll(&pfd[1], 1, RELAY_RETRY_MS);
	}
}

int
relay_start(struct relay *r, struct bx_error *err)
{
	sigset_t all, old;
	int rc;

	if (r->r_started)
		return bx_fail(err, "%s relay: already started",
		    r->r_name);
	/*
	 * The relay's threads take no signals, so the program's handlers
	 * always run on its own threads; they inherit this mask.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->r_accept, NULL, accept_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0)
		return bx_fail(err, "%s relay: cannot start its thread: %s",
		    r->r_name, strerror(rc));
	r->r_started = true;
	return 0;
}

void
relay_free(struct relay *r)
{
	const uint64_t one = 1;
	struct timespec ts;
	bool orphan;

	if (r == NULL)
		return;
	/* Without the wake-up nothing would stop: nothing else to do. */
	while (write(r->r_stop, &one, sizeof(one)) == -1 && errno == EINTR)
		continue;
	if (r->r_started)
		pthread_join(r->r_accept, NULL);
	if (r->r_listen != -1)
		close(r->r_listen);
	/* Only the socket made: a successor's at the path is left alone. */
	bx_unix_remove(r->r_path, &r->r_made);
	bx_clock_after(CLOCK_MONOTONIC, RELAY_STOP_WAIT_MS, &ts);
	pthread_mutex_lock(&r->r_lock);
	r->r_stopping = true;
	pthread_cond_broadcast(&r->r_work);
	while (r->r_workers > 0)
		if (pthread_cond_timedwait(&r->r_done, &r->r_lock, &ts) ==
		    ETIMEDOUT)
			break;
	orphan = r->r_orphaned = r->r_workers > 0;
	pthread_mutex_unlock(&r->r_lock);
	if (!orphan)
		destroy(r);
}
