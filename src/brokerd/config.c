/*
 * config.c: brokerd.toml into struct config (design section 2). Strict:
 * the first unknown table or key, wrong type or bad value fails the load
 * with the file, line and key, so a typo never silently means a default.
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "brokerd/config.h"
#include "proto/readfile.h"
#include "toml/toml.h"

/* Where a string key of a table goes, and how it is checked. */
struct key {
	const char	*k_name;
	size_t		 k_offset;	/* of its char * in struct config */
	bool		 k_socket;
};

#define KEY(name, member, sock) \
	{ name, offsetof(struct config, member), sock }

static const struct key path_keys[] = {
	KEY("home", c_home, false),
	KEY("grants", c_grants, false),
	{ NULL, 0, false },
};
static const struct key socket_keys[] = {
	KEY("broker", c_broker_socket, true),
	KEY("admin", c_admin_socket, true),
	{ NULL, 0, false },
};

static char **
slot(struct config *c, const struct key *k)
{
	return (char **)(void *)((char *)c + k->k_offset);
}

void
config_free(struct config *c)
{
	if (c == NULL)
		return;
	free(c->c_home);
	free(c->c_grants);
	free(c->c_broker_socket);
	free(c->c_admin_socket);
	config_runner_clear(&c->c_runner);
	free(c);
}

/* A path value: absolute, well formed, short enough for a socket. */
static int
check_path(const char *s, size_t len, bool socket, struct bx_error *err)
{
	if (args_path_check(s, len, err) == -1)
		return -1;
	if (socket && len > CONFIG_SOCKET_PATH_MAX)
		return bx_fail(err, "a socket path is at most %d bytes",
		    CONFIG_SOCKET_PATH_MAX);
	return 0;
}

static int
decode_strings(const struct toml_doc *doc, const char *table,
    const struct toml_table *t, const struct key *keys, struct config *c,
    struct bx_error *err)
{
	const struct toml_value *v;
	const struct key *k;
	struct bx_error why;
	const char *name, *s;
	size_t i, len;
	int line;

	for (i = 0; (name = toml_table_key_at(t, i, NULL, &line, NULL)); i++) {
		for (k = keys; k->k_name != NULL; k++)
			if (strcmp(name, k->k_name) == 0)
				break;
		if (k->k_name == NULL)
			return toml_fail_at(err, doc, line, "unknown key "
			    "\"%s.%s\"", table, name);
		v = toml_table_value_at(t, i);
		if (toml_value_string(v, &s, &len) == -1)
			return toml_fail_at(err, doc, toml_value_line(v),
			    "%s.%s must be a string", table, name);
		if (check_path(s, len, k->k_socket, &why) == -1)
			return toml_fail_at(err, doc, toml_value_line(v),
			    "%s.%s: %s", table, name, why.msg);
		if ((*slot(c, k) = strdup(s)) == NULL)
			return bx_fail(err, "out of memory");
	}
	return 0;
}

static int
decode_approvals(const struct toml_doc *doc, const struct toml_table *t,
    struct config *c, struct bx_error *err)
{
	const struct toml_value *v;
	const char *name;
	int64_t ms;
	size_t i;
	int line;

	for (i = 0; (name = toml_table_key_at(t, i, NULL, &line, NULL)); i++) {
		if (strcmp(name, "ttl_ms") != 0)
			return toml_fail_at(err, doc, line, "unknown key "
			    "\"approvals.%s\"", name);
		v = toml_table_value_at(t, i);
		if (toml_value_integer(v, &ms) == -1)
			return toml_fail_at(err, doc, toml_value_line(v),
			    "approvals.ttl_ms must be an integer");
		if (ms < 1 || ms > CONFIG_MAX_TTL_MS)
			return toml_fail_at(err, doc, toml_value_line(v),
			    "approvals.ttl_ms must be 1 to %lld",
			    (long long)CONFIG_MAX_TTL_MS);
		c->c_ttl_ms = ms;
	}
	return 0;
}

