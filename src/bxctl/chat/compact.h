/*
 * compact.h: a call and its result as a person reads them on a terminal
 * (bxctl chat without --verbose or --json), ids left out:
 *
 *	read_file /home/kyle/notes/a.md
 *	  # Notes (… 1.2 KB)
 *	shell ls -l /home/kyle
 *	  failed: timed out after 5 s
 *
 * The call is its tool and the argument that says the most (path, url,
 * command, host, query, name, the first of these that is a string), or
 * the arguments' JSON cut to COMPACT_ARGS_MAX bytes. The result is its
 * first line or its first COMPACT_RESULT_MAX bytes, whichever is shorter,
 * cut after a whole character, and, when that is not all of it, "(… N)"
 * with the whole size. Everything is printed as data (escape.h).
 *
 * Nothing here allocates that outlives a call.
 */
#ifndef BXCTL_COMPACT_H
#define BXCTL_COMPACT_H

#include <stddef.h>
#include <stdio.h>

#include "proto/message.h"

#define COMPACT_ARGS_MAX	200
#define COMPACT_RESULT_MAX	200
/* Room for any size from compact_size(). */
#define COMPACT_SIZE_MAX	32

void	compact_call(FILE *, const char *tool, const char *arguments);
void	compact_result(FILE *, enum bx_status, const char *content);
/* len bytes as "512 B", "1.2 KB" or "3.4 MB" (1024 to the K). */
void	compact_size(size_t len, char *buf);
/* How much of s a compact line shows: its first line, at most max bytes,
 * cut after a whole UTF-8 character. */
size_t	compact_cut(const char *s, size_t max);

#endif
