/*
 * hostile.h: what test-hostile.c's scenarios share (hostile-client.c): the
 * daemon under attack with the hostile connections kept open, the
 * well-behaved client whose answers are timed, the raw socket helpers,
 * and the waits for brokerd to have let go of its connections.
 *
 * Ownership: a struct hostile owns h_fds (each descriptor and the array);
 * test-hostile.c's teardown closes and frees them.
 */
#ifndef RH_HOSTILE_H
#define RH_HOSTILE_H

#include <stdint.h>

#include "brokerd/serve.h"
#include "harness.h"

/* A well-behaved client's answer, generously (measured: milliseconds). */
#define HOSTILE_ANSWER_MS	5000
/* Samples of the well-behaved client per scenario. */
#define HOSTILE_SAMPLES		5
/*
 * brokerd's peak RSS must stay under the bound serve promises: each waiting
 * connection's first buffer, the shared budget for larger ones, a frame per
 * thread (calls and admin requests), and 64 MiB for the program itself.
 */
#define HOSTILE_RSS_MAX_KIB	(HOSTILE_RSS_FACTOR * \
	((long)(SERVE_MAX_CONNECTIONS * BX_FRAME_INITIAL + SERVE_WAIT_BUDGET + \
	(SERVE_MAX_CALLS + SERVE_MAX_ADMIN_CALLS) * (long)BX_FRAME_MAX) / \
	1024 + 64 * 1024))
/*
 * A sanitized build (make check-sanitize) keeps shadow memory and state
 * for every live thread besides the program's own: TSan's documentation
 * says 5 to 10 times. The bound is the plain build's, checked by make
 * check; under a sanitizer it is only kept from growing without limit.
 */
#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define HOSTILE_RSS_FACTOR	4
#else
#define HOSTILE_RSS_FACTOR	1
#endif
/* brokerd closes a connection without a whole first frame within 10 s. */
#define HOSTILE_CLOSE_MS	20000

struct hostile {
	struct rh_home	 h_home;
	int		*h_fds;		/* hostile connections left open */
	size_t		 h_nfds;
	size_t		 h_capfds;
	long		 h_base_fds;	/* brokerd's descriptors when idle */
	long		 h_base_threads;
	int64_t		 h_worst_ms;
	unsigned	 h_calls;
};

/* Keeps fd open in h until teardown. */
void	hc_keep(struct hostile *, int fd);
/* Entries of the /proc directory fmt % pid, or -1. */
long	hc_count_dir(const char *fmt, pid_t pid);
/* A well-behaved loopd call and owner request, sampled; the slower, in ms. */
int64_t	hc_good_client(struct hostile *, const char *scenario);
/* Prints the scenario's latency and brokerd's memory; checks the bound. */
void	hc_report(struct hostile *, const char *scenario, int64_t worst);
/* A connection to path, or the test fails. */
int	hc_dial(struct hostile *, const char *path);
/* Sends len bytes, or as many as the kernel takes without waiting. */
size_t	hc_send_some(int fd, const char *buf, size_t len);
void	hc_send_all(int fd, const char *buf, size_t len);
/* The first frame brokerd answers on fd, decoded; NULL if none came. */
struct bx_msg *hc_answer_of(int fd);
void	hc_expect_error(int fd, enum bx_code, const char *what);
/*
 * Reads what comes on each of n connections until brokerd closes it, for
 * at most ms in all; how many were still open then.
 */
size_t	hc_still_open(const int *fds, size_t n, int ms);
/* Clients' connections brokerd holds: accepted on broker.sock or admin.sock. */
long	hc_connections(const struct hostile *);
/* Until brokerd holds no client's connection, or the test fails. */
void	hc_await_no_connections(const struct hostile *);

#endif
