/*
 * timing.c: the benchmarks' clock, percentiles and clean-up (timing.h).
 */
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "proto/unixsock.h"
#include "timing.h"

int64_t
bench_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
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
