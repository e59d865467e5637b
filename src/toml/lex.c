/*
 * lex.c: the cursor over the document and the lexical pieces shared by
 * the grammar: whitespace, newlines, comments, ends of lines, error
 * messages carrying the line and what they are about, and the scratch
 * buffer strings are built in.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "toml/lex.h"
#include "proto/wipe.h"

void
toml_lex_init(struct toml_lexer *lx, struct toml_doc *doc, const char *buf,
    size_t len, struct bx_error *err)
{
	memset(lx, 0, sizeof(*lx));
	lx->lx_doc = doc;
	lx->lx_err = err;
	lx->lx_p = buf;
	lx->lx_end = buf + len;
	lx->lx_line_start = buf;
	lx->lx_line = 1;
}

/* The scratch held the last string decoded: overwritten, as the arena. */
void
toml_lex_done(struct toml_lexer *lx)
{
	bx_wipe_free(lx->lx_scratch, lx->lx_scratch_cap);
	lx->lx_scratch = NULL;
	lx->lx_scratch_len = lx->lx_scratch_cap = 0;
}

static void context_text(const struct toml_lexer *, char *, size_t);

static int
vfail(struct toml_lexer *lx, int line, const char *fmt, va_list ap)
{
	char msg[BX_ERROR_MAX], context[TOML_CONTEXT_MAX];

	int rc;

	vsnprintf(msg, sizeof(msg), fmt, ap);
	context_text(lx, context, sizeof(context));
	if (context[0] == '\0')
		rc = bx_fail(lx->lx_err, "%s:%d: %s", lx->lx_doc->d_name,
		    line, msg);
	else
		rc = bx_fail(lx->lx_err, "%s:%d: %s: %s", lx->lx_doc->d_name,
		    line, context, msg);
	/* The context quotes the document, which may be a secret file. */
	explicit_bzero(context, sizeof(context));
	return rc;
}

int
toml_lex_fail(struct toml_lexer *lx, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(lx, lx->lx_line, fmt, ap);
	va_end(ap);
	return rc;
}

int
toml_lex_fail_line(struct toml_lexer *lx, int line, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = vfail(lx, line, fmt, ap);
	va_end(ap);
	return rc;
}

int
toml_lex_unexpected(struct toml_lexer *lx, const char *expected)
{
	int c = toml_lex_peek(lx, 0);

	if (c == -1)
		return toml_lex_fail(lx, "expected %s, found the end of the "
		    "document", expected);
	if (c == '\n' || (c == '\r' && toml_lex_peek(lx, 1) == '\n'))
		return toml_lex_fail(lx, "expected %s, found the end of the "
		    "line", expected);
	if (toml_is_control(c) || c == '\r')
		return toml_lex_fail(lx, "expected %s, found control "
		    "character U+%04X", expected, (unsigned)c);
	if (c >= 0x80)
		return toml_lex_fail(lx, "expected %s, found a non-ASCII "
		    "character at column %d", expected, toml_lex_column(lx));
	return toml_lex_fail(lx, "expected %s, found '%c'", expected, c);
}

int
toml_lex_column(const struct toml_lexer *lx)
{
	return (int)(lx->lx_p - lx->lx_line_start) + 1;
}

void
toml_lex_skip_ws(struct toml_lexer *lx)
{
	while (lx->lx_p < lx->lx_end && (*lx->lx_p == ' ' ||
	    *lx->lx_p == '\t'))
		lx->lx_p++;
}

int
toml_lex_newline(struct toml_lexer *lx)
{
	int c = toml_lex_peek(lx, 0);

	if (c == '\r') {
		if (toml_lex_peek(lx, 1) != '\n')
			return toml_lex_fail(lx, "carriage return without a "
			    "line feed");
		lx->lx_p++;
		c = '\n';
	}
	if (c != '\n')
		return 0;
	lx->lx_p++;
	lx->lx_line++;
	lx->lx_line_start = lx->lx_p;
	return 1;
}

int
toml_lex_comment(struct toml_lexer *lx)
{
	int c;

	if (toml_lex_peek(lx, 0) != '#')
		return 0;
	lx->lx_p++;
	while ((c = toml_lex_peek(lx, 0)) != -1 && c != '\n') {
		if (c == '\r' && toml_lex_peek(lx, 1) == '\n')
			break;
		if (toml_is_control(c) || c == '\r')
			return toml_lex_fail(lx, "control character U+%04X "
			    "in a comment", (unsigned)c);
		lx->lx_p++;
	}
	return 0;
}

int
toml_lex_skip_blank(struct toml_lexer *lx)
{
	int rc;

	for (;;) {
		toml_lex_skip_ws(lx);
		if (toml_lex_comment(lx) == -1)
			return -1;
		if ((rc = toml_lex_newline(lx)) == -1)
			return -1;
		if (rc == 0)
			return 0;
	}
}

int
toml_lex_line_ends(struct toml_lexer *lx)
{
	toml_lex_skip_ws(lx);
	if (toml_lex_comment(lx) == -1)
		return -1;
	if (toml_lex_eof(lx))
		return 1;
	return toml_lex_newline(lx);
}

int
toml_lex_end_of_line(struct toml_lexer *lx, const char *after)
{
	char expected[96];
	int rc;

	if ((rc = toml_lex_line_ends(lx)) != 0)
		return rc == 1 ? 0 : -1;
	snprintf(expected, sizeof(expected), "the end of the line after %s",
	    after);
	return toml_lex_unexpected(lx, expected);
}

