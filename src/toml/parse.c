/*
 * parse.c: the document: a sequence of lines, each blank, a comment, a
 * [table] or [[array of tables]] header, or a key/value, each ending at a
 * newline or the end of the document.
 */
#include "toml/grammar.h"
#include "toml/parse.h"

/* [key] or [[key]], the cursor at the first '['. */
static int
header(struct toml_lexer *lx, struct toml_table *root,
    struct toml_key *key, struct toml_table **current)
{
	int array = toml_lex_looking_at(lx, "[[");

	lx->lx_p += array ? 2 : 1;
	toml_lex_context(lx, array ? "array of tables" : "table", NULL);
	toml_lex_skip_ws(lx);
	if (toml_parse_key(lx, key) == -1)
		return -1;
	toml_lex_push_key(lx, key);
	if (!toml_lex_looking_at(lx, array ? "]]" : "]"))
		return toml_lex_unexpected(lx, array ? "']]' to close the "
		    "header" : "']' to close the header");
	lx->lx_p += array ? 2 : 1;
	if (toml_define_header(lx, root, key, array, current) == -1)
		return -1;
	return toml_lex_end_of_line(lx, array ? "an [[array of tables]] "
	    "header" : "a [table] header");
}

static int
line(struct toml_lexer *lx, struct toml_table *root,
    struct toml_table **current)
{
	struct toml_key key;
	int rc, c;

	toml_lex_context(lx, "key", NULL);
	if ((rc = toml_lex_line_ends(lx)) != 0)
		return rc == 1 ? 0 : -1;
	c = toml_lex_peek(lx, 0);
	if (c == '[')
		rc = header(lx, root, &key, current);
	else {
		rc = toml_parse_keyval(lx, *current, &key);
		if (rc == 0)
			rc = toml_lex_end_of_line(lx, "a key/value pair");
	}
	/* The context borrows key, which goes out of scope here. */
	toml_lex_context(lx, "key", NULL);
	return rc;
}

int
toml_parse_document(struct toml_doc *doc, const char *buf, size_t len,
    struct bx_error *err)
{
	struct toml_table *root = doc->d_root->v_u.table, *current = root;
	struct toml_lexer lx;
	int rc = 0;

	toml_lex_init(&lx, doc, buf, len, err);
	while (!toml_lex_eof(&lx))
		if ((rc = line(&lx, root, &current)) == -1)
			break;
	toml_lex_done(&lx);
	return rc;
}
