/*
 * keys.h: a configuration file's tables decoded by a table of typed keys,
 * the one strict reader brokerd.toml and loopd.toml share. Each daemon
 * keeps its own table of sections and keys; this walks the document, and
 * the first unknown table or key, wrong type or value out of range fails
 * with the file, the line and the key (`T.K`), so that a typo never
 * silently becomes a default.
 *
 * Values are written at offsets into the caller's struct: strings are
 * copied (the caller frees them), integers stored as int or int64_t. A key
 * the file leaves out is left as it was, so defaults are the caller's.
 * On failure what was written so far stays for the caller to free.
 */
#ifndef BX_TOML_KEYS_H
#define BX_TOML_KEYS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "toml/toml.h"

enum toml_key_type {
	TOML_KEY_TEXT,		/* 1 to tk_max bytes, no NUL: a char * */
	TOML_KEY_PATH,		/* an absolute path (proto/path.h) */
	TOML_KEY_SOCKET,	/* a path short enough for a Unix socket */
	TOML_KEY_PROGRAM,	/* a bare name (no /), or an absolute path */
	TOML_KEY_INT,		/* tk_min to tk_max, within an int: an int */
	TOML_KEY_INT64,		/* tk_min to tk_max: an int64_t */
	TOML_KEY_CUSTOM,	/* decoded by tk_decode */
};

/*
 * tk_decode gets the section's struct (the whole struct plus the section's
 * offset) and the value, and fails through toml_fail_at like the rest.
 */
typedef int	(*toml_key_decoder)(const struct toml_doc *,
		    const struct toml_value *, void *section,
		    struct bx_error *);

struct toml_key {
	const char		*tk_name;	/* NULL ends a table */
	enum toml_key_type	 tk_type;
	size_t			 tk_offset;	/* in the section's struct */
	int64_t			 tk_min;	/* INT, INT64 */
	int64_t			 tk_max;	/* INT, INT64; TEXT: bytes */
	bool			 tk_empty_unset; /* strings: "" sets nothing */
	toml_key_decoder	 tk_decode;	/* CUSTOM */
};

struct toml_section {
	const char		*ts_name;	/* NULL ends the list */
	const struct toml_key	*ts_keys;
	size_t			 ts_offset;	/* of its struct in the whole */
};

/*
 * Decodes every table of doc's root into dst: each must be one of
 * sections and each of its keys one of the section's.
 */
int	toml_keys_decode(const struct toml_doc *doc,
	    const struct toml_section *sections, void *dst,
	    struct bx_error *err);

#endif