static int
is_bare(const char *s, size_t len)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    (c >= '0' && c <= '9') || c == '_' || c == '-'))
			return 0;
	}
	return 1;
}

void
toml_escape(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = 0, i;

	for (i = 0; i < len && n + 7 < cap; i++) {
		unsigned char c = (unsigned char)src[i];

		if (c < 0x20 || c == 0x7f)
			n += (size_t)snprintf(dst + n, cap - n, "\\u%04X", c);
		else if (c == '"' || c == '\\')
			n += (size_t)snprintf(dst + n, cap - n, "\\%c", c);
		else
			dst[n++] = (char)c;
	}
	if (i < len && n + 4 < cap)
		n += (size_t)snprintf(dst + n, cap - n, "...");
	dst[n] = '\0';
}

/* Appends a key part to dst (size cap), quoted and escaped unless bare. */
static void
append_part(char *dst, size_t cap, const char *src, size_t len)
{
	size_t n = strlen(dst);
	int bare = is_bare(src, len);

	if (n + 2 >= cap)
		return;
	if (!bare)
		dst[n++] = '"';
	toml_escape(dst + n, cap - n - 1, src, len);
	n += strlen(dst + n);
	if (!bare)
		dst[n++] = '"';
	dst[n] = '\0';
}

/* True when every part of the context's keys is a bare key. */
static int
all_bare(const struct toml_lexer *lx)
{
	const struct toml_key *key;
	int i, j;

	for (i = 0; i < lx->lx_nkeys && i < TOML_CONTEXT_KEYS; i++) {
		key = lx->lx_keys[i];
		for (j = 0; j < key->k_n; j++)
			if (!is_bare(key->k_parts[j].k_s, key->k_parts[j].k_len))
				return 0;
	}
	return 1;
}

/*
 * 'key "a.b"', 'table [a.b]', or with quoted parts as written in TOML:
 * 'key a."b c"'.
 */
static void
context_text(const struct toml_lexer *lx, char *out, size_t cap)
{
	char name[TOML_CONTEXT_MAX];
	const struct toml_key *key;
	int i, j;

	out[0] = name[0] = '\0';
	if (lx->lx_nkeys == 0)
		return;
	for (i = 0; i < lx->lx_nkeys && i < TOML_CONTEXT_KEYS; i++) {
		key = lx->lx_keys[i];
		for (j = 0; j < key->k_n; j++) {
			if ((i > 0 || j > 0) && strlen(name) + 1 < sizeof(name))
				strcat(name, ".");
			append_part(name, sizeof(name), key->k_parts[j].k_s,
			    key->k_parts[j].k_len);
		}
	}
	if (strcmp(lx->lx_what, "table") == 0)
		snprintf(out, cap, "table [%s]", name);
	else if (strcmp(lx->lx_what, "array of tables") == 0)
		snprintf(out, cap, "array of tables [[%s]]", name);
	else if (all_bare(lx))
		snprintf(out, cap, "%s \"%s\"", lx->lx_what, name);
	else
		snprintf(out, cap, "%s %s", lx->lx_what, name);
}

void
toml_lex_context(struct toml_lexer *lx, const char *what,
    const struct toml_key *key)
{
	lx->lx_what = what;
	lx->lx_nkeys = 0;
	if (key != NULL)
		toml_lex_push_key(lx, key);
}

void
toml_lex_push_key(struct toml_lexer *lx, const struct toml_key *key)
{
	/* Deeper keys are still counted, so pops stay balanced. */
	if (lx->lx_nkeys < TOML_CONTEXT_KEYS)
		lx->lx_keys[lx->lx_nkeys] = key;
	lx->lx_nkeys++;
}

void
toml_lex_pop_key(struct toml_lexer *lx)
{
	if (lx->lx_nkeys > 0)
		lx->lx_nkeys--;
}

void
toml_scratch_reset(struct toml_lexer *lx)
{
	lx->lx_scratch_len = 0;
}

int
toml_scratch_add(struct toml_lexer *lx, const char *s, size_t n)
{
	size_t cap;
	char *p;

	if (lx->lx_scratch_cap - lx->lx_scratch_len < n + 1) {
		cap = lx->lx_scratch_cap == 0 ? 256 : lx->lx_scratch_cap;
		while (cap - lx->lx_scratch_len < n + 1)
			cap *= 2;
		/* Not realloc(3): it may free the old copy as it was. */
		if ((p = malloc(cap)) == NULL)
			return toml_lex_fail(lx, "out of memory");
		if (lx->lx_scratch != NULL) {
			memcpy(p, lx->lx_scratch, lx->lx_scratch_len);
			bx_wipe_free(lx->lx_scratch, lx->lx_scratch_cap);
		}
		lx->lx_scratch = p;
		lx->lx_scratch_cap = cap;
	}
	memcpy(lx->lx_scratch + lx->lx_scratch_len, s, n);
	lx->lx_scratch_len += n;
	lx->lx_scratch[lx->lx_scratch_len] = '\0';
	return 0;
}

int
toml_scratch_add_utf8(struct toml_lexer *lx, unsigned long cp)
{
	char buf[4];

	return toml_scratch_add(lx, buf, toml_utf8_encode(cp, buf));
}
