/*
 * secretwrite.c: secret files written for the owner (secretwrite.h).
 */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "bxctl/common/putfile.h"
#include "bxctl/common/tomlquote.h"
#include "bxctl/secrets/secretwrite.h"
#include "proto/types.h"

/* Where the text is built: the caller's buffer and how much it holds. */
struct text {
	char	*t_buf;
	size_t	 t_used;	/* may pass SECRETWRITE_MAX: then too large */
};

static void
literal(struct text *t, const char *s)
{
	size_t len = strlen(s);

	if (t->t_used + len < SECRETWRITE_MAX)
		memcpy(t->t_buf + t->t_used, s, len + 1);
	t->t_used += len;
}

static void
quoted(struct text *t, const char *s)
{
	size_t room = t->t_used < SECRETWRITE_MAX ?
	    SECRETWRITE_MAX - t->t_used : 0;

	t->t_used += tomlquote(room > 0 ? t->t_buf + t->t_used : NULL, room,
	    s);
}

/* key = "s"\n */
static void
field(struct text *t, const char *key, const char *s)
{
	literal(t, key);
	literal(t, " = ");
	quoted(t, s);
	literal(t, "\n");
}

int
secretwrite_text(const struct secret_fields *sf, char *buf, size_t *ret_len,
    struct bx_error *err)
{
	struct text t = { buf, 0 };
	size_t i;

	buf[0] = '\0';
	literal(&t, "# Written by bxctl secrets add (boxmaker-secret(5)).\n");
	field(&t, "kind", sf->sf_kind);
	literal(&t, "hosts = [");
	for (i = 0; i < sf->sf_nhosts; i++) {
		if (i > 0)
			literal(&t, ", ");
		quoted(&t, sf->sf_hosts[i]);
	}
	literal(&t, "]\n");
	if (sf->sf_header != NULL)
		field(&t, "header", sf->sf_header);
	if (sf->sf_user != NULL)
		field(&t, "user", sf->sf_user);
	field(&t, "value", sf->sf_value);
	if (t.t_used >= SECRETWRITE_MAX || t.t_used > SECRET_FILE_MAX)
		return bx_fail(err, "the secret file would be larger than %d "
		    "bytes, which brokerd does not read", SECRET_FILE_MAX);
	*ret_len = t.t_used;
	return 0;
}

int
secretwrite_judge(const char *dir, const char *name, const char *buf,
    size_t len, const struct secret_sink *sink, struct bx_error *err)
{
	struct secret *s = NULL;
	char file[PATH_MAX];
	int rc;

	snprintf(file, sizeof(file), "%s/%s.toml", dir, name);
	rc = secret_parse(file, name, buf, len, sink, &s, err);
	secret_free(s);
	return rc;
}

int
secretwrite_put(const char *dir, const char *name, const char *buf,
    size_t len, bool replace, struct bx_error *err)
{
	char entry[BX_ID_MAX + 6];
	struct bx_error nerr;

	/* Judged already; checked again, as it becomes a path here. */
	if (bx_secret_name_check(name, &nerr) == -1)
		return bx_fail(err, "\"%s\" is not a secret name: %s", name,
		    nerr.msg);
	snprintf(entry, sizeof(entry), "%s.toml", name);
	return putfile_put(dir, entry, buf, len, replace, err);
}
