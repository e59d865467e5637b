/*
 * runner-load.c: bench-runner-call's calls, runs and cells of several
 * clients at once (runner-load.h).
 */
#include <sys/wait.h>

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "proto/frame.h"
#include "runner-load.h"
#include "timing.h"

static int64_t
realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
load_call(const char *sock, const char *frame, int64_t *ret_sent,
    char *answer, size_t size)
{
	struct bx_frame_reader r;
	const char *line = NULL;
	size_t len = 0;
	int64_t t0 = bench_now_ns(), t;
	int fd, ok;

	if ((fd = bench_dial(sock)) == -1)
		return -1;
	bx_frame_reader_init(&r, fd);
	if (ret_sent != NULL)
		*ret_sent = realtime_ns();
	ok = write(fd, frame, strlen(frame)) == (ssize_t)strlen(frame) &&
	    bx_frame_read(&r, LOAD_WAIT_MS, &line, &len, NULL) == BX_FRAME_OK;
	t = bench_now_ns() - t0;
	if (ok && strstr(line, "\"status\":\"result\"") == NULL) {
		fprintf(stderr, "bench-runner-call: %.*s\n", (int)len, line);
		ok = 0;
	}
	if (ok && answer != NULL)
		snprintf(answer, size, "%.*s", (int)len, line);
	bx_frame_reader_free(&r);
	close(fd);
	return ok ? t : -1;
}

int64_t
load_run(char *const argv[])
{
	int64_t t0 = bench_now_ns();
	int status, null;
	pid_t pid;

	if ((pid = fork()) == 0) {
		null = open("/dev/null", O_RDWR);
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
		execv(argv[0], argv);
		_exit(127);
	}
	if (pid == -1 || waitpid(pid, &status, 0) != pid ||
	    !WIFEXITED(status) || WEXITSTATUS(status) != 0)
		return -1;
	return bench_now_ns() - t0;
}

struct load_client {
	pthread_t	 lc_thread;
	load_job	 lc_job;
	void		*lc_ctx;
	unsigned	 lc_id;
	size_t		 lc_calls;
	int64_t		*lc_out;
};

static void *
client_run(void *arg)
{
	struct load_client *lc = arg;
	size_t i;

	for (i = 0; i < lc->lc_calls; i++)
		lc->lc_out[i] = lc->lc_job(lc->lc_ctx, lc->lc_id, i);
	return NULL;
}

int
load_at_once(unsigned clients, size_t calls_each, load_job job, void *ctx,
    int64_t *out)
{
	struct load_client lc[LOAD_CLIENTS_MAX];
	unsigned c, started;
	size_t i;

	if (clients > LOAD_CLIENTS_MAX ||
	    clients * calls_each > LOAD_TIMINGS_MAX)
		return -1;
	for (started = 0; started < clients; started++) {
		lc[started].lc_job = job;
		lc[started].lc_ctx = ctx;
		lc[started].lc_id = started;
		lc[started].lc_calls = calls_each;
		lc[started].lc_out = out + started * calls_each;
		if (pthread_create(&lc[started].lc_thread, NULL, client_run,
		    &lc[started]) != 0)
			break;
	}
	for (c = 0; c < started; c++)
		pthread_join(lc[c].lc_thread, NULL);
	if (started < clients)
		return -1;
	for (i = 0; i < clients * calls_each; i++)
		if (out[i] < 0)
			return -1;
	return 0;
}

int
load_figures(int64_t *v, size_t n, struct load_figures *f)
{
	double sum = 0;
	size_t i;

	if (n == 0)
		return -1;
	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return -1;
		sum += (double)v[i];
	}
	bench_percentiles(v, n, &f->lf_median_us, &f->lf_p99_us);
	f->lf_max_us = v[n - 1] / 1000.0;
	f->lf_mean_us = sum / (double)n / 1000.0;
	return 0;
}
