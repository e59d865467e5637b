/*
 * value.c: values: the dispatch on the first character, booleans, arrays
 * and inline tables, and the "key = value" form that both the document and
 * inline tables are made of.
 */
#include <string.h>

#include "toml/grammar.h"

static int
boolean(struct toml_lexer *lx, struct toml_value *v)
{
	if (toml_lex_looking_at(lx, "true")) {
		lx->lx_p += 4;
		v->v_u.boolean = 1;
	} else if (toml_lex_looking_at(lx, "false")) {
		lx->lx_p += 5;
		v->v_u.boolean = 0;
	} else
		return toml_lex_unexpected(lx, "a value");
	v->v_type = TOML_BOOL;
	return 0;
}

static int
array(struct toml_lexer *lx, struct toml_value *v)
{
	struct toml_array *a = v->v_u.array;
	struct toml_value *item;

	lx->lx_p++;
	for (;;) {
		if (toml_lex_skip_blank(lx) == -1)
			return -1;
		if (toml_lex_peek(lx, 0) == ']')
			break;
		if (toml_parse_value(lx, a->a_depth + 1, &item) == -1)
			return -1;
		if (toml_array_push(lx->lx_doc, a, item) == -1)
			return toml_lex_fail(lx, "out of memory");
		if (toml_lex_skip_blank(lx) == -1)
			return -1;
		if (toml_lex_peek(lx, 0) == ']')
			break;
		if (toml_lex_peek(lx, 0) != ',')
			return toml_lex_unexpected(lx, "',' or ']' in an array");
		lx->lx_p++;
	}
	lx->lx_p++;
	return 0;
}

/* Whitespace in an inline table, which must fit on one line. */
static int
inline_ws(struct toml_lexer *lx)
{
	int c;

	toml_lex_skip_ws(lx);
	c = toml_lex_peek(lx, 0);
	if (c == '\n' || c == '\r' || c == '#')
		return toml_lex_fail(lx, "an inline table must fit on one "
		    "line (no newlines or comments inside the braces)");
	return 0;
}

/* { key = value, ... } on one line, no trailing comma; sealed after. */
static int
inline_table(struct toml_lexer *lx, struct toml_value *v)
{
	struct toml_table *t = v->v_u.table;
	struct toml_key key;

	lx->lx_p++;
	if (inline_ws(lx) == -1)
		return -1;
	if (toml_lex_peek(lx, 0) != '}') {
		for (;;) {
			if (toml_parse_keyval(lx, t, &key) == -1 ||
			    inline_ws(lx) == -1)
				return -1;
			toml_lex_pop_key(lx);
			if (toml_lex_peek(lx, 0) == '}')
				break;
			if (toml_lex_peek(lx, 0) != ',')
				return toml_lex_unexpected(lx, "',' or '}' in "
				    "an inline table");
			lx->lx_p++;
			if (inline_ws(lx) == -1)
				return -1;
		}
	}
	lx->lx_p++;
	t->t_origin = TOML_ORIGIN_INLINE;
	return 0;
}

static int
value_body(struct toml_lexer *lx, struct toml_value *v, int c)
{
	if (c == '"' || c == '\'') {
		v->v_type = TOML_STRING;
		return toml_parse_string(lx, 1, &v->v_u.str.s,
		    &v->v_u.str.len);
	}
	if (c == 't' || c == 'f')
		return boolean(lx, v);
	if (c == '[')
		return array(lx, v);
	if (c == '{')
		return inline_table(lx, v);
	if (toml_looks_like_datetime(lx))
		return toml_parse_datetime(lx, v);
	if ((c >= '0' && c <= '9') || c == '+' || c == '-' || c == 'i' ||
	    c == 'n')
		return toml_parse_number(lx, v);
	return toml_lex_unexpected(lx, "a value");
}

int
toml_parse_value(struct toml_lexer *lx, int depth, struct toml_value **ret)
{
	struct toml_doc *doc = lx->lx_doc;
	int c = toml_lex_peek(lx, 0), line = lx->lx_line;
	int column = toml_lex_column(lx);
	struct toml_value *v;

	if (c == '[' || c == '{') {
		if (toml_check_depth(lx, depth) == -1)
			return -1;
		v = c == '[' ? toml_new_array(doc, depth, line, column) :
		    toml_new_table(doc, TOML_ORIGIN_DOTTED, depth, line,
		    column);
	} else
		v = toml_new_value(doc, TOML_STRING, line, column);
	if (v == NULL)
		return toml_lex_fail(lx, "out of memory");
	if (value_body(lx, v, c) == -1)
		return -1;
	*ret = v;
	return 0;
}

int
toml_parse_keyval(struct toml_lexer *lx, struct toml_table *base,
    struct toml_key *key)
{
	struct toml_table *target;
	struct toml_value *v;

	if (toml_parse_key(lx, key) == -1)
		return -1;
	toml_lex_push_key(lx, key);
	if (toml_lex_peek(lx, 0) != '=')
		return toml_lex_unexpected(lx, "'=' after the key");
	lx->lx_p++;
	toml_lex_skip_ws(lx);
	if (toml_key_target(lx, base, key, &target) == -1 ||
	    toml_parse_value(lx, target->t_depth + 1, &v) == -1)
		return -1;
	if (toml_entry_add(lx->lx_doc, target, &key->k_parts[key->k_n - 1],
	    v) == -1)
		return toml_lex_fail(lx, "out of memory");
	return 0;
}
