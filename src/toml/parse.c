/*
 * parse.c: the document grammar. Not written yet: only empty documents
 * parse; anything else is refused, so no decoder can trust a partial parse.
 */
#include "toml/parse.h"

int
toml_parse_document(struct toml_doc *doc, const char *buf, size_t len,
    struct bx_error *err)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (buf[i] != ' ' && buf[i] != '\t' && buf[i] != '\n')
			return bx_fail(err, "%s:1: the TOML parser is not "
			    "complete yet", doc->d_name);
	return 0;
}
