/*
 * secret_decode.c: a secret file's TOML into a struct secret (see
 * secret.h for the fields and secret_impl.h for the contract). Like the
 * grant decoder, it checks in file order and reports every problem, so one
 * pass shows all that is wrong.
 *
 * Unlike it, no message quotes what the file says, except host names and
 * a header name refused by name: the value is never shown, and neither is
 * anything that may be it misplaced (an unknown key, a kind, a user name,
 * the TOML parser's own words, which can quote a bare token).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "brokerd/secret_impl.h"
#include "proto/hostname.h"
#include "proto/strlist.h"
#include "toml/toml.h"

struct decoder {
	const char		*d_file;
	const struct secret_sink *d_sink;
	struct secret		*d_secret;
	int			 d_problems;
	bool			 d_oom;
	bool			 d_kind_ok;	/* s_kind was decoded */
	int			 d_kind_line;	/* 0: the key is absent */
	int			 d_hosts_line;
	int			 d_value_line;
	int			 d_header_line;
	int			 d_user_line;
};

static const char *kind_names[SECRET_KIND_MAX] = { "bearer", "header",
    "basic" };

/* Headers a secret may never set: they frame or route the request. */
static const char *forbidden_headers[] = { "Host", "Content-Length",
    "Transfer-Encoding", "Connection" };

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
	if (d->d_sink->ss_problem(d->d_sink->ss_ctx, d->d_file, line,
	    text) == -1)
		d->d_oom = true;
}

const char *
secret_kind_name(enum secret_kind k)
{
	return k < SECRET_KIND_MAX ? kind_names[k] : "?";
}

/* A string value (its length in *ret_len), or NULL after a problem. */
static const char *
string_of(struct decoder *d, const char *field, const struct toml_value *v,
    size_t *ret_len)
{
	const char *s;

	if (toml_value_string(v, &s, ret_len) == -1) {
		problem(d, toml_value_line(v), "field \"%s\" must be a string, "
		    "not %s", field, toml_type_name(toml_value_type(v)));
		return NULL;
	}
	return s;
}

/*
 * What is wrong with len bytes of s as printable ASCII (space allowed
 * unless no_space), or NULL. Says what kind of byte, never which.
 */
static const char *
unprintable(const char *s, size_t len, bool no_space)
{
	unsigned char c;
	size_t i;

	for (i = 0; i < len; i++) {
		c = (unsigned char)s[i];
		if (c == '\n' || c == '\r')
			return "a line break";
		if (c == '\0')
			return "a NUL";
		if (c < 0x20 || c == 0x7f)
			return "a control character";
		if (c > 0x7f)
			return "a character that is not ASCII";
		if (c == ' ' && no_space)
			return "a space";
	}
	return NULL;
}

