/*
 * string.c: the four TOML string forms: basic "..." with escapes, literal
 * '...', and their multi-line """...""" and '''...''' forms. The result is
 * built in the lexer's scratch buffer and copied to the document's arena.
 */
#include <string.h>

#include "toml/grammar.h"

static int
hex_digit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* After "\u" or "\U": ndigits hex digits naming a Unicode scalar value. */
static int
unicode_escape(struct toml_lexer *lx, int ndigits)
{
	unsigned long cp = 0;
	int i, d;

	for (i = 0; i < ndigits; i++) {
		if ((d = hex_digit(toml_lex_peek(lx, (size_t)i))) == -1)
			return toml_lex_fail(lx, "\\%c escape needs %d hex "
			    "digits", ndigits == 4 ? 'u' : 'U', ndigits);
		cp = cp * 16 + (unsigned long)d;
	}
	if (!toml_is_scalar(cp))
		return toml_lex_fail(lx, "\\%c%.*s is not a Unicode scalar "
		    "value", ndigits == 4 ? 'u' : 'U', ndigits, lx->lx_p);
	lx->lx_p += ndigits;
	return toml_scratch_add_utf8(lx, cp);
}

/*
 * In a multi-line basic string, a backslash at the end of a line removes
 * it and all whitespace and newlines after it. The cursor is after the
 * backslash; returns 1 if it was such a line ending, 0 if not.
 */
static int
line_ending_backslash(struct toml_lexer *lx)
{
	const char *save = lx->lx_p;
	int rc;

	toml_lex_skip_ws(lx);
	if ((rc = toml_lex_newline(lx)) != 1) {
		lx->lx_p = save;
		return rc;
	}
	for (;;) {
		toml_lex_skip_ws(lx);
		if ((rc = toml_lex_newline(lx)) == -1)
			return -1;
		if (rc == 0)
			return 1;
	}
}

/* The cursor is after a backslash in a basic string. */
static int
escape(struct toml_lexer *lx, int multiline)
{
	int c = toml_lex_peek(lx, 0), rc;
	const char *simple;

	if (multiline && (rc = line_ending_backslash(lx)) != 0)
		return rc == 1 ? 0 : -1;
	switch (c) {
	case 'b': simple = "\b"; break;
	case 't': simple = "\t"; break;
	case 'n': simple = "\n"; break;
	case 'f': simple = "\f"; break;
	case 'r': simple = "\r"; break;
	case '"': simple = "\""; break;
	case '\\': simple = "\\"; break;
	case 'u':
		lx->lx_p++;
		return unicode_escape(lx, 4);
	case 'U':
		lx->lx_p++;
		return unicode_escape(lx, 8);
	default:
		if (c >= 0x21 && c < 0x7f)
			return toml_lex_fail(lx, "invalid escape \\%c in a "
			    "string", c);
		return toml_lex_fail(lx, "invalid escape: a backslash "
		    "followed by %s", c == -1 ? "the end of the document" :
		    "a space or control character");
	}
	lx->lx_p++;
	return toml_scratch_add(lx, simple, 1);
}

/*
 * A run of delimiter quotes inside a multi-line string: fewer than three
 * are content; three to five close the string, the extra ones being
 * content. Returns 1 when the string closed.
 */
static int
quote_run(struct toml_lexer *lx, char quote)
{
	size_t n = 0;

	while (toml_lex_peek(lx, n) == quote)
		n++;
	if (n > 5)
		return toml_lex_fail(lx, "too many quotes (%zu) at the end of "
		    "a multi-line string", n);
	lx->lx_p += n;
	if (n < 3)
		return toml_scratch_add(lx, lx->lx_p - n, n) == -1 ? -1 : 0;
	if (toml_scratch_add(lx, lx->lx_p - n, n - 3) == -1)
		return -1;
	return 1;
}

