/*
 * writefile.h: the steps every durable write here repeats: writing a
 * whole buffer, syncing the directory that holds a new or renamed name
 * (shared/notes/audit-durability.md), and making a private directory. The audit writer does its own,
 * through its fault-injection seam.
 *
 * Nothing here allocates. Each returns 0, or -1 with errno set by the call
 * that failed, so that each caller words its own message; only
 * bx_mkdir_private also words one, since every caller said the same.
 */
#ifndef BX_WRITEFILE_H
#define BX_WRITEFILE_H

#include <stddef.h>

#include "proto/error.h"

/* Writes all len bytes of buf to fd, looping on EINTR and short writes. */
int	bx_write_all(int fd, const void *buf, size_t len);

/* Opens the directory dir and fsyncs it. */
int	bx_fsync_dir(const char *dir);

/*
 * Creates dir with mode 0700 unless it exists as a directory: the one way
 * the programs make their private directories. Something else at dir is
 * ENOTDIR. err (NULL is allowed) names dir and what is wrong.
 */
int	bx_mkdir_private(const char *dir, struct bx_error *err);
/* bx_mkdir_private for every missing directory above path. */
int	bx_mkdir_parents(const char *path, struct bx_error *err);

#endif
