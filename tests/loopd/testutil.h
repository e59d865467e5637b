/*
 * testutil.h: what the loopd tests share: a temporary home they remove
 * afterwards, writing files into it, and a recorder of turn events.
 */
#ifndef LOOPD_TESTUTIL_H
#define LOOPD_TESTUTIL_H

#include <stddef.h>

#include "proto/message.h"

/* Makes a fresh directory under TMPDIR; the caller frees the path. */
char	*tu_tmpdir(void);
/* rm -rf path, then frees it. */
void	 tu_rmtree(char *path);
/* Writes len bytes to dir/name (creating parent directories). */
void	 tu_write(const char *dir, const char *name, const char *data,
	    size_t len);
/* The whole content of a file, NUL-terminated, or NULL if absent. */
char	*tu_read(const char *dir, const char *name);

/* The events of a turn, kept as messages. */
struct tu_events {
	struct bx_msg	**ev;
	size_t		  n;
};

/* A turn_emit_fn that appends to a struct tu_events. */
void	 tu_record(void *arg, struct bx_msg *ev);
void	 tu_events_free(struct tu_events *);
/* The first event of type, from index from, or NULL. */
const struct bx_turn_event *tu_find(const struct tu_events *,
	    enum bx_event type, size_t from);
/* How many events of type were recorded. */
size_t	 tu_count(const struct tu_events *, enum bx_event type);

#endif
