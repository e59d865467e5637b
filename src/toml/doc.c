/*
 * doc.c: the entry points toml_parse() and toml_doc_free(): the document
 * limits, the byte-order mark and the whole-document UTF-8 check, before
 * the grammar (parse.c) sees a byte.
 */
#include <stdlib.h>
#include <string.h>

#include "toml/toml-internal.h"
#include "toml/parse.h"

void
toml_doc_free(struct toml_doc *doc)
{
	if (doc == NULL)
		return;
	toml_arena_free(doc);
	free(doc);
}

/* Counts the lines before offset, for "not UTF-8" messages. */
static int
line_of(const char *buf, size_t offset)
{
	int line = 1;
	size_t i;

	for (i = 0; i < offset; i++)
		if (buf[i] == '\n')
			line++;
	return line;
}

int
toml_parse(const char *name, const char *buf, size_t len,
    struct toml_doc **ret, struct bx_error *err)
{
	struct toml_doc *doc;
	size_t bad;

	if (buf == NULL && len == 0)
		buf = "";
	if (len > TOML_MAX_DOCUMENT)
		return bx_fail(err, "%s: document is %zu bytes, more than the "
		    "limit of %d (TOML_MAX_DOCUMENT)", name, len,
		    TOML_MAX_DOCUMENT);
	if (toml_utf8_validate(buf, len, &bad) == -1)
		return bx_fail(err, "%s:%d: invalid UTF-8 (byte 0x%02x at "
		    "offset %zu)", name, line_of(buf, bad),
		    (unsigned char)buf[bad], bad);
	/* A UTF-8 byte-order mark may start the document, and only there. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0) {
		buf += 3;
		len -= 3;
	}
	if ((doc = calloc(1, sizeof(*doc))) == NULL)
		return bx_fail(err, "%s: out of memory", name);
	if ((doc->d_name = toml_strndup(doc, name, strlen(name))) == NULL ||
	    (doc->d_root = toml_new_table(doc, TOML_ORIGIN_ROOT, 0, 1,
	    1)) == NULL) {
		toml_doc_free(doc);
		return bx_fail(err, "%s: out of memory", name);
	}
	if (toml_parse_document(doc, buf, len, err) == -1) {
		toml_doc_free(doc);
		return -1;
	}
	*ret = doc;
	return 0;
}
