/*
 * node.c: building the document tree: new values, tables and arrays, and
 * the per-table key index that keeps lookups fast in tables with many keys
 * (a 1 MiB document may hold a hundred thousand of them).
 */
#include <string.h>

#include "toml/toml-internal.h"

/* Below this many keys a table is searched linearly and has no index. */
#define TOML_INDEX_MIN	8

struct toml_value *
toml_new_value(struct toml_doc *doc, enum toml_type type, int line, int column)
{
	struct toml_value *v;

	if ((v = toml_alloc(doc, sizeof(*v))) == NULL)
		return NULL;
	v->v_type = type;
	v->v_line = line;
	v->v_column = column;
	return v;
}

struct toml_value *
toml_new_table(struct toml_doc *doc, enum toml_origin origin, int depth,
    int line, int column)
{
	struct toml_value *v;
	struct toml_table *t;

	if ((v = toml_new_value(doc, TOML_TABLE, line, column)) == NULL)
		return NULL;
	if ((t = toml_alloc(doc, sizeof(*t))) == NULL)
		return NULL;
	t->t_origin = origin;
	t->t_depth = depth;
	t->t_line = line;
	v->v_u.table = t;
	return v;
}

struct toml_value *
toml_new_array(struct toml_doc *doc, int depth, int line, int column)
{
	struct toml_value *v;
	struct toml_array *a;

	if ((v = toml_new_value(doc, TOML_ARRAY, line, column)) == NULL)
		return NULL;
	if ((a = toml_alloc(doc, sizeof(*a))) == NULL)
		return NULL;
	a->a_depth = depth;
	v->v_u.array = a;
	return v;
}

/* FNV-1a: keys are short and the index only needs a fair spread. */
static uint32_t
key_hash(const char *key, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++) {
		h ^= (unsigned char)key[i];
		h *= 16777619u;
	}
	return h;
}

static int
key_equal(const struct toml_entry *e, const char *key, size_t len)
{
	return e->e_keylen == len && memcmp(e->e_key, key, len) == 0;
}

static void
index_put(uint32_t *index, size_t cap, const struct toml_entry *e,
    uint32_t slot_value)
{
	size_t i = key_hash(e->e_key, e->e_keylen) & (cap - 1);

	while (index[i] != 0)
		i = (i + 1) & (cap - 1);
	index[i] = slot_value;
}

static int
index_rebuild(struct toml_doc *doc, struct toml_table *t, size_t cap)
{
	uint32_t *index;
	size_t i;

	if ((index = toml_alloc(doc, cap * sizeof(*index))) == NULL)
		return -1;
	for (i = 0; i < t->t_len; i++)
		index_put(index, cap, &t->t_entries[i], (uint32_t)(i + 1));
	t->t_index = index;
	t->t_index_cap = cap;
	return 0;
}

struct toml_entry *
toml_entry_find(const struct toml_table *t, const char *key, size_t keylen)
{
	size_t i;
	uint32_t slot;

	if (t->t_index == NULL) {
		for (i = 0; i < t->t_len; i++)
			if (key_equal(&t->t_entries[i], key, keylen))
				return &t->t_entries[i];
		return NULL;
	}
	i = key_hash(key, keylen) & (t->t_index_cap - 1);
	while ((slot = t->t_index[i]) != 0) {
		if (key_equal(&t->t_entries[slot - 1], key, keylen))
			return &t->t_entries[slot - 1];
		i = (i + 1) & (t->t_index_cap - 1);
	}
	return NULL;
}

static int
grow(struct toml_doc *doc, void **items, size_t *cap, size_t len, size_t size)
{
	size_t ncap = *cap == 0 ? 4 : *cap * 2;
	void *n;

	if ((n = toml_alloc(doc, ncap * size)) == NULL)
		return -1;
	if (len > 0)
		memcpy(n, *items, len * size);
	*items = n;
	*cap = ncap;
	return 0;
}

/*
 * The key as a C string for callers that walk keys without their length:
 * the key itself, or, when it holds a NUL, a copy with each NUL written as
 * \u0000, so that "paths\u0000x" can never compare equal to "paths".
 */
static char *
key_text(struct toml_doc *doc, const struct toml_keypart *part)
{
	static const char nul[] = "\\u0000";
	size_t i, n = 0;
	char *s;

	if (memchr(part->k_s, '\0', part->k_len) == NULL)
		return part->k_s;
	if ((s = toml_alloc(doc, part->k_len * (sizeof(nul) - 1) + 1)) == NULL)
		return NULL;
	for (i = 0; i < part->k_len; i++) {
		if (part->k_s[i] == '\0') {
			memcpy(s + n, nul, sizeof(nul) - 1);
			n += sizeof(nul) - 1;
		} else
			s[n++] = part->k_s[i];
	}
	s[n] = '\0';
	return s;
}

int
toml_entry_add(struct toml_doc *doc, struct toml_table *t,
    const struct toml_keypart *part, struct toml_value *value)
{
	struct toml_entry *e;
	void *items = t->t_entries;
	char *text;

	if (t->t_len == t->t_cap) {
		if (grow(doc, &items, &t->t_cap, t->t_len, sizeof(*e)) == -1)
			return -1;
		t->t_entries = items;
	}
	if ((text = key_text(doc, part)) == NULL)
		return -1;
	e = &t->t_entries[t->t_len];
	e->e_key = part->k_s;
	e->e_keylen = part->k_len;
	e->e_text = text;
	e->e_line = part->k_line;
	e->e_column = part->k_column;
	e->e_value = value;
	t->t_len++;
	if (t->t_len < TOML_INDEX_MIN)
		return 0;
	/* Keep the index at most half full. */
	if (t->t_index == NULL || t->t_len * 2 > t->t_index_cap)
		return index_rebuild(doc, t, t->t_index_cap == 0 ?
		    TOML_INDEX_MIN * 4 : t->t_index_cap * 2);
	index_put(t->t_index, t->t_index_cap, e, (uint32_t)t->t_len);
	return 0;
}

int
toml_array_push(struct toml_doc *doc, struct toml_array *a,
    struct toml_value *value)
{
	void *items = a->a_items;

	if (a->a_len == a->a_cap) {
		if (grow(doc, &items, &a->a_cap, a->a_len,
		    sizeof(*a->a_items)) == -1)
			return -1;
		a->a_items = items;
	}
	a->a_items[a->a_len++] = value;
	return 0;
}
