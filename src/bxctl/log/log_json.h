/*
 * log_json.h: one entry of `bxctl log --json` as a JSON object. What
 * became of an ask is the caller's to say (answer, as in log_row.h): the
 * entry alone cannot tell a pending ask from an abandoned one. The rest
 * the entry says itself (log_entry.h).
 *
 * Ownership: the object returned is a new reference, the caller's to
 * json_decref(); NULL if memory ran out.
 */
#ifndef BXCTL_LOG_JSON_H
#define BXCTL_LOG_JSON_H

#include <jansson.h>

#include "bxctl/log/log_entry.h"

/* answer: NULL for a call that did not ask (null in the object). */
json_t	*log_json(const struct log_entry *e, const char *answer);

#endif
