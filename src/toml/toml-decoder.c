/*
 * toml-decoder.c: the toml-test decoder interface for libboxtoml. Reads a
 * TOML document on stdin; prints it as toml-test's tagged JSON on stdout
 * and exits 0, or prints the parse error on stderr and exits 1.
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "toml/toml.h"

static json_t	*value_json(const struct toml_value *);

/* Reads all of stdin, stopping one byte past the parser's limit. */
static char *
read_stdin(size_t *ret_len)
{
	size_t cap = TOML_MAX_DOCUMENT + 1, len = 0;
	ssize_t n;
	char *buf;

	if ((buf = malloc(cap)) == NULL)
		return NULL;
	while (len < cap) {
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			free(buf);
			return NULL;
		}
		if (n == 0)
			break;
		len += (size_t)n;
	}
	*ret_len = len;
	return buf;
}

static json_t *
tagged(const char *type, const char *value)
{
	json_t *o = json_object();

	if (o == NULL)
		return NULL;
	json_object_set_new(o, "type", json_string(type));
	json_object_set_new(o, "value", json_string(value));
	return o;
}

static json_t *
float_json(double d)
{
	char buf[64];

	if (isnan(d))
		return tagged("float", "nan");
	if (isinf(d))
		return tagged("float", d < 0 ? "-inf" : "inf");
	snprintf(buf, sizeof(buf), "%.17g", d);
	return tagged("float", buf);
}

static json_t *
datetime_json(const struct toml_datetime *dt)
{
	char date[16] = "", time[32] = "", offset[8] = "", buf[64];
	int off = dt->dt_offset_min < 0 ? -dt->dt_offset_min : dt->dt_offset_min;

	if (dt->dt_kind != TOML_LOCAL_TIME)
		snprintf(date, sizeof(date), "%04d-%02d-%02d", dt->dt_year,
		    dt->dt_month, dt->dt_day);
	if (dt->dt_kind != TOML_LOCAL_DATE)
		snprintf(time, sizeof(time), "%s%02d:%02d:%02d.%09d",
		    dt->dt_kind == TOML_LOCAL_TIME ? "" : "T", dt->dt_hour,
		    dt->dt_minute, dt->dt_second, dt->dt_nanosecond);
	if (dt->dt_kind == TOML_OFFSET_DATETIME)
		snprintf(offset, sizeof(offset), "%c%02d:%02d",
		    dt->dt_offset_min < 0 ? '-' : '+', off / 60, off % 60);
	snprintf(buf, sizeof(buf), "%s%s%s", date, time, offset);
	switch (dt->dt_kind) {
	case TOML_OFFSET_DATETIME:
		return tagged("datetime", buf);
	case TOML_LOCAL_DATETIME:
		return tagged("datetime-local", buf);
	case TOML_LOCAL_DATE:
		return tagged("date-local", buf);
	default:
		return tagged("time-local", buf);
	}
}

static json_t *
array_json(const struct toml_array *a)
{
	json_t *arr, *item;
	size_t i;

	if ((arr = json_array()) == NULL)
		return NULL;
	for (i = 0; i < toml_array_len(a); i++) {
		item = value_json(toml_array_at(a, i));
		if (json_array_append_new(arr, item) == -1) {
			json_decref(arr);
			return NULL;
		}
	}
	return arr;
}

static json_t *
table_json(const struct toml_table *t)
{
	json_t *obj, *item;
	const char *key;
	size_t i, len;

	if ((obj = json_object()) == NULL)
		return NULL;
	for (i = 0; i < toml_table_len(t); i++) {
		key = toml_table_key_at(t, i, &len, NULL, NULL);
		item = value_json(toml_table_value_at(t, i));
		if (json_object_setn_new(obj, key, len, item) == -1) {
			json_decref(obj);
			return NULL;
		}
	}
	return obj;
}

static json_t *
value_json(const struct toml_value *v)
{
	const struct toml_array *a;
	const struct toml_table *t;
	struct toml_datetime dt;
	const char *s;
	char buf[32];
	int64_t i;
	size_t len;
	double d;
	int b;

	if (toml_value_string(v, &s, &len) == 0) {
		json_t *o = tagged("string", "");

		if (o != NULL && json_object_set_new(o, "value",
		    json_stringn(s, len)) == -1) {
			json_decref(o);
			return NULL;
		}
		return o;
	}
	if (toml_value_integer(v, &i) == 0) {
		snprintf(buf, sizeof(buf), "%" PRId64, i);
		return tagged("integer", buf);
	}
	if (toml_value_float(v, &d) == 0)
		return float_json(d);
	if (toml_value_bool(v, &b) == 0)
		return tagged("bool", b ? "true" : "false");
	if (toml_value_datetime(v, &dt) == 0)
		return datetime_json(&dt);
	if (toml_value_array(v, &a) == 0)
		return array_json(a);
	if (toml_value_table(v, &t) == 0)
		return table_json(t);
	return NULL;
}

int
main(void)
{
	struct toml_doc *doc;
	struct bx_error err;
	json_t *out;
	size_t len;
	char *buf;
	int rc;

	if ((buf = read_stdin(&len)) == NULL) {
		fprintf(stderr, "toml-decoder: reading stdin: %s\n",
		    strerror(errno));
		return 1;
	}
	rc = toml_parse("<stdin>", buf, len, &doc, &err);
	free(buf);
	if (rc == -1) {
		fprintf(stderr, "toml-decoder: %s\n", err.msg);
		return 1;
	}
	out = table_json(toml_doc_root(doc));
	toml_doc_free(doc);
	if (out == NULL || json_dumpf(out, stdout, JSON_INDENT(2)) == -1) {
		fprintf(stderr, "toml-decoder: cannot write the JSON\n");
		json_decref(out);
		return 1;
	}
	json_decref(out);
	putchar('\n');
	return 0;
}
