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

int
toml_parse(const char *name, const char *buf, size_t len,
    struct toml_doc **ret, struct bx_error *err)
{
	struct toml_doc *doc;

	if (len > TOML_MAX_DOCUMENT)
		return bx_fail(err, "%s: document is %zu bytes, more than the "
		    "limit of %d (TOML_MAX_DOCUMENT)", name, len,
		    TOML_MAX_DOCUMENT);
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
