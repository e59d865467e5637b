/*
 * arena.c: the document's memory. Nodes are carved from large chunks and
 * all freed together, which keeps every error path of the parser free of
 * cleanup code.
 */
#include <stdlib.h>
#include <string.h>

#include "toml/toml-internal.h"

/*
 * The first chunk is small, since most documents are (a grant file needs
 * about 2 KiB); each next one is twice the last, up to TOML_CHUNK_SIZE.
 * Starting at 64 KiB made every small parse malloc and free a block big
 * enough to send glibc's free() into consolidating its heap.
 */
#define TOML_CHUNK_FIRST	(4 * 1024)
/* Chunks grow to this size; larger requests get a chunk of their own. */
#define TOML_CHUNK_SIZE		(64 * 1024)
#define TOML_ALIGN	(_Alignof(max_align_t))

struct toml_chunk {
	struct toml_chunk	*c_next;
	size_t			 c_used;
	size_t			 c_size;
	max_align_t		 c_data[];
};

/* size bytes, aligned, not cleared. */
static void *
alloc_raw(struct toml_doc *doc, size_t size)
{
	struct toml_chunk *c = doc->d_chunks;
	size_t want, csize;
	void *p;

	if (size > SIZE_MAX / 2)
		return NULL;
	want = (size + TOML_ALIGN - 1) & ~(TOML_ALIGN - 1);
	if (c == NULL || c->c_size - c->c_used < want) {
		csize = c == NULL ? TOML_CHUNK_FIRST : c->c_size * 2;
		if (csize > TOML_CHUNK_SIZE)
			csize = TOML_CHUNK_SIZE;
		if (csize < want)
			csize = want;
		if ((c = malloc(sizeof(*c) + csize)) == NULL)
			return NULL;
		c->c_used = 0;
		c->c_size = csize;
		c->c_next = doc->d_chunks;
		doc->d_chunks = c;
	}
	p = (char *)c->c_data + c->c_used;
	c->c_used += want;
	return p;
}

void *
toml_alloc(struct toml_doc *doc, size_t size)
{
	void *p;

	if ((p = alloc_raw(doc, size)) != NULL)
		memset(p, 0, size);
	return p;
}

char *
toml_strndup(struct toml_doc *doc, const char *s, size_t len)
{
	char *p;

	/* Every byte is written below: clearing them first is wasted. */
	if ((p = alloc_raw(doc, len + 1)) == NULL)
		return NULL;
	if (len > 0)
		memcpy(p, s, len);
	p[len] = '\0';
	return p;
}

/*
 * The arena holds the document's strings, a secret file's value among
 * them: what was handed out is overwritten before it goes back (one pass
 * over bytes the parse already wrote; docs/decisions.md, "The TOML
 * parser wipes what it held").
 */
void
toml_arena_free(struct toml_doc *doc)
{
	struct toml_chunk *c, *next;

	for (c = doc->d_chunks; c != NULL; c = next) {
		next = c->c_next;
		explicit_bzero(c->c_data, c->c_used);
		free(c);
	}
	doc->d_chunks = NULL;
}
