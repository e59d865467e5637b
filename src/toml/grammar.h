/*
 * grammar.h: the pieces of the TOML grammar, one file each, and how they
 * call one another. All of them read through the lexer (lex.h), allocate
 * from the lexer's document, and on error fill the lexer's bx_error and
 * return -1 (the whole parse then fails; nothing partial is kept).
 */
#ifndef TOML_GRAMMAR_H
#define TOML_GRAMMAR_H

#include <stddef.h>

#include "toml/lex.h"
#include "toml/toml-internal.h"

/* string.c: any of the four forms at a quote; keys pass allow_multiline 0. */
int	toml_parse_string(struct toml_lexer *lx, int allow_multiline,
	    char **ret, size_t *ret_len);

/* key.c: a dotted key at the cursor; whitespace after it is skipped. */
int	toml_parse_key(struct toml_lexer *lx, struct toml_key *key);

/* number.c: an integer or float at the cursor, stored into v. */
int	toml_parse_number(struct toml_lexer *lx, struct toml_value *v);

/* datetime.c: whether the cursor is at a date or time, and parsing one. */
int	toml_looks_like_datetime(const struct toml_lexer *lx);
int	toml_parse_datetime(struct toml_lexer *lx, struct toml_value *v);

/*
 * value.c: a value at the cursor. depth is the depth the value would
 * have if it is an array or inline table (its parent's depth + 1).
 */
int	toml_parse_value(struct toml_lexer *lx, int depth,
	    struct toml_value **ret);
/*
 * A whole "key = value" at the cursor, defined in table base. The key is
 * parsed into *key, which stays pushed on the lexer's context so that
 * errors after the value still name it; the caller pops it.
 */
int	toml_parse_keyval(struct toml_lexer *lx, struct toml_table *base,
	    struct toml_key *key);

/*
 * table.c: the rules for defining tables and keys once.
 * toml_define_header() handles [key] (array 0) and [[key]] (array 1)
 * below root and returns the table later key/values go to.
 * toml_key_target() walks a key/value's dotted prefix from base,
 * creating tables, checks the last part is not defined yet, and returns
 * the table the value goes to.
 */
int	toml_define_header(struct toml_lexer *lx, struct toml_table *root,
	    const struct toml_key *key, int array, struct toml_table **ret);
int	toml_key_target(struct toml_lexer *lx, struct toml_table *base,
	    const struct toml_key *key, struct toml_table **ret);
/* Refuses a container nested deeper than TOML_MAX_DEPTH. */
int	toml_check_depth(struct toml_lexer *lx, int depth);

#endif