static char *
copy(struct decoder *d, const char *s, size_t len)
{
	char *p;

	if ((p = malloc(len + 1)) == NULL) {
		d->d_oom = true;
		return NULL;
	}
	memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

static void
decode_kind(struct decoder *d, const struct toml_value *v)
{
	const char *s;
	size_t len;
	int i;

	if ((s = string_of(d, "kind", v, &len)) == NULL)
		return;
	for (i = 0; i < SECRET_KIND_MAX; i++)
		if (strlen(kind_names[i]) == len && strcmp(s, kind_names[i]) == 0) {
			d->d_secret->s_kind = (enum secret_kind)i;
			d->d_kind_ok = true;
			return;
		}
	problem(d, toml_value_line(v), "field \"kind\" is not one of "
	    "\"bearer\", \"header\" and \"basic\"");
}

/* One entry of hosts: an exact host name, or a problem. */
static bool
host_ok(struct decoder *d, const struct toml_value *e, size_t i)
{
	struct bx_error err;
	const char *s;
	size_t len;

	if ((s = string_of(d, "hosts", e, &len)) == NULL)
		return false;
	if (len > BX_HOST_MAX || unprintable(s, len, true) != NULL) {
		problem(d, toml_value_line(e), "hosts: entry %zu is not a "
		    "host name", i + 1);
		return false;
	}
	if (len >= 2 && s[0] == '*' && s[1] == '.') {
		problem(d, toml_value_line(e), "hosts: \"%s\" is a pattern; "
		    "a secret names exact hosts, each sent the secret", s);
		return false;
	}
	if (bx_host_check(s, len, &err) == -1) {
		problem(d, toml_value_line(e), "hosts: \"%s\" is not a valid "
		    "host name: %s", s, err.msg);
		return false;
	}
	return true;
}

static void
decode_hosts(struct decoder *d, const struct toml_value *v)
{
	const char *good[SECRET_HOSTS_MAX];
	const struct toml_array *a;
	const struct toml_value *e;
	struct bx_error err;
	size_t i, n, ngood = 0;

	if (toml_value_array(v, &a) == -1) {
		problem(d, toml_value_line(v), "field \"hosts\" must be an "
		    "array of strings, not %s",
		    toml_type_name(toml_value_type(v)));
		return;
	}
	if ((n = toml_array_len(a)) == 0) {
		problem(d, toml_value_line(v), "field \"hosts\" is empty; it "
		    "lists the only hosts the secret is sent to");
		return;
	}
	if (n > SECRET_HOSTS_MAX) {
		problem(d, toml_value_line(v), "field \"hosts\" has more than "
		    "%d entries", SECRET_HOSTS_MAX);
		return;
	}
	for (i = 0; i < n; i++) {
		e = toml_array_at(a, i);
		if (host_ok(d, e, i))
			toml_value_string(e, &good[ngood++], NULL);
	}
	if (ngood < n)
		return;
	if (bx_strlist_copy(good, ngood, &d->d_secret->s_hosts, &err) == -1) {
		d->d_oom = true;
		return;
	}
	d->d_secret->s_nhosts = ngood;
	d->d_secret->s_hosts_line = d->d_hosts_line;
}

static void
decode_value(struct decoder *d, const struct toml_value *v)
{
	const char *s, *bad;
	size_t len;
	int line = toml_value_line(v);

	if ((s = string_of(d, "value", v, &len)) == NULL)
		return;
	if (len < SECRET_VALUE_MIN || len > SECRET_VALUE_MAX) {
		problem(d, line, "field \"value\" is %s than a secret's value "
		    "may be (%d to %d bytes)", len < SECRET_VALUE_MIN ?
		    "shorter" : "longer", SECRET_VALUE_MIN, SECRET_VALUE_MAX);
		return;
	}
	if ((bad = unprintable(s, len, false)) != NULL) {
		problem(d, line, "field \"value\" holds %s; a value is "
		    "printable ASCII only (did the paste bring a newline?)", bad);
		return;
	}
	if (s[0] == ' ' || s[len - 1] == ' ') {
		problem(d, line, "field \"value\" %s with a space", s[0] == ' ' ?
		    "starts" : "ends");
		return;
	}
	if ((d->d_secret->s_value = copy(d, s, len)) != NULL)
		d->d_secret->s_value_len = len;
}

/* RFC 9110 section 5.6.2: tchar. */
static bool
is_tchar(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || (c != '\0' && strchr("!#$%&'*+-.^_`|~",
	    c) != NULL);
}

static void
decode_header(struct decoder *d, const struct toml_value *v)
{
	const char *s;
	size_t i, len;
	int line = toml_value_line(v);

	if ((s = string_of(d, "header", v, &len)) == NULL)
		return;
	if (len == 0 || len > SECRET_HEADER_MAX) {
		problem(d, line, "field \"header\" is 1 to %d characters",
		    SECRET_HEADER_MAX);
		return;
	}
	for (i = 0; i < len; i++)
		if (!is_tchar((unsigned char)s[i])) {
			problem(d, line, "field \"header\" is not a header "
			    "name: character %zu is not allowed in an RFC 9110 "
			    "token (letters, digits and !#$%%&'*+-.^_`|~)",
			    i + 1);
			return;
		}
	for (i = 0; i < sizeof(forbidden_headers) /
	    sizeof(forbidden_headers[0]); i++)
		if (strcasecmp(s, forbidden_headers[i]) == 0) {
			problem(d, line, "field \"header\": \"%s\" frames or "
			    "routes the request, and a secret never sets it",
			    s);
			return;
		}
	if (strncasecmp(s, "Proxy-", 6) == 0) {
		problem(d, line, "field \"header\": \"%s\" is for a proxy, "
		    "and a secret never sets a Proxy-* header", s);
		return;
	}
	d->d_secret->s_header = copy(d, s, len);
}

static void
decode_user(struct decoder *d, const struct toml_value *v)
{
	const char *s, *bad;
	size_t len;
	int line = toml_value_line(v);

	if ((s = string_of(d, "user", v, &len)) == NULL)
		return;
	if (len == 0 || len > SECRET_USER_MAX) {
		problem(d, line, "field \"user\" is 1 to %d bytes",
		    SECRET_USER_MAX);
		return;
	}
	if ((bad = unprintable(s, len, false)) != NULL) {
		problem(d, line, "field \"user\" holds %s; a user name is "
		    "printable ASCII only", bad);
		return;
	}
	if (memchr(s, ':', len) != NULL) {
		problem(d, line, "field \"user\" holds a \":\", which Basic "
		    "authentication cannot carry in a user name");
		return;
	}
	d->d_secret->s_user = copy(d, s, len);
}

/* One key of the top-level table; an unknown key is not quoted. */
static void
decode_field(struct decoder *d, const char *key, int line,
    const struct toml_value *v)
{
	if (strcmp(key, "kind") == 0) {
		d->d_kind_line = line;
		decode_kind(d, v);
	} else if (strcmp(key, "hosts") == 0) {
		d->d_hosts_line = line;
		decode_hosts(d, v);
	} else if (strcmp(key, "value") == 0) {
		d->d_value_line = line;
		decode_value(d, v);
	} else if (strcmp(key, "header") == 0) {
		d->d_header_line = line;
		decode_header(d, v);
	} else if (strcmp(key, "user") == 0) {
		d->d_user_line = line;
		decode_user(d, v);
	} else
		problem(d, line, "unknown key (a secret file has only kind, "
		    "hosts, value, header and user; the key is not shown, in "
		    "case it is the value misplaced)");
}

/* The keys every secret has, and those of its kind only. */
static void
check_keys(struct decoder *d)
{
	enum secret_kind k = d->d_secret->s_kind;

	if (d->d_kind_line == 0)
		problem(d, 0, "missing required field \"kind\"");
	if (d->d_hosts_line == 0)
		problem(d, 0, "missing required field \"hosts\"");
	if (d->d_value_line == 0)
		problem(d, 0, "missing required field \"value\"");
	if (!d->d_kind_ok)
		return;
	if (k == SECRET_HEADER && d->d_header_line == 0)
		problem(d, d->d_kind_line, "a secret of kind \"header\" needs "
		    "field \"header\", the header's name");
	if (k != SECRET_HEADER && d->d_header_line != 0)
		problem(d, d->d_header_line, "field \"header\" is only for "
		    "kind = \"header\", and this secret is of kind \"%s\"",
		    kind_names[k]);
	if (k == SECRET_BASIC && d->d_user_line == 0)
		problem(d, d->d_kind_line, "a secret of kind \"basic\" needs "
		    "field \"user\", the user name");
	if (k != SECRET_BASIC && d->d_user_line != 0)
		problem(d, d->d_user_line, "field \"user\" is only for "
		    "kind = \"basic\", and this secret is of kind \"%s\"",
		    kind_names[k]);
}

/*
 * The parser's message "<file>:<line>: <text>" gives only its line: the
 * text can quote the token it failed on, and in this file that may be the
 * value (written without quotes, say).
 */
static void
parse_problem(struct decoder *d, const char *msg)
{
	size_t flen = strlen(d->d_file);
	int64_t line = 0;
	const char *p;

	if (strncmp(msg, d->d_file, flen) == 0 && msg[flen] == ':')
		for (p = msg + flen + 1; *p >= '0' && *p <= '9' &&
		    line < 100000000; p++)
			line = line * 10 + (*p - '0');
	problem(d, line, "not valid TOML (strings need double quotes, as in "
	    "value = \"...\"; the parser's own message is not shown, since "
	    "it can quote the file's text)");
}

int
secret_decode(const char *file, const char *buf, size_t len,
    const struct secret_sink *sink, struct secret *into, int *ret_problems,
    struct bx_error *err)
{
	struct decoder d;
	struct toml_doc *doc = NULL;
	const struct toml_table *root;
	struct bx_error perr;
	const char *key;
	size_t i;
	int line;

	memset(&d, 0, sizeof(d));
	d.d_file = file;
	d.d_sink = sink;
	d.d_secret = into;
	if (toml_parse(file, buf, len, &doc, &perr) == -1)
		parse_problem(&d, perr.msg);
	else {
		root = toml_doc_root(doc);
		/* A key holding a NUL comes back as "value\u0000": unknown. */
		for (i = 0; (key = toml_table_key_at(root, i, NULL, &line,
		    NULL)) != NULL; i++)
			decode_field(&d, key, line,
			    toml_table_value_at(root, i));
		check_keys(&d);
	}
	toml_doc_free(doc);
	explicit_bzero(&perr, sizeof(perr));
	if (d.d_oom)
		return bx_fail(err, "%s: out of memory", file);
	*ret_problems = d.d_problems;
	return 0;
}
