/*
 * toml.h: the project's strict TOML 1.0.0 parser, made for strict decoders.
 *
 * toml_parse() reads a whole document from a buffer and either returns a
 * tree or fails with "<name>:<line>: <message naming the key>" in a
 * struct bx_error. A decoder then looks keys up with the type it expects
 * (absent and wrong type are distinct results), walks every key of a table
 * in document order to refuse unknown ones, and reports problems with the
 * line (and column) that every key and value carries.
 *
 * Ownership: toml_parse() allocates the document; the caller frees it with
 * toml_doc_free(). Every table, array, value and string reached from the
 * document belongs to it and stays valid until toml_doc_free(); callers
 * never free them. All pointers returned here are read-only views.
 * toml_doc_free() overwrites every byte the document held (its strings,
 * keys and nodes) before freeing it, and the parser overwrites its own
 * scratch, so a secret file's value is not left behind in freed memory;
 * the caller's buffer and error message are the caller's to overwrite.
 */
#ifndef TOML_TOML_H
#define TOML_TOML_H

#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"

/* Larger documents are refused before parsing. */
#define TOML_MAX_DOCUMENT	(1024 * 1024)
/*
 * Tables and arrays nest at most this deep below the root table, however
 * they are written (headers, dotted keys, inline tables, arrays).
 */
#define TOML_MAX_DEPTH		64

struct toml_doc;
struct toml_table;
struct toml_array;
struct toml_value;

enum toml_type {
	TOML_STRING = 1,
	TOML_INTEGER,
	TOML_FLOAT,
	TOML_BOOL,
	TOML_OFFSET_DATETIME,	/* 1979-05-27T07:32:00Z, ...-07:00 */
	TOML_LOCAL_DATETIME,	/* 1979-05-27T07:32:00 */
	TOML_LOCAL_DATE,	/* 1979-05-27 */
	TOML_LOCAL_TIME,	/* 07:32:00 */
	TOML_ARRAY,
	TOML_TABLE,
	TOML_TYPE_MAX
};

/* The result of a typed lookup. */
enum toml_found {
	TOML_FOUND = 0,
	TOML_ABSENT,		/* no such key in the table */
	TOML_WRONG_TYPE		/* the key exists with another type */
};

/*
 * A datetime as written. The kind says which of the four TOML forms it
 * was; fields a kind does not have are 0. `text` is the original source
 * text (doc-owned), e.g. for "expires must be a quoted string, not a bare
 * datetime: quote it". Fractions finer than a nanosecond are truncated in
 * `nanosecond` but kept in `text`.
 */
struct toml_datetime {
	enum toml_type	 dt_kind;	/* one of the four datetime types */
	int		 dt_year;	/* 0-9999 */
	int		 dt_month;	/* 1-12 */
	int		 dt_day;	/* 1-31, checked against the month */
	int		 dt_hour;	/* 0-23 */
	int		 dt_minute;	/* 0-59 */
	int		 dt_second;	/* 0-60 (a leap second is allowed) */
	int		 dt_nanosecond;	/* 0-999999999 */
	int		 dt_offset_min;	/* offset from UTC in minutes; Z is 0 */
	const char	*dt_text;	/* original text, NUL-terminated */
};

/*
 * Parses len bytes of buf (need not be NUL-terminated; must be UTF-8, an
 * optional BOM is skipped; buf may be NULL when len is 0). name (not NULL)
 * is used in error messages, usually the file's path. On success *ret is
 * the new document and 0 is returned; on failure -1 and err holds
 * "<name>:<line>: <message>", and *ret is untouched.
 */
int	toml_parse(const char *name, const char *buf, size_t len,
	    struct toml_doc **ret, struct bx_error *err);
/* Frees the document and everything in it. NULL is allowed. */
void	toml_doc_free(struct toml_doc *doc);

const struct toml_table	*toml_doc_root(const struct toml_doc *doc);
/* The name given to toml_parse(), for messages. */
const char	*toml_doc_name(const struct toml_doc *doc);

/*
 * Fills err with "<doc name>:<line>: <message>" and returns -1, so a
 * decoder can write
 *	return toml_fail_at(err, doc, toml_value_line(v),
 *	    "field \"mode\" must be a string");
 */
