/*
 * memory.h: the owner's notes for the model, <home>/memory/core.md, read
 * at the start of every turn so that an edit applies to the next turn.
 *
 * Absent is fine (no notes). Present but unreadable (a directory in its
 * place, no permission, larger than CORE_MEMORY_MAX) or not UTF-8 is an
 * error that refuses the turn; its message ends with the runbook pointer.
 *
 * Ownership: *ret_text is malloc'd (the caller frees it), or NULL when the
 * file is absent.
 */
#ifndef LOOPD_MEMORY_H
#define LOOPD_MEMORY_H

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

/* core.md goes whole into every request: keep it well under the limit. */
#define CORE_MEMORY_MAX	(256 * 1024)

int	memory_load(const char *home, char **ret_text, struct bx_error *err);

/* Whether len bytes at s are well-formed UTF-8 (no NUL); *ret_bad gets the
 * offset of the first bad byte when not. */
bool	memory_utf8_valid(const char *s, size_t len, size_t *ret_bad);

#endif
