/*
 * config.c: brokerd.toml into struct config (design section 2). Strict:
 * the first unknown table or key, wrong type or bad value fails the load
 * with the file, line and key, so a typo never silently means a default.
 */

#include <stddef.h>
#include <stdio.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/config.h"
#include "proto/defaults.h"
#include "proto/path.h"
#include "proto/readfile.h"
#include "toml/keys.h"

#define KEY(n, type, m) \
	{ n, type, offsetof(struct config, m), 0, 0, false, NULL }

static const struct toml_key path_keys[] = {
	KEY("home", TOML_KEY_PATH, c_home),
	KEY("grants", TOML_KEY_PATH, c_grants),
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

static const struct toml_key socket_keys[] = {
	KEY("broker", TOML_KEY_SOCKET, c_broker_socket),
	KEY("admin", TOML_KEY_SOCKET, c_admin_socket),
	KEY("bridge", TOML_KEY_SOCKET, c_bridge_socket),
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

static const struct toml_key approval_keys[] = {
	{ "ttl_ms", TOML_KEY_INT64, offsetof(struct config, c_ttl_ms), 1,
	    CONFIG_MAX_TTL_MS, false, NULL },
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

static const struct toml_section sections[] = {
	{ "paths", path_keys, 0 },
	{ "sockets", socket_keys, 0 },
	{ "approvals", approval_keys, 0 },
	{ "runner", config_runner_keys, offsetof(struct config, c_runner) },
	{ "egress", config_egress_keys, offsetof(struct config, c_runner) },
	{ NULL, NULL, 0 },
};

/*
 * The directory of the file at path, its real path when it has one (so
 * that a relative --config still names it after a change of directory).
 */
static char *
dir_of(const char *path)
{
	char *copy, *real;

	if ((copy = strdup(path)) == NULL)
		return NULL;
	if ((real = realpath(dirname(copy), NULL)) == NULL)
		real = strdup(dirname(copy));
	free(copy);
	return real;
}

void
config_free(struct config *c)
{
	if (c == NULL)
		return;
	free(c->c_path);
	free(c->c_dir);
	free(c->c_home);
	free(c->c_grants);
	free(c->c_broker_socket);
	free(c->c_admin_socket);
	free(c->c_bridge_socket);
	config_runner_clear(&c->c_runner);
	free(c);
}

/* Sets *slot to home + rest unless the file gave it. */
static int
default_under(char **slot, const char *home, const char *rest,
    const char *key, int (*check)(const char *, size_t, struct bx_error *),
    struct bx_error *err)
{
	if (*slot != NULL)
		return 0;
	if (asprintf(slot, "%s%s", strcmp(home, "/") == 0 ? "" : home,
	    rest) == -1) {
		*slot = NULL;
		return bx_fail(err, "out of memory");
	}
	if (check(*slot, strlen(*slot), err) == -1)
		return bx_error_prefix(err, "%s (by default %s)", key, *slot);
	return 0;
}

static int
apply_defaults(const char *name, struct config *c, const char *default_home,
    struct bx_error *err)
{
	if (bx_defaults_fill_home(&c->c_home, default_home, err) == -1)
		return bx_error_prefix(err, "%s: [paths] home is not set",
		    name);
	if (c->c_ttl_ms == 0)
		c->c_ttl_ms = CONFIG_DEFAULT_TTL_MS;
	if (default_under(&c->c_grants, c->c_home, "/" BX_HOME_GRANTS,
	    "paths.grants", bx_path_check, err) == -1 ||
	    default_under(&c->c_broker_socket, c->c_home,
	    "/" BX_HOME_BROKER_SOCKET, "sockets.broker",
	    bx_socket_path_check, err) == -1 ||
	    default_under(&c->c_admin_socket, c->c_home,
	    "/" BX_HOME_ADMIN_SOCKET, "sockets.admin",
	    bx_socket_path_check, err) == -1 ||
	    default_under(&c->c_bridge_socket, c->c_home,
	    "/" BX_HOME_BRIDGE_SOCKET, "sockets.bridge",
	    bx_socket_path_check, err) == -1)
		return bx_error_prefix(err, "%s", name);
	return 0;
}

int
config_parse(const char *name, const char *buf, size_t len,
    const char *default_home, struct config **ret, struct bx_error *err)
{
	struct toml_doc *doc = NULL;
	struct config *c;
	int rc = -1;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "out of memory");
	config_runner_defaults(&c->c_runner);
	if (toml_parse(name, buf, len, &doc, err) == -1 ||
	    toml_keys_decode(doc, sections, c, err) == -1 ||
	    apply_defaults(name, c, default_home, err) == -1)
		goto out;
	*ret = c;
	c = NULL;
	rc = 0;
out:
	toml_doc_free(doc);
	config_free(c);
	return rc;
}

/* A missing default file is the owner's first run: say what makes one. */
static int
load_default(struct config **ret, struct bx_error *err)
{
	char path[BX_PATH_MAX + 1];

	if (bx_defaults_config_file("brokerd", path, err) == -1)
		return -1;
	return config_load(path, ret, err);
}

int
config_load(const char *path, struct config **ret, struct bx_error *err)
{
	struct config *c = NULL;
	char *buf = NULL;
	size_t len = 0;
	int rc;

	if (path == NULL)
		return load_default(ret, err);
	if (bx_readfile(path, CONFIG_FILE_MAX, &buf, &len, NULL, err) == -1)
		return -1;
	rc = config_parse(path, buf, len, NULL, &c, err);
	free(buf);
	if (rc == -1)
		return -1;
	if ((c->c_path = strdup(path)) == NULL ||
	    (c->c_dir = dir_of(path)) == NULL) {
		config_free(c);
		return bx_fail(err, "out of memory");
	}
	*ret = c;
	return 0;
}
