/*
 * config.c: loopd.toml. Strict like brokerd.toml: the first unknown table
 * or key, wrong type or bad value fails with file, line and key, so that a
 * typo never silently becomes a default.
 */

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopd/config.h"
#include "proto/readfile.h"
#include "toml/toml.h"

enum key_type {
	KEY_PATH,
	KEY_SOCKET,
	KEY_TEXT,
	KEY_INT
};

/* One key of one table, where it goes and its bounds. */
struct key {
	const char	*k_table;
	const char	*k_name;
	enum key_type	 k_type;
	size_t		 k_offset;
	int64_t		 k_min, k_max;	/* KEY_INT */
};

#define STR(t, n, type, m) { t, n, type, offsetof(struct loop_config, m), 0, 0 }
#define INT(t, n, m, lo, hi) \
	{ t, n, KEY_INT, offsetof(struct loop_config, m), lo, hi }

static const struct key keys[] = {
	STR("paths", "home", KEY_PATH, lc_home),
	STR("sockets", "loop", KEY_SOCKET, lc_loop_socket),
	STR("model", "url", KEY_TEXT, lc_model_url),
	STR("model", "model", KEY_TEXT, lc_model),
	STR("model", "api_key_file", KEY_PATH, lc_api_key_file),
	INT("model", "timeout_s", lc_timeout_s, 1, LOOP_CONFIG_MAX_TIMEOUT_S),
	STR("broker", "socket", KEY_SOCKET, lc_broker_socket),
	INT("turn", "max_steps", lc_max_steps, 1, LOOP_CONFIG_MAX_STEPS),
	{ NULL, NULL, KEY_TEXT, 0, 0, 0 },
};

static const char *const tables[] = {
	"paths", "sockets", "model", "broker", "turn", NULL
};

void
loop_config_free(struct loop_config *c)
{
	if (c == NULL)
		return;
	free(c->lc_home);
	free(c->lc_loop_socket);
	free(c->lc_model_url);
	free(c->lc_model);
	free(c->lc_api_key_file);
	free(c->lc_broker_socket);
	free(c);
}

static int
check_path(const char *s, size_t len, bool socket, struct bx_error *err)
{
	if (len == 0 || s[0] != '/')
		return bx_fail(err, "must be an absolute path");
	if (strlen(s) != len)
		return bx_fail(err, "must not contain NUL");
	if (len > (socket ? LOOP_CONFIG_SOCKET_PATH_MAX : LOOP_CONFIG_PATH_MAX))
		return bx_fail(err, "must be at most %d bytes",
		    socket ? LOOP_CONFIG_SOCKET_PATH_MAX : LOOP_CONFIG_PATH_MAX);
	return 0;
}

