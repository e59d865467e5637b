/*
 * grantfile.c: decoding one grant file (design section 3, "Loading"; the
 * fields are baseline.md section 4's). The checks run in file order and
 * every problem is reported, so that one pass over a file shows all that
 * is wrong with it.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "brokerd/grantfile.h"
#include "proto/hostname.h"
#include "proto/strlist.h"
#include "toml/toml.h"

#define SUFFIX		".toml"
#define SUFFIX_LEN	(sizeof(SUFFIX) - 1)

/* The fields a grant must have; one bit each in decoder.d_seen. */
enum {
	SEEN_TOOL = 1 << 0,
	SEEN_MODE = 1 << 1,
	SEEN_MAX_TAINT = 1 << 2,
	SEEN_RESULT_CLASS = 1 << 3,
	SEEN_EXPIRES = 1 << 4,
};

struct decoder {
	const struct grantfile_sink	*d_sink;
	const struct toml_doc		*d_doc;
	struct grant			 d_grant;
	unsigned			 d_seen;
	int				 d_problems;
	bool				 d_oom;
	int				 d_paths_line;	/* 0: no paths key */
	int				 d_hosts_line;
	int				 d_secret_line;	/* 0: no secret key */
	bool				 d_tool_ok;	/* g_tool was decoded */
};

static const char *mode_names[GRANT_MODE_MAX] = { "auto", "ask", "deny" };

