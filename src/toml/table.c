/*
 * table.c: TOML's rules against defining anything twice. A [header]
 * defines its table once (tables its path implies may be defined later,
 * once); [[header]] appends to an array of tables it made; dotted keys
 * only extend tables that dotted keys made or that headers only implied;
 * inline tables and static arrays are closed once written.
 */
#include "toml/grammar.h"

static const char *
origin_name(enum toml_origin origin)
{
	switch (origin) {
	case TOML_ORIGIN_HEADER:
		return "by a [table] header";
	case TOML_ORIGIN_IMPLICIT:
		return "implicitly by a [table] header";
	case TOML_ORIGIN_DOTTED:
		return "by dotted keys";
	case TOML_ORIGIN_INLINE:
		return "as an inline table";
	default:
		return "as the root table";
	}
}

int
toml_check_depth(struct toml_lexer *lx, int depth)
{
	if (depth > TOML_MAX_DEPTH)
		return toml_lex_fail(lx, "tables and arrays nest deeper than "
		    "the limit of %d (TOML_MAX_DEPTH)", TOML_MAX_DEPTH);
	return 0;
}

/* "key \"x\" is already an integer (line 3)" */
static int
already(struct toml_lexer *lx, const struct toml_keypart *part,
    const struct toml_entry *e, const char *why)
{
	const struct toml_value *v = e->e_value;
	char name[TOML_CONTEXT_MAX];

	toml_escape(name, sizeof(name), part->k_s, part->k_len);
	if (v->v_type == TOML_TABLE)
		return toml_lex_fail_line(lx, part->k_line, "\"%s\" is already "
		    "defined %s on line %d%s", name,
		    origin_name(v->v_u.table->t_origin), v->v_u.table->t_line,
		    why);
	if (v->v_type == TOML_ARRAY && v->v_u.array->a_of_tables)
		return toml_lex_fail_line(lx, part->k_line, "\"%s\" is already "
		    "defined as an array of tables on line %d%s", name,
		    e->e_line, why);
	return toml_lex_fail_line(lx, part->k_line, "\"%s\" is already "
	    "defined as %s %s on line %d%s", name,
	    v->v_type == TOML_INTEGER || v->v_type == TOML_ARRAY ? "an" : "a",
	    toml_type_name(v->v_type), e->e_line, why);
}

static int
new_table(struct toml_lexer *lx, struct toml_table *parent,
    const struct toml_keypart *part, enum toml_origin origin,
    struct toml_table **ret)
{
	struct toml_value *v;

	if (toml_check_depth(lx, parent->t_depth + 1) == -1)
		return -1;
	v = toml_new_table(lx->lx_doc, origin, parent->t_depth + 1,
	    part->k_line, part->k_column);
	if (v == NULL || toml_entry_add(lx->lx_doc, parent, part, v) == -1)
		return toml_lex_fail(lx, "out of memory");
	*ret = v->v_u.table;
	return 0;
}

/* A table an array of tables appends to: its last element. */
static struct toml_table *
last_element(const struct toml_array *a)
{
	return a->a_items[a->a_len - 1]->v_u.table;
}

/* One step of a header's path: into (or creating) the table part names. */
static int
header_step(struct toml_lexer *lx, struct toml_table *t,
    const struct toml_keypart *part, struct toml_table **ret)
{
	struct toml_entry *e;
	struct toml_value *v;

	if ((e = toml_entry_find(t, part->k_s, part->k_len)) == NULL)
		return new_table(lx, t, part, TOML_ORIGIN_IMPLICIT, ret);
	v = e->e_value;
	if (v->v_type == TOML_ARRAY && v->v_u.array->a_of_tables) {
		*ret = last_element(v->v_u.array);
		return 0;
	}
	if (v->v_type != TOML_TABLE)
		return already(lx, part, e, ", not a table");
	if (v->v_u.table->t_origin == TOML_ORIGIN_INLINE)
		return already(lx, part, e, "; inline tables cannot be "
		    "extended");
	*ret = v->v_u.table;
	return 0;
}