int	toml_fail_at(struct bx_error *err, const struct toml_doc *doc,
	    int line, const char *fmt, ...)
	    __attribute__((format(printf, 4, 5)));

/* "string", "integer", ..., "offset datetime", "table": for messages. */
const char	*toml_type_name(enum toml_type type);
/* True for the four datetime types. */
int	toml_type_is_datetime(enum toml_type type);

/*
 * Tables. Keys are compared byte for byte after unescaping; a key may
 * contain NUL (from "\u0000"), which lookups by C string never match.
 */
size_t	toml_table_len(const struct toml_table *t);
/*
 * Line where the table was first opened (its header, the dotted key that
 * made it, or its inline '{'); 1 for the root table.
 */
int	toml_table_line(const struct toml_table *t);

/*
 * The i-th key in document order (0 <= i < toml_table_len()). Returns the
 * key (NUL-terminated; *ret_len, if not NULL, gets its length) or NULL
 * when i is out of range. The line and column of the key's first
 * appearance go to ret_line and ret_column when they are not NULL.
 *
 * A caller that passes NULL for ret_len reads the key as a C string and
 * could not see a NUL in it, so for a key holding one it gets the key with
 * each NUL written as the six characters \u0000: "paths\u0000x" then never
 * compares equal to "paths", and a message naming it shows the NUL.
 */
const char	*toml_table_key_at(const struct toml_table *t, size_t i,
		    size_t *ret_len, int *ret_line, int *ret_column);
/* The value of the i-th key, or NULL when i is out of range. */
const struct toml_value	*toml_table_value_at(const struct toml_table *t,
			    size_t i);

/* Any value under key, or NULL when absent. */
const struct toml_value	*toml_table_find(const struct toml_table *t,
			    const char *key);
/*
 * The value under key if it has type want. *ret is written only when
 * TOML_FOUND is returned.
 */
enum toml_found	toml_table_get(const struct toml_table *t, const char *key,
		    enum toml_type want, const struct toml_value **ret);

/*
 * Typed shortcuts for toml_table_get(); out-parameters are written only
 * when TOML_FOUND is returned. A string may contain NUL ("\u0000"): when
 * ret_len is not NULL it gets the full length, and a decoder that needs a
 * C string should refuse a string whose strlen() differs from it.
 */
enum toml_found	toml_table_get_string(const struct toml_table *t,
		    const char *key, const char **ret, size_t *ret_len);
enum toml_found	toml_table_get_integer(const struct toml_table *t,
		    const char *key, int64_t *ret);
enum toml_found	toml_table_get_float(const struct toml_table *t,
		    const char *key, double *ret);
enum toml_found	toml_table_get_bool(const struct toml_table *t,
		    const char *key, int *ret);
/* Any of the four datetime kinds; ret->dt_kind says which. */
enum toml_found	toml_table_get_datetime(const struct toml_table *t,
		    const char *key, struct toml_datetime *ret);
enum toml_found	toml_table_get_array(const struct toml_table *t,
		    const char *key, const struct toml_array **ret);
enum toml_found	toml_table_get_table(const struct toml_table *t,
		    const char *key, const struct toml_table **ret);

/* Arrays (static arrays and arrays of tables alike). */
size_t	toml_array_len(const struct toml_array *a);
/* The i-th element, or NULL when i is out of range. */
const struct toml_value	*toml_array_at(const struct toml_array *a, size_t i);

/* Values. Line and column (1-based, column in bytes) of the value's start. */
enum toml_type	toml_value_type(const struct toml_value *v);
int	toml_value_line(const struct toml_value *v);
int	toml_value_column(const struct toml_value *v);

/*
 * Conversions: 0 and *ret written when the value has that type, else -1
 * and *ret untouched (no bx_error: the caller words the message).
 */
int	toml_value_string(const struct toml_value *v, const char **ret,
	    size_t *ret_len);
int	toml_value_integer(const struct toml_value *v, int64_t *ret);
int	toml_value_float(const struct toml_value *v, double *ret);
int	toml_value_bool(const struct toml_value *v, int *ret);
int	toml_value_datetime(const struct toml_value *v,
	    struct toml_datetime *ret);
int	toml_value_array(const struct toml_value *v,
	    const struct toml_array **ret);
int	toml_value_table(const struct toml_value *v,
	    const struct toml_table **ret);

#endif