static int
decode_root(const struct toml_doc *doc, struct config *c,
    struct bx_error *err)
{
	const struct toml_table *root = toml_doc_root(doc), *t;
	const char *name;
	size_t i;
	int line, rc;

	for (i = 0; (name = toml_table_key_at(root, i, NULL, &line, NULL));
	    i++) {
		if (strcmp(name, "paths") != 0 && strcmp(name, "sockets") != 0 &&
		    strcmp(name, "approvals") != 0 &&
		    strcmp(name, "runner") != 0 && strcmp(name, "egress") != 0)
			return toml_fail_at(err, doc, line, "unknown table or "
			    "key \"%s\"", name);
		if (toml_value_table(toml_table_value_at(root, i), &t) == -1)
			return toml_fail_at(err, doc, line, "\"%s\" must be a "
			    "table", name);
		if (strcmp(name, "paths") == 0)
			rc = decode_strings(doc, name, t, path_keys, c, err);
		else if (strcmp(name, "sockets") == 0)
			rc = decode_strings(doc, name, t, socket_keys, c, err);
		else if (strcmp(name, "runner") == 0)
			rc = config_runner_decode(doc, t, &c->c_runner, err);
		else if (strcmp(name, "egress") == 0)
			rc = config_egress_decode(doc, t, &c->c_runner, err);
		else
			rc = decode_approvals(doc, t, c, err);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/* Sets *slot to home + rest unless the file gave it. */
static int
default_under(char **slot, const char *home, const char *rest,
    const char *key, bool socket, struct bx_error *err)
{
	if (*slot != NULL)
		return 0;
	if (asprintf(slot, "%s%s", strcmp(home, "/") == 0 ? "" : home,
	    rest) == -1) {
		*slot = NULL;
		return bx_fail(err, "out of memory");
	}
	if (check_path(*slot, strlen(*slot), socket, err) == -1)
		return bx_error_prefix(err, "%s (by default %s)", key, *slot);
	return 0;
}

static int
apply_defaults(const char *name, struct config *c, const char *env_home,
    struct bx_error *err)
{
	if (c->c_home == NULL && env_home != NULL && env_home[0] != '\0') {
		if (check_path(env_home, strlen(env_home), false, err) == -1)
			return bx_error_prefix(err, "BOXMAKER_HOME");
		if ((c->c_home = strdup(env_home)) == NULL)
			return bx_fail(err, "out of memory");
	}
	if (c->c_home == NULL &&
	    (c->c_home = strdup(CONFIG_DEFAULT_HOME)) == NULL)
		return bx_fail(err, "out of memory");
	if (c->c_ttl_ms == 0)
		c->c_ttl_ms = CONFIG_DEFAULT_TTL_MS;
	if (default_under(&c->c_grants, c->c_home, "/grants", "paths.grants",
	    false, err) == -1 ||
	    default_under(&c->c_broker_socket, c->c_home,
	    "/run/loop-broker/broker.sock", "sockets.broker", true, err) == -1 ||
	    default_under(&c->c_admin_socket, c->c_home,
	    "/run/owner-broker/admin.sock", "sockets.admin", true, err) == -1)
		return bx_error_prefix(err, "%s", name);
	return 0;
}

int
config_parse(const char *name, const char *buf, size_t len,
    const char *env_home, struct config **ret, struct bx_error *err)
{
	struct toml_doc *doc = NULL;
	struct config *c;
	int rc = -1;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "out of memory");
	config_runner_defaults(&c->c_runner);
	if (toml_parse(name, buf, len, &doc, err) == -1 ||
	    decode_root(doc, c, err) == -1 ||
	    apply_defaults(name, c, env_home, err) == -1)
		goto out;
	*ret = c;
	c = NULL;
	rc = 0;
out:
	toml_doc_free(doc);
	config_free(c);
	return rc;
}

int
config_load(const char *path, struct config **ret, struct bx_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (bx_readfile(path, CONFIG_FILE_MAX, &buf, &len, NULL, err) == -1)
		return -1;
	rc = config_parse(path, buf, len, getenv("BOXMAKER_HOME"), ret, err);
	free(buf);
	return rc;
}
