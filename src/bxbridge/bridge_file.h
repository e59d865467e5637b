/*
 * bridge_file.h: the bridge's files in its state directory, each written
 * whole and atomically (a temporary file beside it, fsync, rename, the
 * directory synced), so that a reader sees the old file or the new one.
 *
 * Nothing here allocates but the text bridge_file_read() hands back.
 */
#ifndef BXBRIDGE_BRIDGE_FILE_H
#define BXBRIDGE_BRIDGE_FILE_H

#include <sys/types.h>

#include <jansson.h>

#include "proto/error.h"

/* The longest file the bridge reads back. */
#define BRIDGE_FILE_MAX		(4 * 1024 * 1024)

/* Writes json (compact, one line) to dir/name with mode. */
int	bridge_file_write(const char *dir, const char *name,
	    const json_t *json, mode_t mode, struct bx_error *);
/*
 * Reads dir/name as JSON into *ret (a new reference); 1 and *ret NULL if
 * there is no such file, 0 when read, -1 with err when it is unreadable
 * or not JSON.
 */
int	bridge_file_read(const char *dir, const char *name, json_t **ret,
	    struct bx_error *);

#endif
