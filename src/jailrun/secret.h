/*
 * secret.h: a secret a jailed program needs (loopd's model key, the
 * bridge's Mattermost token), read outside the jail from a file that only
 * its owner may read and handed in through a pipe, so the file stays the
 * owner's alone and the secret never touches a file, argv or environment
 * the jail sees.
 *
 * The file must be a regular file of the caller's (its effective uid)
 * with no group or other bits, holding one line of printable ASCII;
 * anything else is refused with a message naming the setting and the file
 * and saying why, so a secret is never sent that others could have read
 * or swapped. The secret itself appears in no message.
 *
 * Ownership: secret_load() and secret_read_fd() allocate *ret;
 * secret_free() wipes and frees it (NULL allowed). The kind is the
 * caller's, and only read during a call.
 */
#ifndef JAILRUN_SECRET_H
#define JAILRUN_SECRET_H

#include "proto/error.h"

/* A longer file is refused: no real key or token is this long. */
#define SECRET_FILE_MAX		4096

/* How messages name a secret; loopd's is in loopd/launcher.h. */
struct secret_kind {
	const char	*sk_setting;	/* "[model] api_key_file" */
	const char	*sk_noun;	/* "key" */
	const char	*sk_what;	/* "the model's key" */
	const char	*sk_from;	/* "loopd's launcher": the pipe's writer */
	const char	*sk_runbook;	/* "see docs/runbook.md#model-refused" */
};

/* The secret in the file at path. */
int	secret_load(const struct secret_kind *, const char *path, char **ret,
	    struct bx_error *err);

/*
 * A pipe holding secret whole, its writing end closed: *ret_fd is the
 * reading end (close-on-exec; the caller's), for the jail's pass_fd.
 */
int	secret_pass(const char *secret, int *ret_fd, struct bx_error *err);

/*
 * The secret from a descriptor, to its end: inside the jail, from the
 * pipe secret_pass() made. The descriptor is left open.
 */
int	secret_read_fd(const struct secret_kind *, int fd, char **ret,
	    struct bx_error *err);

void	secret_free(char *secret);

#endif
