/*
 * message_impl.h: what the message codec's files share (message.c,
 * message_decode.c, message_encode.c, message_console.c,
 * message_console_codec.c). Not for other files: callers use message.h.
 *
 * Ownership as in message.h: everything a message points at is its own.
 */
#ifndef BX_MESSAGE_IMPL_H
#define BX_MESSAGE_IMPL_H

#include <jansson.h>

#include "proto/message.h"

/* message.c: constructors' helpers. */
/*
 * Copies s into *dst (NULL stays NULL); sets *failed when memory ran out,
 * so a constructor can copy all its strings and check once.
 */
void		 bx_msg_copy(char **dst, const char *s, bool *failed);
/* Frees m and returns NULL if any copy failed; else m. */
struct bx_msg	*bx_msg_done(struct bx_msg *m, bool failed);
/* Grows an array of n elements of size sz by one, zeroing the new one. */
void		*bx_msg_grow(void *array, size_t n, size_t sz);

/* message_console.c: the console's kinds, and GrantProblem lists. */
void	bx_msg_console_clear(struct bx_msg *);
void	bx_msg_problems_free(struct bx_grant_problem *, size_t n);

/* message_decode.c: reading fields, each error naming the key. */
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

/* message_console_codec.c: the console's kinds, per kind. */
int	bx_msgd_session_list(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_explain(const json_t *, struct bx_msg *, struct bx_error *);
int	bx_msgd_explanation(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_broker_status(const json_t *, struct bx_msg *,
	    struct bx_error *);
int	bx_msgd_grant_list(const json_t *, struct bx_msg *, struct bx_error *);
int	bx_msge_session_list(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_explain(const struct bx_msg *, json_t *, struct bx_error *);
int	bx_msge_explanation(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_broker_status(const struct bx_msg *, json_t *,
	    struct bx_error *);
int	bx_msge_grant_list(const struct bx_msg *, json_t *,
	    struct bx_error *);

/* message_encode.c: writing fields. */
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

#endif
