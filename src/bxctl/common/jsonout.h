/*
 * jsonout.h: JSON lines for people's terminals and for scripts: compact,
 * keys in the order they were set, every non-ASCII character and every
 * control escaped (JSON_ENSURE_ASCII, hex digits lowercase), and DEL,
 * which jansson leaves raw, as \u007f. Still valid JSON, and pure
 * printable ASCII, so nothing in it acts on a terminal. bxctl chat --json
 * and every console command's --json print this way.
 *
 * Nothing here keeps a reference: the caller still owns obj.
 */
#ifndef BXCTL_JSONOUT_H
#define BXCTL_JSONOUT_H

#include <stdio.h>

#include <jansson.h>

/* Prints obj and a newline on fp; 0, or -1 if it cannot be encoded. */
int	jsonout_print(FILE *fp, const json_t *obj);

/* A new JSON string for a Timestamp (ms), as on the wire; NULL if none. */
json_t	*jsonout_time(int64_t ms);

#endif
