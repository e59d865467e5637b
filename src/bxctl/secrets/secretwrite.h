/*
 * secretwrite.h: the secret files `bxctl secrets add` writes
 * (boxmaker-secret(5)): the text a person would write, judged by brokerd's
 * own reader (secret_parse(), brokerd/secret.h) before it is put in place
 * as <config_dir>/secrets/<name>.toml, mode 0600 (putfile.h: atomic,
 * synced, an existing file replaced only when asked).
 *
 * The text is built in one buffer of SECRETWRITE_MAX bytes, the caller's,
 * which is the only place the value is written to: no stream, no growing
 * buffer that leaves copies behind. The caller wipes it.
 *
 * Nothing here prints.
 */
#ifndef BXCTL_SECRETWRITE_H
#define BXCTL_SECRETWRITE_H

#include <stdbool.h>
#include <stddef.h>

#include "brokerd/secret.h"
#include "proto/error.h"

/* The text buffer: a file larger than the reader takes is refused. */
#define SECRETWRITE_MAX		(SECRET_FILE_MAX + 1)

/* One secret's fields, unchecked: the reader judges them. */
struct secret_fields {
	const char	*sf_name;
	const char	*sf_kind;	/* "bearer", "header" or "basic" */
	const char	*const *sf_hosts;
	size_t		 sf_nhosts;
	const char	*sf_header;	/* or NULL */
	const char	*sf_user;	/* or NULL */
	const char	*sf_value;
};

/*
 * The file's text into buf (SECRETWRITE_MAX bytes), *ret_len its length.
 * Fails when it would be larger than the reader takes.
 */
int	secretwrite_text(const struct secret_fields *, char *buf,
	    size_t *ret_len, struct bx_error *);

/*
 * Runs len bytes of buf through brokerd's reader as <dir>/<name>.toml
 * (dir the secrets directory), every problem to sink. Returns 0 when the
 * reader would use it, 1 when it reported problems, -1 when memory ran
 * out.
 */
int	secretwrite_judge(const char *dir, const char *name, const char *buf,
	    size_t len, const struct secret_sink *sink, struct bx_error *);

/*
 * Writes buf as <dir>/<name>.toml, mode 0600, replacing an existing file
 * only when replace is set. The text must have been judged.
 */
int	secretwrite_put(const char *dir, const char *name, const char *buf,
	    size_t len, bool replace, struct bx_error *);

#endif
