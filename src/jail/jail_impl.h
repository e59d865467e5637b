/*
 * jail_impl.h: what jail.c (the caller's side) hands the child it forks,
 * and the child's two steps: jail_mounts.c builds its root, jail_child.c
 * drops everything and execs. The child runs only on the stack and data
 * the caller prepared: it allocates nothing.
 */
#ifndef JAIL_JAIL_IMPL_H
#define JAIL_JAIL_IMPL_H

#include <linux/filter.h>

#include <stddef.h>

#include "jail/jail.h"

/* Room for one failure's text in the child. */
#define JAIL_WHY_MAX	512

struct jail_child {
	const struct jail_spec	*jc_spec;
	int			 jc_exec_fd;
	char *const		*jc_argv;
	char *const		*jc_envp;
	int			 jc_go;		/* read: the id maps are written */
	int			 jc_report;	/* write: why; exec closes it */
	struct sock_fprog	 jc_filter;
};

/* Never returns: execs the program or writes why not and exits 1. */
_Noreturn void	jail_child_main(struct jail_child *);

/*
 * Builds the jail's root and pivots into it (the child's first step, in
 * its own mount namespace). On failure why holds the step and -1 returns.
 */
int	jail_mounts(const struct jail_spec *, char why[JAIL_WHY_MAX]);

#endif
