/*
 * cgroup_file.h: reading and writing one cgroup file, and making a cgroup
 * directory, the way the kernel wants them: a value in one write(2), a file
 * read whole in one read(2). What the files mean is the callers' (cgroup.c,
 * cgroup_v1.c, cgroup_v2.c, cgroup_pids.c); these know only paths.
 *
 * Ownership: nothing is allocated; every descriptor is closed on return.
 */
#ifndef BROKERD_CGROUP_FILE_H
#define BROKERD_CGROUP_FILE_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

#define CGROUP_FILE_MAX		4096	/* what is read of a cgroup file */

/* Writes value to dir/name; cgroup files take it in one write(2). */
int	cgroup_put(const char *dir, const char *name, const char *value,
	    struct bx_error *);
/*
 * Reads dir/name into buf, NUL-terminated, in one read(2): a cgroup file is
 * made whole for its first read, and a longer one is cut at size - 1.
 * Fails with errno set and no message (a vanished cgroup is no error to
 * some callers).
 */
int	cgroup_read(const char *dir, const char *name, char *buf, size_t size);
/* mkdir 0755; an existing one is an error unless exist_ok. */
int	cgroup_make_dir(const char *path, bool exist_ok, struct bx_error *);

#endif
