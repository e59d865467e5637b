/*
 * access.c: the read-only API decoders use on a parsed document: typed
 * lookups that tell absent from wrong type, key walking in document order,
 * positions, and conversions.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "toml/toml-internal.h"

const struct toml_table *
toml_doc_root(const struct toml_doc *doc)
{
	return doc->d_root->v_u.table;
}

const char *
toml_doc_name(const struct toml_doc *doc)
{
	return doc->d_name;
}

int
toml_fail_at(struct bx_error *err, const struct toml_doc *doc, int line,
    const char *fmt, ...)
{
	char msg[BX_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	return bx_fail(err, "%s:%d: %s", doc->d_name, line, msg);
}

const char *
toml_type_name(enum toml_type type)
{
	switch (type) {
	case TOML_STRING:
		return "string";
	case TOML_INTEGER:
		return "integer";
	case TOML_FLOAT:
		return "float";
	case TOML_BOOL:
		return "boolean";
	case TOML_OFFSET_DATETIME:
		return "offset datetime";
	case TOML_LOCAL_DATETIME:
		return "local datetime";
	case TOML_LOCAL_DATE:
		return "local date";
	case TOML_LOCAL_TIME:
		return "local time";
	case TOML_ARRAY:
		return "array";
	case TOML_TABLE:
		return "table";
	default:
		return "unknown type";
	}
}

int
toml_type_is_datetime(enum toml_type type)
{
	return type == TOML_OFFSET_DATETIME || type == TOML_LOCAL_DATETIME ||
	    type == TOML_LOCAL_DATE || type == TOML_LOCAL_TIME;
}

size_t
toml_table_len(const struct toml_table *t)
{
	return t->t_len;
}

int
toml_table_line(const struct toml_table *t)
{
	return t->t_line;
}

const char *
toml_table_key_at(const struct toml_table *t, size_t i, size_t *ret_len,
    int *ret_line, int *ret_column)
{
	const struct toml_entry *e;

	if (i >= t->t_len)
		return NULL;
	e = &t->t_entries[i];
	if (ret_len != NULL)
		*ret_len = e->e_keylen;
	if (ret_line != NULL)
		*ret_line = e->e_line;
	if (ret_column != NULL)
		*ret_column = e->e_column;
	return ret_len != NULL ? e->e_key : e->e_text;
}

const struct toml_value *
toml_table_value_at(const struct toml_table *t, size_t i)
{
	if (i >= t->t_len)
		return NULL;
	return t->t_entries[i].e_value;
}

const struct toml_value *
toml_table_find(const struct toml_table *t, const char *key)
{
	const struct toml_entry *e;

	if ((e = toml_entry_find(t, key, strlen(key))) == NULL)
		return NULL;
	return e->e_value;
}

enum toml_found
toml_table_get(const struct toml_table *t, const char *key,
    enum toml_type want, const struct toml_value **ret)
{
	const struct toml_value *v;

	if ((v = toml_table_find(t, key)) == NULL)
		return TOML_ABSENT;
	if (v->v_type != want)
		return TOML_WRONG_TYPE;
	*ret = v;
	return TOML_FOUND;
}

enum toml_found
toml_table_get_string(const struct toml_table *t, const char *key,
    const char **ret, size_t *ret_len)
{
	const struct toml_value *v;
	enum toml_found f;

	if ((f = toml_table_get(t, key, TOML_STRING, &v)) != TOML_FOUND)
		return f;
	toml_value_string(v, ret, ret_len);
	return TOML_FOUND;
}

enum toml_found
toml_table_get_integer(const struct toml_table *t, const char *key,
    int64_t *ret)
{
	const struct toml_value *v;
	enum toml_found f;

	if ((f = toml_table_get(t, key, TOML_INTEGER, &v)) != TOML_FOUND)
		return f;
	*ret = v->v_u.integer;
	return TOML_FOUND;
}

enum toml_found
toml_table_get_float(const struct toml_table *t, const char *key, double *ret)
{
	const struct toml_value *v;
	enum toml_found f;

	if ((f = toml_table_get(t, key, TOML_FLOAT, &v)) != TOML_FOUND)
		return f;
	*ret = v->v_u.fp;
	return TOML_FOUND;
}

enum toml_found
toml_table_get_bool(const struct toml_table *t, const char *key, int *ret)
{
	const struct toml_value *v;
	enum toml_found f;

	if ((f = toml_table_get(t, key, TOML_BOOL, &v)) != TOML_FOUND)
		return f;
	*ret = v->v_u.boolean;
	return TOML_FOUND;
}

enum toml_found
toml_table_get_datetime(const struct toml_table *t, const char *key,
    struct toml_datetime *ret)
{
	const struct toml_value *v;

	if ((v = toml_table_find(t, key)) == NULL)
		return TOML_ABSENT;
	if (toml_value_datetime(v, ret) == -1)
		return TOML_WRONG_TYPE;
	return TOML_FOUND;
}

enum toml_found
toml_table_get_array(const struct toml_table *t, const char *key,
    const struct toml_array **ret)
{
	const struct toml_value *v;
	enum toml_found f;

	if ((f = toml_table_get(t, key, TOML_ARRAY, &v)) != TOML_FOUND)
		return f;
	*ret = v->v_u.array;
	return TOML_FOUND;
}

enum toml_found
toml_table_get_table(const struct toml_table *t, const char *key,
    const struct toml_table **ret)
{
	const struct toml_value *v;
	enum toml_found f;

	if ((f = toml_table_get(t, key, TOML_TABLE, &v)) != TOML_FOUND)
		return f;
	*ret = v->v_u.table;
	return TOML_FOUND;
}

size_t
toml_array_len(const struct toml_array *a)
{
	return a->a_len;
}

const struct toml_value *
toml_array_at(const struct toml_array *a, size_t i)
{
	if (i >= a->a_len)
		return NULL;
	return a->a_items[i];
}

enum toml_type
toml_value_type(const struct toml_value *v)
{
	return v->v_type;
}

int
toml_value_line(const struct toml_value *v)
{
	return v->v_line;
}

int
toml_value_column(const struct toml_value *v)
{
	return v->v_column;
}

int
toml_value_string(const struct toml_value *v, const char **ret,
    size_t *ret_len)
{
	if (v->v_type != TOML_STRING)
		return -1;
	*ret = v->v_u.str.s;
	if (ret_len != NULL)
		*ret_len = v->v_u.str.len;
	return 0;
}

int
toml_value_integer(const struct toml_value *v, int64_t *ret)
{
	if (v->v_type != TOML_INTEGER)
		return -1;
	*ret = v->v_u.integer;
	return 0;
}

int
toml_value_float(const struct toml_value *v, double *ret)
{
	if (v->v_type != TOML_FLOAT)
		return -1;
	*ret = v->v_u.fp;
	return 0;
}

int
toml_value_bool(const struct toml_value *v, int *ret)
{
	if (v->v_type != TOML_BOOL)
		return -1;
	*ret = v->v_u.boolean;
	return 0;
}

int
toml_value_datetime(const struct toml_value *v, struct toml_datetime *ret)
{
	if (!toml_type_is_datetime(v->v_type))
		return -1;
	*ret = v->v_u.dt;
	return 0;
}

int
toml_value_array(const struct toml_value *v, const struct toml_array **ret)
{
	if (v->v_type != TOML_ARRAY)
		return -1;
	*ret = v->v_u.array;
	return 0;
}

int
toml_value_table(const struct toml_value *v, const struct toml_table **ret)
{
	if (v->v_type != TOML_TABLE)
		return -1;
	*ret = v->v_u.table;
	return 0;
}
