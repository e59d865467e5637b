/*
 * config.c: loopd.toml. Strict like brokerd.toml: the first unknown table
 * or key, wrong type or bad value fails with file, line and key, so that a
 * typo never silently becomes a default.
 */

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopd/config.h"
#include "proto/defaults.h"
#include "proto/path.h"
#include "proto/readfile.h"
#include "toml/keys.h"

#define KEY(n, type, m, lo, hi) \
	{ n, type, offsetof(struct loop_config, m), lo, hi, false, NULL }
#define END	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL }

static int	decode_jail_mode(const struct toml_doc *,
		    const struct toml_value *, void *, struct bx_error *);

static const struct toml_key path_keys[] = {
	KEY("home", TOML_KEY_PATH, lc_home, 0, 0),
	END,
};

static const struct toml_key socket_keys[] = {
	KEY("loop", TOML_KEY_SOCKET, lc_loop_socket, 0, 0),
	END,
};

static const struct toml_key model_keys[] = {
	KEY("url", TOML_KEY_TEXT, lc_model_url, 0, LOOP_CONFIG_TEXT_MAX),
	KEY("model", TOML_KEY_TEXT, lc_model, 0, LOOP_CONFIG_TEXT_MAX),
	KEY("api_key_file", TOML_KEY_PATH, lc_api_key_file, 0, 0),
	KEY("timeout_s", TOML_KEY_INT, lc_timeout_s, 1,
	    LOOP_CONFIG_MAX_TIMEOUT_S),
	KEY("max_tokens", TOML_KEY_INT, lc_max_tokens, 1,
	    LOOP_CONFIG_MAX_TOKENS),
	END,
};

static const struct toml_key broker_keys[] = {
	KEY("socket", TOML_KEY_SOCKET, lc_broker_socket, 0, 0),
	END,
};

static const struct toml_key turn_keys[] = {
	KEY("max_steps", TOML_KEY_INT, lc_max_steps, 1, LOOP_CONFIG_MAX_STEPS),
	KEY("max_s", TOML_KEY_INT, lc_max_turn_s, 1, LOOP_CONFIG_MAX_TURN_S),
	END,
};

static const struct toml_key jail_keys[] = {
	{ "mode", TOML_KEY_CUSTOM, 0, 0, 0, false, decode_jail_mode },
	END,
};

static const struct toml_section sections[] = {
	{ "paths", path_keys, 0 },
	{ "sockets", socket_keys, 0 },
	{ "model", model_keys, 0 },
	{ "broker", broker_keys, 0 },
	{ "turn", turn_keys, 0 },
	{ "jail", jail_keys, 0 },
	{ NULL, NULL, 0 },
};

/* Only the two words: a typo must not turn the jail off. */
static int
decode_jail_mode(const struct toml_doc *doc, const struct toml_value *v,
    void *section, struct bx_error *err)
{
	struct loop_config *c = section;
	const char *s;
	size_t len;

	if (toml_value_string(v, &s, &len) == -1 ||
	    (strcmp(s, "on") != 0 && strcmp(s, "off") != 0))
		return toml_fail_at(err, doc, toml_value_line(v),
		    "jail.mode must be \"on\" or \"off\"");
	c->lc_jail_off = strcmp(s, "off") == 0;
	return 0;
}

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

/* A [broker] table without its socket is a mistake, not "no broker". */
static int
check_broker(const struct toml_doc *doc, const struct loop_config *c,
    struct bx_error *err)
{
	const struct toml_table *t;

	if (c->lc_broker_socket != NULL || toml_table_get_table(
	    toml_doc_root(doc), "broker", &t) != TOML_FOUND)
		return 0;
	return toml_fail_at(err, doc, toml_table_line(t), "[broker] needs "
	    "socket (brokerd's broker.sock); remove the table to run "
	    "without tools");
}

static int
apply_defaults(const char *name, struct loop_config *c,
    const char *default_home, struct bx_error *err)
{
	if (c->lc_model_url == NULL)
		return bx_fail(err, "%s: [model] url is required (llama-server's "
		    "base URL, e.g. \"http://127.0.0.1:8080\")", name);
	if (bx_defaults_fill_home(&c->lc_home, default_home, err) == -1)
		return bx_error_prefix(err, "%s: [paths] home is not set",
		    name);
	if (c->lc_loop_socket == NULL) {
		if (asprintf(&c->lc_loop_socket, "%s/" BX_HOME_LOOP_SOCKET,
		    strcmp(c->lc_home, "/") == 0 ? "" : c->lc_home) == -1) {
			c->lc_loop_socket = NULL;
			return bx_fail(err, "out of memory");
		}
		if (bx_socket_path_check(c->lc_loop_socket,
		    strlen(c->lc_loop_socket), err) == -1)
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
	if (c->lc_max_tokens == 0)
		c->lc_max_tokens = LOOP_CONFIG_DEFAULT_MAX_TOKENS;
	if (c->lc_max_turn_s == 0)
		c->lc_max_turn_s = LOOP_CONFIG_DEFAULT_TURN_S;
	return 0;
}

int
loop_config_parse(const char *name, const char *buf, size_t len,
    const char *default_home, struct loop_config **ret, struct bx_error *err)
{
	struct toml_doc *doc = NULL;
	struct loop_config *c;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "out of memory");
	if (toml_parse(name, buf, len, &doc, err) == -1 ||
	    toml_keys_decode(doc, sections, c, err) == -1 ||
	    check_broker(doc, c, err) == -1 ||
	    apply_defaults(name, c, default_home, err) == -1) {
		toml_doc_free(doc);
		loop_config_free(c);
		return -1;
	}
	toml_doc_free(doc);
	*ret = c;
	return 0;
}

/* A missing default file is the owner's first run: say what makes one. */
static int
load_default(struct loop_config **ret, struct bx_error *err)
{
	char path[BX_PATH_MAX + 1];

	if (bx_defaults_config_file("loopd", path, err) == -1)
		return -1;
	return loop_config_load(path, ret, err);
}

int
loop_config_load(const char *path, struct loop_config **ret,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	size_t len;
	char *buf;
	int r;

	if (path == NULL)
		return load_default(ret, err);
	if (bx_readfile(path, LOOP_CONFIG_FILE_MAX, &buf, &len, &why, err) ==
	    -1) {
		/* Says what the path is, so the owner can act. */
		if (why == BX_READFILE_DIRECTORY)
			bx_fail(err, "%s is a directory, not loopd.toml", path);
		return -1;
	}
	r = loop_config_parse(path, buf, len, NULL, ret, err);
	free(buf);
	return r;
}
