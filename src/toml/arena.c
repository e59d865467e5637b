/*
 * arena.c: the document's memory. Nodes are carved from large chunks and
 * all freed together, which keeps every error path of the parser free of
 * cleanup code.
 */
#include <stdlib.h>
#include <string.h>

#include "toml/toml-internal.h"

/* Chunks are at least this big; larger requests get a chunk of their own. */
#define TOML_CHUNK_SIZE	(64 * 1024)
#define TOML_ALIGN	(_Alignof(max_align_t))

struct toml_chunk {
	struct toml_chunk	*c_next;
	size_t			 c_used;
	size_t			 c_size;
	max_align_t		 c_data[];
};

void *
toml_alloc(struct toml_doc *doc, size_t size)
{
	struct toml_chunk *c = doc->d_chunks;
	size_t want, csize;
	void *p;

	if (size > SIZE_MAX / 2)
		return NULL;
	want = (size + TOML_ALIGN - 1) & ~(TOML_ALIGN - 1);
	if (c == NULL || c->c_size - c->c_used < want) {
		csize = want > TOML_CHUNK_SIZE ? want : TOML_CHUNK_SIZE;
		if ((c = malloc(sizeof(*c) + csize)) == NULL)
			return NULL;
		c->c_used = 0;
		c->c_size = csize;
		c->c_next = doc->d_chunks;
		doc->d_chunks = c;
	}
	p = (char *)c->c_data + c->c_used;
	c->c_used += want;
	memset(p, 0, want);
	return p;
}

char *
toml_strndup(struct toml_doc *doc, const char *s, size_t len)
{
	char *p;

	if ((p = toml_alloc(doc, len + 1)) == NULL)
		return NULL;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

void
toml_arena_free(struct toml_doc *doc)
{
	struct toml_chunk *c, *next;

	for (c = doc->d_chunks; c != NULL; c = next) {
		next = c->c_next;
		free(c);
	}
	doc->d_chunks = NULL;
}
