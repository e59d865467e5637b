/*
 * keys.c: decoding configuration tables by typed keys (keys.h).
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "proto/path.h"
#include "toml/keys.h"

static void *
member(void *section, const struct toml_key *k)
{
	return (char *)section + k->tk_offset;
}

/* A string key: its form, then a copy in its member. */
static int
decode_string(const struct toml_doc *doc, const char *table,
    const struct toml_key *k, const struct toml_value *v, void *section,
    struct bx_error *err)
{
	char **slot = member(section, k);
	struct bx_error why;
	const char *s;
	size_t len;
	int rc = 0;

	if (toml_value_string(v, &s, &len) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be a string", table, k->tk_name);
	if (len == 0 && k->tk_empty_unset)
		return 0;
	/* A program named with a / is a path, never one relative to the cwd. */
	if (k->tk_type == TOML_KEY_PATH || (k->tk_type == TOML_KEY_PROGRAM &&
	    memchr(s, '/', len) != NULL))
		rc = bx_path_check(s, len, &why);
	else if (k->tk_type == TOML_KEY_SOCKET)
		rc = bx_socket_path_check(s, len, &why);
	else if (len == 0 || (int64_t)len > k->tk_max || strlen(s) != len)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be 1 to %lld bytes without NUL", table,
		    k->tk_name, (long long)k->tk_max);
	if (rc == -1)
		return toml_fail_at(err, doc, toml_value_line(v), "%s.%s: %s",
		    table, k->tk_name, why.msg);
	free(*slot);
	if ((*slot = strdup(s)) == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

static int
decode_integer(const struct toml_doc *doc, const char *table,
    const struct toml_key *k, const struct toml_value *v, void *section,
    struct bx_error *err)
{
	int64_t n;

	if (toml_value_integer(v, &n) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be an integer", table, k->tk_name);
	if (n < k->tk_min || n > k->tk_max)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be %lld to %lld", table, k->tk_name,
		    (long long)k->tk_min, (long long)k->tk_max);
	if (k->tk_type == TOML_KEY_INT)
		*(int *)member(section, k) = (int)n;
	else
		*(int64_t *)member(section, k) = n;
	return 0;
}

static int
decode_table(const struct toml_doc *doc, const struct toml_section *sec,
    const struct toml_table *t, void *section, struct bx_error *err)
{
	const struct toml_value *v;
	const struct toml_key *k;
	const char *name;
	size_t i;
	int line, rc;

	for (i = 0; (name = toml_table_key_at(t, i, NULL, &line, NULL)); i++) {
		for (k = sec->ts_keys; k->tk_name != NULL; k++)
			if (strcmp(name, k->tk_name) == 0)
				break;
		if (k->tk_name == NULL)
			return toml_fail_at(err, doc, line, "unknown key "
			    "\"%s.%s\"", sec->ts_name, name);
		v = toml_table_value_at(t, i);
		if (k->tk_type == TOML_KEY_CUSTOM)
			rc = k->tk_decode(doc, v, section, err);
		else if (k->tk_type == TOML_KEY_INT ||
		    k->tk_type == TOML_KEY_INT64)
			rc = decode_integer(doc, sec->ts_name, k, v, section,
			    err);
		else
			rc = decode_string(doc, sec->ts_name, k, v, section,
			    err);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/*
 * An INT key is stored through an int, so a range wider than an int would
 * cut a value that passed it. A table like that is the program's mistake,
 * caught on every load, whether the key is present or not.
 */
static int
check_ranges(const struct toml_section *sections, struct bx_error *err)
{
	const struct toml_section *sec;
	const struct toml_key *k;

	for (sec = sections; sec->ts_name != NULL; sec++)
		for (k = sec->ts_keys; k->tk_name != NULL; k++)
			if (k->tk_type == TOML_KEY_INT &&
			    (k->tk_min < INT_MIN || k->tk_max > INT_MAX ||
			    k->tk_min > k->tk_max))
				return bx_fail(err, "%s.%s: the range %lld to "
				    "%lld is not an int's", sec->ts_name,
				    k->tk_name, (long long)k->tk_min,
				    (long long)k->tk_max);
	return 0;
}

int
toml_keys_decode(const struct toml_doc *doc,
    const struct toml_section *sections, void *dst, struct bx_error *err)
{
	const struct toml_table *root = toml_doc_root(doc), *t;
	const struct toml_section *sec;
	const char *name;
	size_t i;
	int line;

	if (check_ranges(sections, err) == -1)
		return -1;
	for (i = 0; (name = toml_table_key_at(root, i, NULL, &line, NULL));
	    i++) {
		for (sec = sections; sec->ts_name != NULL; sec++)
			if (strcmp(name, sec->ts_name) == 0)
				break;
		if (sec->ts_name == NULL)
			return toml_fail_at(err, doc, line, "unknown table or "
			    "key \"%s\"", name);
		if (toml_value_table(toml_table_value_at(root, i), &t) == -1)
			return toml_fail_at(err, doc, line, "\"%s\" must be a "
			    "table", name);
		if (decode_table(doc, sec, t, (char *)dst + sec->ts_offset,
		    err) == -1)
			return -1;
	}
	return 0;
}
