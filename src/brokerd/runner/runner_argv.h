/*
 * runner_argv.h: a program's argument list, built one argument at a time
 * (runner_argv.c), for the backends' runtimes and the egress proxy. Adds
 * never fail on their own: running out of memory is remembered and
 * reported once by argv_done.
 *
 * Ownership: a struct argv owns its strings; argv_clear frees them.
 */
#ifndef BROKERD_RUNNER_ARGV_H
#define BROKERD_RUNNER_ARGV_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

/* A runtime's argument list, NULL-terminated once argv_done succeeds. */
struct argv {
	char	**a_v;
	size_t	  a_n;
	size_t	  a_cap;
	bool	  a_failed;	/* memory ran out on some add */
};

void	argv_add(struct argv *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	argv_done(struct argv *, struct bx_error *);
void	argv_clear(struct argv *);

#endif
