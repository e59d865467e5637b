/*
 * secret_check.c: what `bxctl grants check` says about the secret a grant
 * names (see secret_check_grant() in secret.h): that its file loads, and
 * that every host the grant allows is one the secret may be sent to. A
 * call to a host outside the secret's would fail before sending anything;
 * this says so before any call is made.
 */
#include <stdio.h>

#include "brokerd/grants.h"
#include "brokerd/secret.h"

/* Passes each problem on to the caller's sink, counting them. */
struct counting {
	const struct secret_sink	*c_sink;
	int				 c_count;
};

static int
count_problem(void *ctx, const char *file, int64_t line, const char *text)
{
	struct counting *c = ctx;

	c->c_count++;
	return c->c_sink->ss_problem(c->c_sink->ss_ctx, file, line, text);
}

int
secret_check_grant(const char *config_dir, const struct grant *g,
    const struct secret_sink *sink, struct bx_error *err)
{
	struct counting c = { sink, 0 };
	struct secret_sink counted = { count_problem, &c };
	struct secret *s = NULL;
	const char *name = grant_secret(g);
	char text[BX_ERROR_MAX];
	size_t i;
	int rc;

	if (name == NULL)
		return 0;
	if ((rc = secret_read(config_dir, name, &counted, &s, err)) == -1)
		return -1;
	if (rc == 1)
		return c.c_count;
	for (i = 0; i < g->g_nhosts; i++) {
		if (secret_has_host(s, g->g_hosts[i]))
			continue;
		snprintf(text, sizeof(text), "the grant \"%s\" allows the "
		    "host \"%s\", which is not among this secret's hosts: a "
		    "call to it would fail", g->g_id, g->g_hosts[i]);
		if (count_problem(&c, secret_file(s), secret_hosts_line(s),
		    text) == -1) {
			secret_free(s);
			return bx_fail(err, "out of memory");
		}
	}
	secret_free(s);
	return c.c_count;
}
