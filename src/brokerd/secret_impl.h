/*
 * secret_impl.h: what a struct secret holds, shared by secret.c (reading
 * the file, the accessors) and secret_decode.c (the file's TOML into the
 * fields). secret.c calls the decoder; the decoder calls nothing of
 * secret.c's.
 */
#ifndef BROKERD_SECRET_IMPL_H
#define BROKERD_SECRET_IMPL_H

#include "brokerd/secret.h"
#include "proto/types.h"

struct secret {
	char		 s_name[BX_ID_MAX + 1];
	char		*s_file;		/* the path read */
	enum secret_kind s_kind;
	char		**s_hosts;		/* one allocation (strlist.h) */
	size_t		 s_nhosts;
	int64_t		 s_hosts_line;
	char		*s_header;		/* kind header: the name */
	char		*s_user;		/* kind basic */
	/* Overwritten before they are freed. */
	char		*s_value;
	size_t		 s_value_len;
	char		*s_header_value;
	size_t		 s_header_value_len;
};

/*
 * Decodes len bytes of buf, the secret file at path file, into *into (the
 * caller's, zeroed; whatever it allocates stays there, for the caller to
 * free whether or not it is valid). Every problem goes to sink, and
 * *ret_problems counts them. Returns -1 only when memory runs out.
 */
int	secret_decode(const char *file, const char *buf, size_t len,
	    const struct secret_sink *sink, struct secret *into,
	    int *ret_problems, struct bx_error *err);

#endif
