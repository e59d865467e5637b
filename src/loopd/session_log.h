/*
 * session_log.h: each session's history, <home>/sessions/<id>.jsonl: one
 * chat message per line (the OpenAI form the model is sent: role user,
 * assistant or tool), appended and fsynced at the end of each model step.
 *
 * A line that does not parse stops that session: loading fails with a
 * message naming the file and line and ending with the runbook pointer,
 * at every turn until the owner repairs it. Other sessions go on.
 *
 * Ownership: session_log_load() gives the caller a new JSON array
 * (json_decref it). session_log_append() only reads its messages.
 */
#ifndef LOOPD_SESSION_LOG_H
#define LOOPD_SESSION_LOG_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"

/* A log past this is not replayed: the session is refused as too long. */
#define SESSION_LOG_MAX	(32 * 1024 * 1024)

/* The history of session id: an empty array when it has no log yet. */
int	session_log_load(const char *home, const char *id, json_t **ret,
	    struct bx_error *err);

/* Appends messages[from..] as lines, in one write, then fsyncs. Creates
 * <home>/sessions (0700) and the log (0600) when missing. */
int	session_log_append(const char *home, const char *id,
	    const json_t *messages, size_t from, struct bx_error *err);

bool	session_log_exists(const char *home, const char *id);

/*
 * A turn that must leave no trace (its prompt no longer fits the model's
 * context) takes the log's size when it starts and cuts the log back to
 * it. The size of a log that does not exist yet is 0; cutting back to 0
 * a log that does not exist does nothing.
 */
int	session_log_size(const char *home, const char *id, off_t *ret,
	    struct bx_error *err);
int	session_log_truncate(const char *home, const char *id, off_t size,
	    struct bx_error *err);

#endif