static int
decode_string(const struct toml_doc *doc, const struct key *k,
    const struct toml_value *v, struct loop_config *c, struct bx_error *err)
{
	struct bx_error why;
	const char *s;
	size_t len;
	char **slot = (char **)(void *)((char *)c + k->k_offset);

	if (toml_value_string(v, &s, &len) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be a string", k->k_table, k->k_name);
	if (k->k_type == KEY_TEXT && (len == 0 || strlen(s) != len ||
	    len > LOOP_CONFIG_NAME_MAX * 8))
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be a non-empty string without NUL", k->k_table,
		    k->k_name);
	if (k->k_type != KEY_TEXT && check_path(s, len,
	    k->k_type == KEY_SOCKET, &why) == -1)
		return toml_fail_at(err, doc, toml_value_line(v), "%s.%s %s",
		    k->k_table, k->k_name, why.msg);
	if ((*slot = strdup(s)) == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

static int
decode_int(const struct toml_doc *doc, const struct key *k,
    const struct toml_value *v, struct loop_config *c, struct bx_error *err)
{
	int *slot = (int *)(void *)((char *)c + k->k_offset);
	int64_t n;

	if (toml_value_integer(v, &n) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be an integer", k->k_table, k->k_name);
	if (n < k->k_min || n > k->k_max)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be %lld to %lld", k->k_table, k->k_name,
		    (long long)k->k_min, (long long)k->k_max);
	*slot = (int)n;
	return 0;
}

static int
decode_table(const struct toml_doc *doc, const char *table,
    const struct toml_table *t, struct loop_config *c, struct bx_error *err)
{
	const struct key *k;
	const char *name;
	size_t i;
	int line;

	for (i = 0; (name = toml_table_key_at(t, i, NULL, &line, NULL)); i++) {
		for (k = keys; k->k_table != NULL; k++)
			if (strcmp(k->k_table, table) == 0 &&
			    strcmp(k->k_name, name) == 0)
				break;
		if (k->k_table == NULL)
			return toml_fail_at(err, doc, line, "unknown key "
			    "\"%s.%s\"", table, name);
		if ((k->k_type == KEY_INT ? decode_int : decode_string)(doc, k,
		    toml_table_value_at(t, i), c, err) == -1)
			return -1;
	}
	return 0;
}

static int
decode_root(const struct toml_doc *doc, struct loop_config *c,
    struct bx_error *err)
{
	const struct toml_table *root = toml_doc_root(doc), *t;
	const char *const *known;
	const char *name;
	size_t i;
	int line;

	for (i = 0; (name = toml_table_key_at(root, i, NULL, &line, NULL));
	    i++) {
		for (known = tables; *known != NULL; known++)
			if (strcmp(*known, name) == 0)
				break;
		if (*known == NULL)
			return toml_fail_at(err, doc, line, "unknown table or "
			    "key \"%s\"", name);
		if (toml_value_table(toml_table_value_at(root, i), &t) == -1)
			return toml_fail_at(err, doc, line, "\"%s\" must be a "
			    "table", name);
		if (decode_table(doc, name, t, c, err) == -1)
			return -1;
		if (strcmp(name, "broker") == 0 && c->lc_broker_socket == NULL)
			return toml_fail_at(err, doc, line, "[broker] needs "
			    "socket (brokerd's broker.sock); remove the table "
			    "to run without tools");
	}
	return 0;
}

static int
apply_defaults(const char *name, struct loop_config *c, const char *env_home,
    struct bx_error *err)
{
	const char *home = env_home != NULL && env_home[0] != '\0' ?
	    env_home : LOOP_CONFIG_DEFAULT_HOME;

	if (c->lc_model_url == NULL)
		return bx_fail(err, "%s: [model] url is required (llama-server's "
		    "base URL, e.g. \"http://127.0.0.1:8080\")", name);
	if (c->lc_home == NULL) {
		if (check_path(home, strlen(home), false, err) == -1)
			return bx_error_prefix(err, "BOXMAKER_HOME");
		if ((c->lc_home = strdup(home)) == NULL)
			return bx_fail(err, "out of memory");
	}
	if (c->lc_loop_socket == NULL) {
		if (asprintf(&c->lc_loop_socket, "%s/run/owner-loop/loop.sock",
		    strcmp(c->lc_home, "/") == 0 ? "" : c->lc_home) == -1) {
			c->lc_loop_socket = NULL;
			return bx_fail(err, "out of memory");
		}
		if (check_path(c->lc_loop_socket, strlen(c->lc_loop_socket),
		    true, err) == -1)
			return bx_error_prefix(err, "%s: sockets.loop (by "
			    "default %s)", name, c->lc_loop_socket);
	}
	if (c->lc_model == NULL &&
	    (c->lc_model = strdup(LOOP_CONFIG_DEFAULT_MODEL)) == NULL)
		return bx_fail(err, "out of memory");
	if (c->lc_timeout_s == 0)
		c->lc_timeout_s = LOOP_CONFIG_DEFAULT_TIMEOUT_S;
	if (c->lc_max_steps == 0)
		c->lc_max_steps = LOOP_CONFIG_DEFAULT_MAX_STEPS;
	return 0;
}

int
loop_config_parse(const char *name, const char *buf, size_t len,
    const char *env_home, struct loop_config **ret, struct bx_error *err)
{
	struct toml_doc *doc = NULL;
	struct loop_config *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "out of memory");
	if (toml_parse(name, buf, len, &doc, err) == -1 ||
	    decode_root(doc, c, err) == -1 ||
	    apply_defaults(name, c, env_home, err) == -1) {
		toml_doc_free(doc);
		loop_config_free(c);
		return -1;
	}
	toml_doc_free(doc);
	*ret = c;
	return 0;
}

int
loop_config_load(const char *path, struct loop_config **ret,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	size_t len;
	char *buf;
	int r;

	if (bx_readfile(path, LOOP_CONFIG_FILE_MAX, &buf, &len, &why, err) ==
	    -1) {
		/* Says what the path is, so the owner can act. */
		if (why == BX_READFILE_DIRECTORY)
			bx_fail(err, "%s is a directory, not loopd.toml", path);
		return -1;
	}
	r = loop_config_parse(path, buf, len, getenv("BOXMAKER_HOME"), ret,
	    err);
	free(buf);
	return r;
}
