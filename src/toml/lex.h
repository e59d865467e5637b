/*
 * lex.h: the cursor the grammar reads the document with, and the small
 * lexical pieces every part of the grammar shares: whitespace, newlines,
 * comments, the end of a line, errors with the current line, and a scratch
 * buffer for building strings.
 *
 * The lexer borrows the document buffer and the bx_error; it owns only its
 * scratch buffer, which toml_lex_done() frees.
 */
#ifndef TOML_LEX_H
#define TOML_LEX_H

#include <stddef.h>
#include <string.h>

#include "proto/error.h"
#include "toml/toml-internal.h"

/* Room for the key or table a message is about, e.g. "servers.alpha". */
#define TOML_CONTEXT_MAX	160
/* Keys being defined, outermost first: a line's key and inline tables'. */
#define TOML_CONTEXT_KEYS	(TOML_MAX_DEPTH + 2)

struct toml_lexer {
	struct toml_doc		*lx_doc;
	struct bx_error		*lx_err;
	const char		*lx_p;		/* next byte to read */
	const char		*lx_end;
	const char		*lx_line_start;
	int			 lx_line;
	/*
	 * What errors are about: the keys being defined (a line's key,
	 * then the keys inside its inline tables) and whether the first is
	 * a key, a [table] or an [[array of tables]].
	 */
	const struct toml_key	*lx_keys[TOML_CONTEXT_KEYS];
	int			 lx_nkeys;
	const char		*lx_what;
	char			*lx_scratch;
	size_t			 lx_scratch_len;
	size_t			 lx_scratch_cap;
};

void	toml_lex_init(struct toml_lexer *lx, struct toml_doc *doc,
	    const char *buf, size_t len, struct bx_error *err);
void	toml_lex_done(struct toml_lexer *lx);

/* "<name>:<line>: [<context>: ]<message>" at the current or a given line. */
int	toml_lex_fail(struct toml_lexer *lx, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
int	toml_lex_fail_line(struct toml_lexer *lx, int line, const char *fmt,
	    ...)
	    __attribute__((format(printf, 3, 4)));
/* Refuses the byte at the cursor, describing it (control, EOF, ...). */
int	toml_lex_unexpected(struct toml_lexer *lx, const char *expected);

/*
 * The cursor's reads are inline: the grammar calls them for nearly every
 * byte of the document, and a call each costs more than the read.
 */

/* The byte at the cursor (+ ahead), or -1 past the end. */
static inline int
toml_lex_peek(const struct toml_lexer *lx, size_t ahead)
{
	if ((size_t)(lx->lx_end - lx->lx_p) <= ahead)
		return -1;
	return (unsigned char)lx->lx_p[ahead];
}

static inline int
toml_lex_eof(const struct toml_lexer *lx)
{
	return lx->lx_p == lx->lx_end;
}

/* True when the next bytes are exactly s. */
static inline int
toml_lex_looking_at(const struct toml_lexer *lx, const char *s)
{
	size_t n = strlen(s);

	return (size_t)(lx->lx_end - lx->lx_p) >= n &&
	    memcmp(lx->lx_p, s, n) == 0;
}

int	toml_lex_column(const struct toml_lexer *lx);

/* Skips spaces and tabs. */
void	toml_lex_skip_ws(struct toml_lexer *lx);
/*
 * Consumes one newline (LF or CRLF) if the cursor is at one: 1 if it did,
 * 0 if the cursor is elsewhere, -1 (err filled) at a CR without LF.
 */
int	toml_lex_newline(struct toml_lexer *lx);
/* Consumes a comment if the cursor is at '#'; -1 on a control character. */
int	toml_lex_comment(struct toml_lexer *lx);
/* Skips whitespace, comments and newlines, as allowed inside arrays. */
int	toml_lex_skip_blank(struct toml_lexer *lx);
/*
 * Skips whitespace and a comment; then 1 when the line ends there (its
 * newline consumed, or the end of the document), 0 when something else
 * follows, -1 on an error.
 */
int	toml_lex_line_ends(struct toml_lexer *lx);
/* After a key/value or a header: whitespace, a comment, then EOL or EOF. */
int	toml_lex_end_of_line(struct toml_lexer *lx, const char *after);

/*
 * The context of messages. toml_lex_context() starts a new line's: what
 * is "key", "table" or "array of tables"; push and pop add the keys of
 * inline tables, so errors say 'key "a.b.c"'. Keys are borrowed.
 */
void	toml_lex_context(struct toml_lexer *lx, const char *what,
	    const struct toml_key *key);
void	toml_lex_push_key(struct toml_lexer *lx, const struct toml_key *key);
void	toml_lex_pop_key(struct toml_lexer *lx);

/* The scratch buffer: reset, append; -1 (err filled) when out of memory. */
void	toml_scratch_reset(struct toml_lexer *lx);
int	toml_scratch_add(struct toml_lexer *lx, const char *s, size_t n);
/* Appends code point cp as UTF-8 (the caller checked it is a scalar). */
int	toml_scratch_add_utf8(struct toml_lexer *lx, unsigned long cp);

/*
 * Writes src as printable text to dst (size cap, NUL-terminated): control
 * characters as \uXXXX, quotes and backslashes escaped, cut with "...".
 */
void	toml_escape(char *dst, size_t cap, const char *src, size_t len);

/* True for U+0000-U+001F and U+007F except tab: never allowed raw. */
static inline int
toml_is_control(int c)
{
	return (c >= 0 && c < 0x20 && c != '\t') || c == 0x7f;
}

#endif
