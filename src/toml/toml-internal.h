/*
 * toml-internal.h: the parser's private types, shared by the files of
 * src/toml/ and by nothing else.
 *
 * Every node of a document (values, tables, arrays, strings, key text and
 * the tables' lookup indexes) is carved from the document's arena, so a
 * parse that fails part way frees everything with one toml_doc_free().
 * Growing vectors leave their old copy in the arena; the waste is bounded
 * by the final size, and the document itself by TOML_MAX_DOCUMENT.
 */
#ifndef TOML_INTERNAL_H
#define TOML_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "toml/toml.h"

/* How a table came to exist; decides which later definitions are allowed. */
enum toml_origin {
	TOML_ORIGIN_ROOT = 1,
	TOML_ORIGIN_IMPLICIT,	/* a prefix of a [header]; [it] may follow once */
	TOML_ORIGIN_HEADER,	/* [it] or an element of [[it]] */
	TOML_ORIGIN_DOTTED,	/* a prefix of a dotted key */
	TOML_ORIGIN_INLINE	/* { ... }: sealed once the brace closes */
};

struct toml_entry {
	char			*e_key;		/* NUL-terminated, may hold NUL */
	size_t			 e_keylen;
	char			*e_text;	/* e_key, each NUL as \u0000 */
	int			 e_line;
	int			 e_column;
	struct toml_value	*e_value;
};

struct toml_table {
	struct toml_entry	*t_entries;	/* document order */
	size_t			 t_len;
	size_t			 t_cap;
	uint32_t		*t_index;	/* open addressing, entry + 1 */
	size_t			 t_index_cap;	/* 0 or a power of two */
	enum toml_origin	 t_origin;
	int			 t_sealed;	/* inside a closed inline table */
	int			 t_depth;	/* root is 0 */
	int			 t_line;
};

struct toml_array {
	struct toml_value	**a_items;
	size_t			 a_len;
	size_t			 a_cap;
	int			 a_of_tables;	/* made by [[header]] */
	int			 a_depth;
};

struct toml_value {
	enum toml_type	 v_type;
	int		 v_line;
	int		 v_column;
	union {
		struct {
			char	*s;	/* NUL-terminated, may hold NUL */
			size_t	 len;
		}			 str;
		int64_t			 integer;
		double			 fp;
		int			 boolean;
		struct toml_datetime	 dt;
		struct toml_array	*array;
		struct toml_table	*table;
	} v_u;
};

/*
 * A dotted key as parsed: its parts (arena strings) with their positions.
 * A key of more parts would nest deeper than TOML_MAX_DEPTH anyway.
 */
#define TOML_KEY_MAX_PARTS	(TOML_MAX_DEPTH + 1)

struct toml_keypart {
	char		*k_s;		/* NUL-terminated, may hold NUL */
	size_t		 k_len;
	int		 k_line;
	int		 k_column;
};

struct toml_key {
	struct toml_keypart	 k_parts[TOML_KEY_MAX_PARTS];
	int			 k_n;
};

struct toml_chunk;

struct toml_doc {
	char			*d_name;	/* arena */
	struct toml_value	*d_root;	/* a TOML_TABLE value */
	struct toml_chunk	*d_chunks;	/* the arena */
};

/* arena.c: allocation from the document; NULL only when out of memory. */
void		*toml_alloc(struct toml_doc *doc, size_t size);
char		*toml_strndup(struct toml_doc *doc, const char *s, size_t len);
void		 toml_arena_free(struct toml_doc *doc);

/* utf8.c: -1 and the offset of the first invalid byte, or 0. */
int	toml_utf8_validate(const char *buf, size_t len, size_t *bad_offset);
/* True for Unicode scalar values (no surrogates, at most U+10FFFF). */
int	toml_is_scalar(unsigned long cp);
/* Writes scalar cp as UTF-8 to out; returns the length, 1 to 4. */
size_t	toml_utf8_encode(unsigned long cp, char out[4]);

/* node.c: building the tree. Each returns NULL only when out of memory. */
struct toml_value	*toml_new_value(struct toml_doc *doc, enum toml_type type,
			    int line, int column);
/* A TOML_TABLE value holding a new, empty table. */
struct toml_value	*toml_new_table(struct toml_doc *doc,
			    enum toml_origin origin, int depth, int line,
			    int column);
/* A TOML_ARRAY value holding a new, empty array. */
struct toml_value	*toml_new_array(struct toml_doc *doc, int depth, int line,
			    int column);
/* The entry for key, or NULL. */
struct toml_entry	*toml_entry_find(const struct toml_table *t,
			    const char *key, size_t keylen);
/*
 * Appends part -> value; the caller has checked that the key is absent.
 * The table keeps the part's string, which must live in doc's arena.
 * Returns 0, or -1 when out of memory.
 */
int	toml_entry_add(struct toml_doc *doc, struct toml_table *t,
	    const struct toml_keypart *part, struct toml_value *value);
int	toml_array_push(struct toml_doc *doc, struct toml_array *a,
	    struct toml_value *value);

#endif
