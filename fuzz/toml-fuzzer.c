/*
 * toml-fuzzer.c: libFuzzer harness for the TOML parser (src/toml/). Any
 * input must either parse or fail with a "fuzz.toml:<line>: " message;
 * a parsed tree is walked completely and checked for what the API
 * promises (positions, key lookups agree with key walking, datetime
 * fields in range). A broken promise aborts, which libFuzzer reports.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "toml/toml.h"

static void	walk_value(const struct toml_value *, int);

static void
check(int ok)
{
	if (!ok)
		abort();
}

static void
walk_datetime(const struct toml_datetime *dt)
{
	check(dt->dt_text != NULL && dt->dt_text[0] != '\0');
	check(dt->dt_month >= 0 && dt->dt_month <= 12);
	check(dt->dt_day >= 0 && dt->dt_day <= 31);
	check(dt->dt_hour >= 0 && dt->dt_hour <= 23);
	check(dt->dt_minute >= 0 && dt->dt_minute <= 59);
	check(dt->dt_second >= 0 && dt->dt_second <= 60);
	check(dt->dt_nanosecond >= 0 && dt->dt_nanosecond <= 999999999);
	check(dt->dt_offset_min > -24 * 60 && dt->dt_offset_min < 24 * 60);
}

static void
walk_table(const struct toml_table *t, int depth)
{
	const struct toml_value *v;
	const char *key;
	size_t i, len;
	int line, column;

	check(depth <= TOML_MAX_DEPTH);
	check(toml_table_line(t) >= 1);
	for (i = 0; i < toml_table_len(t); i++) {
		key = toml_table_key_at(t, i, &len, &line, &column);
		v = toml_table_value_at(t, i);
		check(key != NULL && v != NULL && key[len] == '\0');
		check(line >= 1 && column >= 1);
		/* Keys are unique, so a lookup by name finds this value. */
		if (strlen(key) == len)
			check(toml_table_find(t, key) == v);
		walk_value(v, depth);
	}
	check(toml_table_key_at(t, i, NULL, NULL, NULL) == NULL);
}

static void
walk_value(const struct toml_value *v, int depth)
{
	const struct toml_array *a;
	const struct toml_table *t;
	struct toml_datetime dt;
	const char *s;
	size_t i, len;

	check(toml_value_line(v) >= 1 && toml_value_column(v) >= 1);
	check(toml_value_type(v) > 0 && toml_value_type(v) < TOML_TYPE_MAX);
	if (toml_value_string(v, &s, &len) == 0)
		check(s[len] == '\0');
	else if (toml_value_datetime(v, &dt) == 0) {
		check(dt.dt_kind == toml_value_type(v));
		walk_datetime(&dt);
	} else if (toml_value_array(v, &a) == 0) {
		check(depth + 1 <= TOML_MAX_DEPTH);
		for (i = 0; i < toml_array_len(a); i++)
			walk_value(toml_array_at(a, i), depth + 1);
	} else if (toml_value_table(v, &t) == 0)
		walk_table(t, depth + 1);
}

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct toml_doc *doc = NULL;
	struct bx_error err;

	if (toml_parse("fuzz.toml", (const char *)data, size, &doc,
	    &err) == -1) {
		check(doc == NULL);
		check(strncmp(err.msg, "fuzz.toml:", 10) == 0);
		return 0;
	}
	walk_table(toml_doc_root(doc), 0);
	toml_doc_free(doc);
	return 0;
}