/* The last part of [key]: a new table, or one only implied so far. */
static int
header_table(struct toml_lexer *lx, struct toml_table *t,
    const struct toml_keypart *part, struct toml_table **ret)
{
	struct toml_entry *e;
	struct toml_table *table;

	if ((e = toml_entry_find(t, part->k_s, part->k_len)) == NULL)
		return new_table(lx, t, part, TOML_ORIGIN_HEADER, ret);
	if (e->e_value->v_type != TOML_TABLE ||
	    e->e_value->v_u.table->t_origin != TOML_ORIGIN_IMPLICIT)
		return already(lx, part, e, "");
	/* Its definition is here; the key keeps its first appearance. */
	table = e->e_value->v_u.table;
	table->t_origin = TOML_ORIGIN_HEADER;
	table->t_line = e->e_value->v_line = part->k_line;
	e->e_value->v_column = part->k_column;
	*ret = table;
	return 0;
}

/* The last part of [[key]]: a new element of a new or existing array. */
static int
header_array(struct toml_lexer *lx, struct toml_table *t,
    const struct toml_keypart *part, struct toml_table **ret)
{
	struct toml_doc *doc = lx->lx_doc;
	struct toml_entry *e;
	struct toml_value *av, *tv;
	struct toml_array *a;

	if ((e = toml_entry_find(t, part->k_s, part->k_len)) != NULL) {
		av = e->e_value;
		if (av->v_type != TOML_ARRAY || !av->v_u.array->a_of_tables)
			return already(lx, part, e, "");
	} else {
		if (toml_check_depth(lx, t->t_depth + 1) == -1)
			return -1;
		av = toml_new_array(doc, t->t_depth + 1, part->k_line,
		    part->k_column);
		if (av == NULL || toml_entry_add(doc, t, part, av) == -1)
			return toml_lex_fail(lx, "out of memory");
		av->v_u.array->a_of_tables = 1;
	}
	a = av->v_u.array;
	if (toml_check_depth(lx, a->a_depth + 1) == -1)
		return -1;
	tv = toml_new_table(doc, TOML_ORIGIN_HEADER, a->a_depth + 1,
	    part->k_line, part->k_column);
	if (tv == NULL || toml_array_push(doc, a, tv) == -1)
		return toml_lex_fail(lx, "out of memory");
	*ret = tv->v_u.table;
	return 0;
}

int
toml_define_header(struct toml_lexer *lx, struct toml_table *root,
    const struct toml_key *key, int array, struct toml_table **ret)
{
	const struct toml_keypart *last = &key->k_parts[key->k_n - 1];
	struct toml_table *t = root;
	int i;

	for (i = 0; i < key->k_n - 1; i++)
		if (header_step(lx, t, &key->k_parts[i], &t) == -1)
			return -1;
	if (array)
		return header_array(lx, t, last, ret);
	return header_table(lx, t, last, ret);
}

/*
 * One step of a dotted key: into tables dotted keys made, or ones a
 * header only implied, which this defines (so no [header] may follow).
 */
static int
dotted_step(struct toml_lexer *lx, struct toml_table *t,
    const struct toml_keypart *part, struct toml_table **ret)
{
	struct toml_entry *e;
	struct toml_value *v;
	struct toml_table *table;

	if ((e = toml_entry_find(t, part->k_s, part->k_len)) == NULL)
		return new_table(lx, t, part, TOML_ORIGIN_DOTTED, ret);
	v = e->e_value;
	if (v->v_type != TOML_TABLE)
		return already(lx, part, e, ", not a table");
	table = v->v_u.table;
	if (table->t_origin == TOML_ORIGIN_IMPLICIT) {
		table->t_origin = TOML_ORIGIN_DOTTED;
		table->t_line = v->v_line = part->k_line;
		v->v_column = part->k_column;
	}
	if (table->t_origin != TOML_ORIGIN_DOTTED)
		return already(lx, part, e, "; dotted keys cannot extend it");
	*ret = table;
	return 0;
}

int
toml_key_target(struct toml_lexer *lx, struct toml_table *base,
    const struct toml_key *key, struct toml_table **ret)
{
	const struct toml_keypart *last = &key->k_parts[key->k_n - 1];
	struct toml_table *t = base;
	struct toml_entry *e;
	int i;

	for (i = 0; i < key->k_n - 1; i++)
		if (dotted_step(lx, t, &key->k_parts[i], &t) == -1)
			return -1;
	if ((e = toml_entry_find(t, last->k_s, last->k_len)) != NULL)
		return already(lx, last, e, "");
	*ret = t;
	return 0;
}
