/*
 * key.c: keys: bare (A-Za-z0-9_-), basic-quoted and literal-quoted parts,
 * joined by dots with optional whitespace around them.
 */
#include "toml/grammar.h"

static int
is_bare_char(int c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static int
key_part(struct toml_lexer *lx, struct toml_keypart *part)
{
	const char *start = lx->lx_p;
	int c = toml_lex_peek(lx, 0);

	part->k_line = lx->lx_line;
	part->k_column = toml_lex_column(lx);
	if (c == '"' || c == '\'')
		return toml_parse_string(lx, 0, &part->k_s, &part->k_len);
	while (is_bare_char(toml_lex_peek(lx, 0)))
		lx->lx_p++;
	if (lx->lx_p == start)
		return toml_lex_unexpected(lx, "a key");
	part->k_len = (size_t)(lx->lx_p - start);
	if ((part->k_s = toml_strndup(lx->lx_doc, start, part->k_len)) == NULL)
		return toml_lex_fail(lx, "out of memory");
	return 0;
}

int
toml_parse_key(struct toml_lexer *lx, struct toml_key *key)
{
	key->k_n = 0;
	for (;;) {
		if (key->k_n == TOML_KEY_MAX_PARTS)
			return toml_lex_fail(lx, "key has more than %d dotted "
			    "parts, nesting deeper than the limit of %d "
			    "(TOML_MAX_DEPTH)", TOML_KEY_MAX_PARTS,
			    TOML_MAX_DEPTH);
		if (key_part(lx, &key->k_parts[key->k_n]) == -1)
			return -1;
		key->k_n++;
		toml_lex_skip_ws(lx);
		if (toml_lex_peek(lx, 0) != '.')
			return 0;
		lx->lx_p++;
		toml_lex_skip_ws(lx);
	}
}
