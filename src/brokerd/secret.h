/*
 * secret.h: one secret file, secrets/<name>.toml in the directory of
 * brokerd.toml, read and checked (docs/design.md, "Secrets";
 * boxmaker-secret(5)):
 *
 *	kind  = "bearer" | "header" | "basic"
 *	hosts = ["api.example.com", ...]	exact host names, no "*."
 *	value = "..."		8 to 4,096 bytes of printable ASCII, no
 *				space at either end
 *	header = "X-Api-Key"	kind "header" only: an RFC 9110 token, not
 *				Host, Content-Length, Transfer-Encoding,
 *				Connection or Proxy-*
 *	user = "kyle"		kind "basic" only: printable ASCII, no ":"
 *
 * The directory must be a real directory of mode 0700 and the file a
 * regular file of mode 0600, both owned by brokerd's effective uid; a
 * symbolic link in either place is refused. The modes are checked on the
 * descriptors that are then read, so what was checked is what is read.
 *
 * The file is read each time it is asked for, never cached: a change
 * applies to the next call. Loading the grants never reads it.
 *
 * No message here ever holds the value, the user name, a header name that
 * was refused for its form, a key that is not one of the five, or any
 * text of the TOML parser's (which can quote what it failed on): the owner
 * is told the file, the line and what is wrong, never the file's text.
 *
 * Ownership: secret_read() and secret_load() allocate *ret; the caller
 * frees it with secret_free() (NULL is allowed), which overwrites the
 * value and the header value before freeing them. Strings returned by the
 * accessors belong to the secret and live until it is freed.
 */
#ifndef BROKERD_SECRET_H
#define BROKERD_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"

/* The directory, beside brokerd.toml, that holds the secret files. */
#define SECRET_DIR		"secrets"
#define SECRET_DIR_MODE		0700
#define SECRET_FILE_MODE	0600
/* A secret file larger than this is refused before it is read. */
#define SECRET_FILE_MAX		(16 * 1024)
#define SECRET_VALUE_MIN	8
#define SECRET_VALUE_MAX	4096
/* At most this many hosts, as a grant's constraints.hosts. */
#define SECRET_HOSTS_MAX	256
#define SECRET_HEADER_MAX	128
#define SECRET_USER_MAX		256

enum secret_kind {
	SECRET_BEARER,		/* Authorization: Bearer <value> */
	SECRET_HEADER,		/* <header>: <value> */
	SECRET_BASIC,		/* Authorization: Basic <base64(user:value)> */
	SECRET_KIND_MAX
};

struct secret;

/*
 * Where problems go, as for grant files: file is the path of the secret
 * file (or of the secrets directory, for a problem with it), line the line
 * in it or 0. Returns -1 only when memory runs out.
 */
struct secret_sink {
	int	(*ss_problem)(void *ctx, const char *file, int64_t line,
		    const char *problem);
	void	*ss_ctx;
};

/*
 * Reads config_dir/secrets/<name>.toml, reporting every problem found to
 * sink. Returns 0 with *ret when the secret is usable, 1 when at least one
 * problem was reported (*ret untouched), -1 only when memory runs out.
 */
int	secret_read(const char *config_dir, const char *name,
	    const struct secret_sink *sink, struct secret **ret,
	    struct bx_error *err);

/*
 * secret_read() for a caller that needs one reason: on any problem returns
 * -1 with err holding the first as "<file>:<line>: <problem>" (or
 * "<file>: <problem>"), and how many more there were.
 */
int	secret_load(const char *config_dir, const char *name,
	    struct secret **ret, struct bx_error *err);

/* Overwrites what the secret holds, then frees it. NULL is allowed. */
void	secret_free(struct secret *);

const char	*secret_name(const struct secret *);
/* The path it was read from: <config_dir>/secrets/<name>.toml. */
const char	*secret_file(const struct secret *);
enum secret_kind secret_kind(const struct secret *);
const char	*secret_kind_name(enum secret_kind);

/* The hosts, in file order; i < secret_nhosts(). */
size_t		 secret_nhosts(const struct secret *);
const char	*secret_host(const struct secret *, size_t i);
/* True when host is exactly one of the secret's hosts. */
bool		 secret_has_host(const struct secret *, const char *host);
/* The line of the hosts key in the file, for a problem about them. */
int64_t		 secret_hosts_line(const struct secret *);

/*
 * What is sent: the header's name ("Authorization" for bearer and basic)
 * and its whole value ("Bearer <value>", "<value>", or "Basic " followed
 * by base64 of "user:value"). The header value is the secret too.
 */
const char	*secret_header_name(const struct secret *);
const char	*secret_header_value(const struct secret *);
/* The value as written in the file, for the redaction of echoes. */
const char	*secret_value(const struct secret *);

/*
 * For `bxctl grants check`: when the grant g names a secret, reads it from
 * config_dir and reports to sink every problem with it (its file, as
 * secret_read() does) and each host of the grant that is not among the
 * secret's hosts (on the secret file's hosts line). A grant without a
 * secret has none. Returns the number of problems reported, or -1 only
 * when memory runs out.
 */
struct grant;
int	secret_check_grant(const char *config_dir, const struct grant *g,
	    const struct secret_sink *sink, struct bx_error *err);

#endif
