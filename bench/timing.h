/*
 * timing.h: what the benchmarks share: a monotonic nanosecond clock, the
 * median and p99 of a set of timings, removing a benchmark's temporary
 * tree, connecting to brokerd's socket, and timing a program's run.
 * Nothing here allocates.
 */
#ifndef BENCH_TIMING_H
#define BENCH_TIMING_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC, in nanoseconds. */
int64_t	bench_now_ns(void);

/*
 * A process's CPU time so far in ns: user and system of all its threads,
 * exited ones included, not its children's (what /proc/PID/stat's fields
 * 14 and 15 count, but from the scheduler's own count, not sampled in
 * clock ticks); -1 if it cannot be read.
 */
int64_t	bench_cpu_ns(pid_t pid);

/* Sorts the n timings of v (ns) and gives their median and p99 in us. */
void	bench_percentiles(int64_t *v, size_t n, double *median_us,
	    double *p99_us);

/* A Unix socket connected to path, or -1. */
int	bench_dial(const char *path);

/* Removes dir and everything below it, not following symlinks. */
void	bench_rmtree(const char *dir);

/*
 * Runs argv (argv[0] a path) with stdout to the file out (NULL:
 * /dev/null) and returns the seconds it took; *ret_cpu (when not NULL)
 * gets the CPU seconds it used, user and system, which a shared machine
 * disturbs less. A run that fails ends the benchmark, naming the program.
 */
double	bench_timed(char *const *argv, const char *out, double *ret_cpu);

#endif
