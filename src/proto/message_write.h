/*
 * message_write.h: one field of a message written into a frame's object;
 * every error names the key. Values given are stolen, as jansson's _new
 * functions do.
 */
#ifndef BX_MESSAGE_WRITE_H
#define BX_MESSAGE_WRITE_H

#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"
#include "proto/message_types.h"

/* A JSON string for an enum's name, NULL for "?" (out of range). */
json_t	*bx_msge_name(const char *name);
/* Appends v (stolen) to a, naming key [i] if v is NULL. */
int	bx_msge_append(json_t *a, json_t *v, const char *key, size_t i,
	    struct bx_error *);
/* Sets key to an array of GrantProblem. */
int	bx_msge_problems(json_t *o, const char *key,
	    const struct bx_grant_problem *, size_t n, struct bx_error *);
/* Sets key to an array of strings. */
int	bx_msge_strings(json_t *o, const char *key, char *const *list,
	    size_t n, struct bx_error *);

/* Sets key to an array of PendingApproval. */
int	bx_msge_pending(json_t *o, const char *key,
	    const struct bx_pending_approval *, size_t n, struct bx_error *);
/* Sets an answer's "by" and "post" (NULL: null). */
int	bx_msge_by_post(json_t *o, const char *by, const char *post,
	    struct bx_error *);

#endif
