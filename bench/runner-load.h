/*
 * runner-load.h: bench-runner-call's calls and runs, one at a time or from
 * several threads at once, and the figures made of them (issue 27).
 */
#ifndef BENCH_RUNNER_LOAD_H
#define BENCH_RUNNER_LOAD_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

#define LOAD_WAIT_MS	30000
/* The most clients or timings one cell takes. */
#define LOAD_CLIENTS_MAX	16
#define LOAD_TIMINGS_MAX	4096

/*
 * One tool_request, from connect to the answer's last byte, in ns; -1 on
 * error or an answer that is not a result. ret_sent (when not NULL) gets
 * CLOCK_REALTIME in ns just before the frame is written, and answer (when
 * not NULL) the answer's line, cut to size.
 */
int64_t	load_call(const char *sock, const char *frame, int64_t *ret_sent,
	    char *answer, size_t size);

/* argv (argv[0] a path) run to its end, output to /dev/null: ns or -1. */
int64_t	load_run(char *const argv[]);

/* A job's i-th timing for client c (ns; -1: it failed). */
typedef int64_t	(*load_job)(void *ctx, unsigned c, size_t i);

/*
 * clients threads at once, each calling job calls_each times; the
 * timings go to out[c * calls_each + i]. 0, or -1 if any failed.
 */
int	load_at_once(unsigned clients, size_t calls_each, load_job job,
	    void *ctx, int64_t *out);

struct load_figures {
	double	lf_median_us;
	double	lf_p99_us;
	double	lf_max_us;
	double	lf_mean_us;
};

/* Sorts v and fills f; -1 if a timing is -1 (a failure). */
int	load_figures(int64_t *v, size_t n, struct load_figures *f);

#endif