/* One raw character of content; newlines only when multiline. */
static int
content_char(struct toml_lexer *lx, int multiline, const char *kind)
{
	int c = toml_lex_peek(lx, 0);

	if (c == -1)
		return toml_lex_fail(lx, "unterminated %s", kind);
	if (c == '\n' || c == '\r') {
		if (!multiline)
			return c == '\r' && toml_lex_peek(lx, 1) != '\n' ?
			    toml_lex_fail(lx, "carriage return in a %s", kind) :
			    toml_lex_fail(lx, "unterminated %s: it ends at "
			    "the end of the line", kind);
		if (toml_lex_newline(lx) == -1)
			return -1;
		return toml_scratch_add(lx, "\n", 1);
	}
	if (toml_is_control(c))
		return toml_lex_fail(lx, "control character U+%04X in a %s; "
		    "escape it", (unsigned)c, kind);
	lx->lx_p++;
	return toml_scratch_add(lx, lx->lx_p - 1, 1);
}

/*
 * How many bytes at the cursor are plain content in any string form: not
 * the quote, a backslash, a newline or a control character. Such a run is
 * copied at once; the bytes that end it go through the checks below.
 */
static size_t
plain_run(const struct toml_lexer *lx, char quote)
{
	const char *p = lx->lx_p;

	while (p < lx->lx_end && *p != quote && *p != '\\' &&
	    !toml_is_control((unsigned char)*p))
		p++;
	return (size_t)(p - lx->lx_p);
}

static int
string_body(struct toml_lexer *lx, char quote, int multiline)
{
	const char *kind;
	size_t n;
	int c, rc;

	if (quote == '"')
		kind = multiline ? "multi-line basic string" : "basic string";
	else
		kind = multiline ? "multi-line literal string" :
		    "literal string";
	for (;;) {
		if ((n = plain_run(lx, quote)) > 0) {
			if (toml_scratch_add(lx, lx->lx_p, n) == -1)
				return -1;
			lx->lx_p += n;
		}
		c = toml_lex_peek(lx, 0);
		if (c == quote && !multiline) {
			lx->lx_p++;
			return 0;
		}
		if (c == quote) {
			if ((rc = quote_run(lx, quote)) != 0)
				return rc == 1 ? 0 : -1;
			continue;
		}
		if (c == '\\' && quote == '"') {
			lx->lx_p++;
			rc = escape(lx, multiline);
		} else
			rc = content_char(lx, multiline, kind);
		if (rc == -1)
			return -1;
	}
}

/*
 * A one-line string that is a single plain run up to its closing quote,
 * as nearly every string is: copied straight from the document, without
 * the scratch buffer. The cursor is after the opening quote. Returns 1
 * when it was one (the cursor is then past the closing quote), 0 when it
 * needs string_body(), -1 when memory runs out.
 */
static int
plain_string(struct toml_lexer *lx, char quote, char **ret, size_t *ret_len)
{
	size_t n = plain_run(lx, quote);
	char *s;

	if (toml_lex_peek(lx, n) != quote)
		return 0;
	if ((s = toml_strndup(lx->lx_doc, lx->lx_p, n)) == NULL)
		return toml_lex_fail(lx, "out of memory");
	lx->lx_p += n + 1;
	*ret = s;
	*ret_len = n;
	return 1;
}

int
toml_parse_string(struct toml_lexer *lx, int allow_multiline, char **ret,
    size_t *ret_len)
{
	char quote = *lx->lx_p;
	int multiline = toml_lex_peek(lx, 1) == quote &&
	    toml_lex_peek(lx, 2) == quote;
	char *s;
	int rc;

	if (multiline && !allow_multiline)
		return toml_lex_fail(lx, "a key cannot be a multi-line string");
	toml_scratch_reset(lx);
	if (multiline) {
		lx->lx_p += 3;
		/* A newline right after the opening quotes is trimmed. */
		if (toml_lex_newline(lx) == -1)
			return -1;
	} else {
		lx->lx_p++;
		if ((rc = plain_string(lx, quote, ret, ret_len)) != 0)
			return rc == 1 ? 0 : -1;
	}
	if (string_body(lx, quote, multiline) == -1)
		return -1;
	s = toml_strndup(lx->lx_doc, lx->lx_scratch == NULL ? "" :
	    lx->lx_scratch, lx->lx_scratch_len);
	if (s == NULL)
		return toml_lex_fail(lx, "out of memory");
	*ret = s;
	*ret_len = lx->lx_scratch_len;
	return 0;
}