static void
problem(struct decoder *d, int64_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
problem(struct decoder *d, int64_t line, const char *fmt, ...)
{
	char text[BX_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	d->d_problems++;
	if (d->d_sink->gfs_problem(d->d_sink->gfs_ctx, line, text) == -1)
		d->d_oom = true;
}

void
grant_clear(struct grant *g)
{
	if (g == NULL)
		return;
	free(g->g_paths);
	free(g->g_hosts);
	free(g->g_bytes);
	memset(g, 0, sizeof(*g));
}

/* Rule 2: the id is the file name's stem. */
static void
decode_id(struct decoder *d, const char *file)
{
	const char *name = strrchr(file, '/');
	struct bx_error err;
	size_t len;

	name = name != NULL ? name + 1 : file;
	len = strlen(name);
	if (len < SUFFIX_LEN || strcmp(name + len - SUFFIX_LEN, SUFFIX) != 0) {
		problem(d, 0, "a grant file's name ends in " SUFFIX);
		return;
	}
	len -= SUFFIX_LEN;
	if (len == 0 || len > BX_ID_MAX) {
		problem(d, 0, "the file name's stem is not a valid grant id "
		    "(1 to %d characters of a-z, 0-9 and -)", BX_ID_MAX);
		return;
	}
	memcpy(d->d_grant.g_id, name, len);
	d->d_grant.g_id[len] = '\0';
	if (bx_grant_id_check(d->d_grant.g_id, &err) == -1)
		problem(d, 0, "the file name's stem is not a valid grant id: "
		    "%s", err.msg);
}

/* A string value with no NUL in it, or NULL after reporting a problem. */
static const char *
string_of(struct decoder *d, const char *field, const struct toml_value *v)
{
	const char *s;
	size_t len;

	if (toml_value_string(v, &s, &len) == -1) {
		problem(d, toml_value_line(v), "field \"%s\" must be a string, "
		    "not %s", field, toml_type_name(toml_value_type(v)));
		return NULL;
	}
	if (strlen(s) != len) {
		problem(d, toml_value_line(v), "field \"%s\" contains a NUL",
		    field);
		return NULL;
	}
	return s;
}

static void
decode_tool(struct decoder *d, const struct toml_value *v)
{
	const char *s = string_of(d, "tool", v);
	struct bx_error err;

	if (s == NULL)
		return;
	if (bx_tool_parse(s, &d->d_grant.g_tool, &err) == -1) {
		problem(d, toml_value_line(v), "tool \"%s\" is not one of "
		    "read_file, write_file, shell, http_fetch", s);
		return;
	}
	d->d_tool_ok = true;
}

static void
decode_mode(struct decoder *d, const struct toml_value *v)
{
	const char *s = string_of(d, "mode", v);
	int i;

	if (s == NULL)
		return;
	if ((i = bx_name_index(s, mode_names, GRANT_MODE_MAX)) >= 0) {
		d->d_grant.g_mode = (enum grant_mode)i;
		return;
	}
	problem(d, toml_value_line(v), "mode \"%s\" is not auto, ask or deny",
	    s);
}

static void
decode_class(struct decoder *d, const char *field, const struct toml_value *v,
    enum bx_class *ret)
{
	const char *s = string_of(d, field, v);
	struct bx_error err;

	if (s != NULL && bx_class_parse(s, ret, &err) == -1)
		problem(d, toml_value_line(v), "field \"%s\": %s", field,
		    err.msg);
}

static void
decode_expires(struct decoder *d, const struct toml_value *v)
{
	struct bx_error err;
	const char *s;

	if (toml_type_is_datetime(toml_value_type(v))) {
		problem(d, toml_value_line(v), "field \"expires\" is a bare "
		    "TOML datetime; it must be a string: quote it, as in "
		    "expires = \"2027-01-01T00:00:00.000Z\"");
		return;
	}
	if ((s = string_of(d, "expires", v)) == NULL)
		return;
	if (bx_time_parse(s, &d->d_grant.g_expires, &err) == -1)
		problem(d, toml_value_line(v), "field \"expires\": %s",
		    err.msg);
}

static void
decode_untrusted(struct decoder *d, const struct toml_value *v)
{
	int b;

	if (toml_value_bool(v, &b) == -1) {
		problem(d, toml_value_line(v), "field \"untrusted\" must be "
		    "a boolean, not %s", toml_type_name(toml_value_type(v)));
		return;
	}
	d->d_grant.g_untrusted = b != 0;
}

/*
 * An array of strings into *ret, one allocation (NULL ret: only checked),
 * each passing check (rules 7 and 8) when check is not NULL. A problem in
 * any entry leaves the list out: the file is invalid anyway.
 */
static void
decode_list(struct decoder *d, const char *field, const struct toml_value *v,
    int (*check)(const char *, size_t, struct bx_error *), const char *what,
    char ***ret, size_t *ret_len)
{
	const char *good[GRANTS_MAX_CONSTRAINTS];
	const struct toml_array *a;
	const struct toml_value *e;
	struct bx_error err;
	const char *s;
	size_t i, n, ngood = 0;

	if (toml_value_array(v, &a) == -1) {
		problem(d, toml_value_line(v), "field \"%s\" must be an array "
		    "of strings, not %s", field,
		    toml_type_name(toml_value_type(v)));
		return;
	}
	if ((n = toml_array_len(a)) > GRANTS_MAX_CONSTRAINTS) {
		problem(d, toml_value_line(v), "field \"%s\" has more than %d "
		    "entries", field, GRANTS_MAX_CONSTRAINTS);
		return;
	}
	for (i = 0; i < n; i++) {
		e = toml_array_at(a, i);
		if ((s = string_of(d, field, e)) == NULL)
			continue;
		if (check != NULL && check(s, strlen(s), &err) == -1) {
			problem(d, toml_value_line(e), "%s: \"%s\" is not a "
			    "valid %s: %s", field, s, what, err.msg);
			continue;
		}
		good[ngood++] = s;
	}
	if (ret == NULL || ngood < n)
		return;
	if (bx_strlist_copy(good, ngood, ret, &err) == -1) {
		d->d_oom = true;
		return;
	}
	*ret_len = ngood;
}

static void
decode_constraints(struct decoder *d, const struct toml_value *v)
{
	const struct toml_table *t;
	const struct toml_array *a;
	const struct toml_value *e;
	const char *key;
	size_t i;
	int line;

	if (toml_value_table(v, &t) == -1) {
		problem(d, toml_value_line(v), "field \"constraints\" must be "
		    "a table, not %s", toml_type_name(toml_value_type(v)));
		return;
	}
	for (i = 0; (key = toml_table_key_at(t, i, NULL, &line, NULL)); i++) {
		e = toml_table_value_at(t, i);
		if (strcmp(key, "paths") == 0) {
			d->d_paths_line = line;
			decode_list(d, "constraints.paths", e, bx_path_check,
			    "absolute path", &d->d_grant.g_paths,
			    &d->d_grant.g_npaths);
		} else if (strcmp(key, "hosts") == 0) {
			d->d_hosts_line = line;
			decode_list(d, "constraints.hosts", e,
			    bx_host_pattern_check, "host pattern",
			    &d->d_grant.g_hosts, &d->d_grant.g_nhosts);
		} else if (strcmp(key, "patterns") == 0) {
			decode_list(d, "constraints.patterns", e, NULL, NULL,
			    NULL, NULL);
			if (toml_value_array(e, &a) == 0 &&
			    toml_array_len(a) > 0)
				problem(d, line, "patterns are not supported");
		} else
			problem(d, line, "unknown field \"constraints.%s\"",
			    key);
	}
}

/* The secret's name only: its file is read by the call (secret.h). */
static void
decode_secret(struct decoder *d, const struct toml_value *v)
{
	const char *s = string_of(d, "secret", v);
	struct bx_error err;

	if (s == NULL)
		return;
	if (bx_secret_name_check(s, &err) == -1) {
		problem(d, toml_value_line(v), "field \"secret\" is not a "
		    "valid secret name: %s", err.msg);
		return;
	}
	memcpy(d->d_grant.g_secret, s, strlen(s) + 1);
}

/* One key of the top-level table. */
static void
decode_field(struct decoder *d, const char *key, int line,
    const struct toml_value *v)
{
	struct grant *g = &d->d_grant;

	if (strcmp(key, "tool") == 0) {
		d->d_seen |= SEEN_TOOL;
		decode_tool(d, v);
	} else if (strcmp(key, "mode") == 0) {
		d->d_seen |= SEEN_MODE;
		decode_mode(d, v);
	} else if (strcmp(key, "max_taint") == 0) {
		d->d_seen |= SEEN_MAX_TAINT;
		decode_class(d, "max_taint", v, &g->g_max_taint);
	} else if (strcmp(key, "result_class") == 0) {
		d->d_seen |= SEEN_RESULT_CLASS;
		decode_class(d, "result_class", v, &g->g_result_class);
	} else if (strcmp(key, "expires") == 0) {
		d->d_seen |= SEEN_EXPIRES;
		decode_expires(d, v);
	} else if (strcmp(key, "untrusted") == 0)
		decode_untrusted(d, v);
	else if (strcmp(key, "secret") == 0) {
		d->d_secret_line = line;
		decode_secret(d, v);
	}
	else if (strcmp(key, "constraints") == 0)
		decode_constraints(d, v);
	else
		problem(d, line, "unknown field \"%s\"", key);
}

static void
check_required(struct decoder *d)
{
	static const struct {
		unsigned	 bit;
		const char	*name;
	} required[] = {
		{ SEEN_TOOL, "tool" }, { SEEN_MODE, "mode" },
		{ SEEN_MAX_TAINT, "max_taint" },
		{ SEEN_RESULT_CLASS, "result_class" },
		{ SEEN_EXPIRES, "expires" },
	};
	size_t i;

	for (i = 0; i < sizeof(required) / sizeof(required[0]); i++)
		if ((d->d_seen & required[i].bit) == 0)
			problem(d, 0, "missing required field \"%s\"",
			    required[i].name);
}

/*
 * A secret is sent only to hosts named exactly (design section 3,
 * "Secrets"): a pattern would send it to hosts nobody listed.
 */
static void
check_secret(struct decoder *d)
{
	const struct grant *g = &d->d_grant;
	size_t i;

	if (d->d_secret_line == 0 || !d->d_tool_ok)
		return;
	if (g->g_tool != BX_TOOL_HTTP_FETCH) {
		problem(d, d->d_secret_line, "secret is only for http_fetch");
		return;
	}
	for (i = 0; i < g->g_nhosts; i++)
		if (g->g_hosts[i][0] == '*') {
			problem(d, d->d_hosts_line, "a grant with a secret "
			    "names exact hosts, not patterns");
			return;
		}
}

/* Rule 6: the constraints each tool takes (design section 3, "Loading"). */
static void
check_constraints(struct decoder *d)
{
	const struct grant *g = &d->d_grant;
	const char *tool = bx_tool_name(g->g_tool);
	bool want_paths, want_hosts;

	if ((d->d_seen & SEEN_TOOL) == 0 || d->d_problems > 0)
		return;
	want_paths = g->g_tool == BX_TOOL_READ_FILE ||
	    g->g_tool == BX_TOOL_WRITE_FILE;
	want_hosts = g->g_tool == BX_TOOL_HTTP_FETCH;
	if (want_paths && g->g_npaths == 0)
		problem(d, d->d_paths_line, "a %s grant requires "
		    "constraints.paths", tool);
	if (g->g_tool == BX_TOOL_HTTP_FETCH && g->g_npaths > 0)
		problem(d, d->d_paths_line, "a %s grant takes no "
		    "constraints.paths", tool);
	if (want_hosts && g->g_nhosts == 0)
		problem(d, d->d_hosts_line, "a %s grant requires "
		    "constraints.hosts", tool);
	if (!want_hosts && g->g_nhosts > 0)
		problem(d, d->d_hosts_line, "a %s grant takes no "
		    "constraints.hosts", tool);
}

/* A parser error "<file>:<line>: <text>" becomes a problem at that line. */
static void
parse_problem(struct decoder *d, const char *file, const char *msg)
{
	size_t flen = strlen(file);
	int64_t line = 0;
	const char *p;

	if (strncmp(msg, file, flen) == 0 && msg[flen] == ':') {
		for (p = msg + flen + 1; *p >= '0' && *p <= '9'; p++)
			line = line * 10 + (*p - '0');
		if (p > msg + flen + 1 && p[0] == ':' && p[1] == ' ') {
			problem(d, line, "%s", p + 2);
			return;
		}
	}
	problem(d, 0, "%s", msg);
}

/* Decodes the parsed document; problems go to the sink. */
static void
decode_doc(struct decoder *d)
{
	const struct toml_table *root = toml_doc_root(d->d_doc);
	const char *key;
	size_t i;
	int line;

	/* A key holding a NUL comes back as "tool\u0000": an unknown field. */
	for (i = 0; (key = toml_table_key_at(root, i, NULL, &line, NULL)); i++)
		decode_field(d, key, line, toml_table_value_at(root, i));
	check_required(d);
	check_constraints(d);
	check_secret(d);
}

int
grantfile_decode(const char *file, const char *buf, size_t len,
    const struct grantfile_sink *sink, struct grant *ret, bool *ret_valid,
    struct bx_error *err)
{
	struct decoder d;
	struct toml_doc *doc = NULL;
	struct bx_error perr;

	memset(&d, 0, sizeof(d));
	d.d_sink = sink;
	decode_id(&d, file);
	/* The parser checks UTF-8 first and names the line of a bad byte. */
	if (toml_parse(file, buf, len, &doc, &perr) == -1)
		parse_problem(&d, file, perr.msg);
	else {
		d.d_doc = doc;
		decode_doc(&d);
	}
	toml_doc_free(doc);
	if (d.d_oom) {
		grant_clear(&d.d_grant);
		return bx_fail(err, "%s: out of memory", file);
	}
	if (d.d_problems > 0) {
		grant_clear(&d.d_grant);
		*ret_valid = false;
		return 0;
	}
	*ret = d.d_grant;
	*ret_valid = true;
	return 0;
}

const char *
grant_secret(const struct grant *g)
{
	return g->g_secret[0] != '\0' ? g->g_secret : NULL;
}

const char *
grant_mode_name(enum grant_mode m)
{
	return m < GRANT_MODE_MAX ? mode_names[m] : "?";
}
