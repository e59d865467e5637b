/*
 * timing.c: the benchmarks' clock, percentiles and clean-up (timing.h).
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "proto/unixsock.h"
#include "timing.h"

int64_t
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int64_t
bench_cpu_ns(pid_t pid)
{
	struct timespec ts;
	clockid_t clk;

	if (clock_getcpuclockid(pid, &clk) != 0 ||
	    clock_gettime(clk, &ts) == -1)
		return -1;
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int
cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

void
bench_percentiles(int64_t *v, size_t n, double *median_us, double *p99_us)
{
	qsort(v, n, sizeof(*v), cmp_i64);
	*median_us = n == 0 ? 0 : v[n / 2] / 1000.0;
	*p99_us = n == 0 ? 0 : v[n * 99 / 100] / 1000.0;
}

static int
remove_one(const char *path, const struct stat *st, int type, struct FTW *w)
{
	(void)st;
	(void)type;
	(void)w;
	return remove(path);
}

void
bench_rmtree(const char *dir)
{
	nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int
bench_dial(const char *path)
{
	struct bx_error err;
	int fd;

	if (bx_unix_connect(path, 0, &fd, &err) == -1)
		return -1;
	return fd;
}

/* The CPU seconds used by the children waited for so far. */
static double
children_cpu(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_CHILDREN, &ru) == -1)
		return 0;
	return (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6 +
	    (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6;
}

double
bench_timed(char *const *argv, const char *out, double *ret_cpu)
{
	int64_t start = bench_now_ns();
	double cpu = children_cpu();
	int status, fd;
	pid_t pid;

	if ((pid = fork()) == -1) {
		perror("bench: fork");
		exit(1);
	}
	if (pid == 0) {
		fd = open(out != NULL ? out : "/dev/null",
		    O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
		if (fd == -1 || dup2(fd, 1) == -1)
			_exit(127);
		execv(argv[0], argv);
		_exit(127);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
	    WEXITSTATUS(status) != 0) {
		fprintf(stderr, "bench: %s failed\n", argv[0]);
		exit(1);
	}
	if (ret_cpu != NULL)
		*ret_cpu = children_cpu() - cpu;
	return (double)(bench_now_ns() - start) / 1e9;
}
