/*
 * parse.h: the grammar's entry point, called by toml_parse() (doc.c) with
 * a fresh document whose root table is empty.
 */
#ifndef TOML_PARSE_H
#define TOML_PARSE_H

#include <stddef.h>

#include "proto/error.h"
#include "toml/toml-internal.h"

/* Fills doc's root table from buf; -1 and err on the first error. */
int	toml_parse_document(struct toml_doc *doc, const char *buf, size_t len,
	    struct bx_error *err);

#endif
