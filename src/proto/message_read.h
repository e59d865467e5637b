/*
 * message_read.h: one field of a frame's object read into a message's
 * field, strictly; every error names the key. A string read is a copy the
 * caller's message owns (on failure too, for bx_msg_free to free).
 */
#ifndef BX_MESSAGE_READ_H
#define BX_MESSAGE_READ_H

#include <stddef.h>

#include <jansson.h>

#include "proto/error.h"
#include "proto/message_types.h"

typedef int	(*bx_id_check_fn)(const char *, struct bx_error *);
int	bx_msgd_string(const json_t *o, const char *key, char **ret,
	    struct bx_error *);
int	bx_msgd_string_or_null(const json_t *o, const char *key, char **ret,
	    struct bx_error *);
int	bx_msgd_id(const json_t *o, const char *key, bx_id_check_fn check,
	    char **ret, struct bx_error *);
/* A string that must be one of names (NULL-terminated). */
int	bx_msgd_one_of(const json_t *o, const char *key,
	    const char *const *names, char **ret, struct bx_error *);
/* An array of GrantProblem at key. */
int	bx_msgd_problems(const json_t *o, const char *key,
	    struct bx_grant_problem **ret, size_t *ret_n, struct bx_error *);

/* An array of PendingApproval at key. */
int	bx_msgd_pending(const json_t *o, const char *key,
	    struct bx_pending_approval **ret, size_t *ret_n, struct bx_error *);
/*
 * An answer's "by" and "post": each a Mattermost id, or null (absent is
 * null). That they come together is brokerd's to check: which socket the
 * answer came on decides whether they must.
 */
int	bx_msgd_by_post(const json_t *o, char **by, char **post,
	    struct bx_error *);

#endif
