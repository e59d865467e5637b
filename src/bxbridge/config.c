/*
 * config.c: bxbridge.toml. Strict like brokerd.toml and loopd.toml (the
 * same typed-key reader, toml/keys.h): the first unknown table or key,
 * wrong type or bad value fails with file, line and key, so that a typo
 * never silently becomes a default. Only the URL and the owner's id need
 * checks of their own.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxbridge/config.h"
#include "bxbridge/ids.h"
#include "proto/defaults.h"
#include "proto/readfile.h"
#include "toml/keys.h"

#define KEY(n, type, m, lo, hi) \
	{ n, type, offsetof(struct bridge_config, m), lo, hi, false, NULL }
#define CUSTOM(n, f)	{ n, TOML_KEY_CUSTOM, 0, 0, 0, false, f }
#define END	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL }

/* The only host plain http may name: the token never crosses a network. */
#define PLAIN_HTTP_HOST	"127.0.0.1"

static int	decode_url(const struct toml_doc *, const struct toml_value *,
		    void *, struct bx_error *);
static int	decode_owner(const struct toml_doc *,
		    const struct toml_value *, void *, struct bx_error *);

static const struct toml_key mattermost_keys[] = {
	CUSTOM("url", decode_url),
	KEY("token_file", TOML_KEY_PATH, bc_token_file, 0, 0),
	CUSTOM("owner", decode_owner),
	KEY("poll_s", TOML_KEY_INT, bc_poll_s, 1, BRIDGE_CONFIG_MAX_POLL_S),
	KEY("ca_file", TOML_KEY_PATH, bc_ca_file, 0, 0),
	END,
};

static const struct toml_key broker_keys[] = {
	KEY("socket", TOML_KEY_SOCKET, bc_broker_socket, 0, 0),
	END,
};

static const struct toml_section sections[] = {
	{ "mattermost", mattermost_keys, 0 },
	{ "broker", broker_keys, 0 },
	{ NULL, NULL, 0 },
};

/* A port: decimal, 1 to 65535, no leading zero. */
static bool
port_valid(const char *s, size_t len)
{
	unsigned long v = 0;
	size_t i;

	if (len == 0 || len > 5 || s[0] == '0')
		return false;
	for (i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return false;
		v = v * 10 + (unsigned long)(s[i] - '0');
	}
	return v <= 65535;
}

/*
 * The authority's host, then an optional :PORT. The host is a name or
 * IPv4 address (letters, digits, '-', '.') or an IPv6 literal in [];
 * resolving it is the relay's business.
 */
static bool
authority_valid(const char *s, size_t len)
{
	const char *port;
	size_t i, hlen;

	if (len > 0 && s[0] == '[') {
		for (i = 1; i < len && s[i] != ']'; i++)
			if (!(s[i] == ':' || s[i] == '.' ||
			    (s[i] >= '0' && s[i] <= '9') ||
			    (s[i] >= 'a' && s[i] <= 'f') ||
			    (s[i] >= 'A' && s[i] <= 'F')))
				return false;
		if (i == len || i == 1)
			return false;
		hlen = i + 1;
	} else {
		for (i = 0; i < len && s[i] != ':'; i++)
			if (!(s[i] == '-' || s[i] == '.' ||
			    (s[i] >= '0' && s[i] <= '9') ||
			    (s[i] >= 'a' && s[i] <= 'z') ||
			    (s[i] >= 'A' && s[i] <= 'Z')))
				return false;
		if (i == 0)
			return false;
		hlen = i;
	}
	if (hlen == len)
		return true;
	if (s[hlen] != ':')
		return false;
	port = s + hlen + 1;
	return port_valid(port, len - hlen - 1);
}

/*
 * Why url (len bytes, no NUL) is not a base URL the bridge may send its
 * token to, or NULL when it is one.
 */
static const char *
url_problem(const char *url, size_t len)
{
	const char *auth, *end;
	size_t i, alen, hlen = strlen(PLAIN_HTTP_HOST);
	bool plain;

	for (i = 0; i < len; i++)
		if ((unsigned char)url[i] <= ' ' ||
		    (unsigned char)url[i] >= 0x7f)
			return "must be printable ASCII without spaces";
	if (len > 8 && strncmp(url, "https://", 8) == 0) {
		plain = false;
		auth = url + 8;
	} else if (len > 7 && strncmp(url, "http://", 7) == 0) {
		plain = true;
		auth = url + 7;
	} else
		return "must start with https:// (http:// only for "
		    PLAIN_HTTP_HOST ")";
	if (memchr(url, '?', len) != NULL || memchr(url, '#', len) != NULL)
		return "is a base URL: no query (?) or fragment (#)";
	end = memchr(auth, '/', len - (size_t)(auth - url));
	alen = end == NULL ? len - (size_t)(auth - url) :
	    (size_t)(end - auth);
	if (memchr(auth, '@', alen) != NULL)
		return "must not carry a user name or password (@): the "
		    "token is the bridge's only credential";
	if (!authority_valid(auth, alen))
		return "needs a host (a name, an IPv4 address or an [IPv6] "
		    "address) and at most a port of 1 to 65535";
	if (plain && (alen < hlen ||
	    strncmp(auth, PLAIN_HTTP_HOST, hlen) != 0 ||
	    (alen > hlen && auth[hlen] != ':')))
		return "may use http:// only for " PLAIN_HTTP_HOST "; any "
		    "other host needs https://";
	return NULL;
}

static int
decode_url(const struct toml_doc *doc, const struct toml_value *v,
    void *section, struct bx_error *err)
{
	struct bridge_config *c = section;
	const char *s, *problem;
	size_t len;

	if (toml_value_string(v, &s, &len) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "mattermost.url must be a string");
	if (len == 0 || len > BRIDGE_CONFIG_URL_MAX || strlen(s) != len)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "mattermost.url must be 1 to %d bytes without NUL",
		    BRIDGE_CONFIG_URL_MAX);
	/* The API's paths are added after a slash of their own. */
	while (len > 0 && s[len - 1] == '/')
		len--;
	if ((problem = url_problem(s, len)) != NULL)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "mattermost.url %s", problem);
	free(c->bc_url);
	if ((c->bc_url = strndup(s, len)) == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

static int
decode_owner(const struct toml_doc *doc, const struct toml_value *v,
    void *section, struct bx_error *err)
{
	struct bridge_config *c = section;
	const char *s;
	size_t len;

	if (toml_value_string(v, &s, &len) == -1 ||
	    !bridge_id_valid(s, len))
		return toml_fail_at(err, doc, toml_value_line(v),
		    "mattermost.owner must be a Mattermost user id: %d "
		    "characters of a-z and 0-9 (the owner's profile, or "
		    "GET /api/v4/users/username/NAME, shows it)",
		    BRIDGE_ID_LEN);
	free(c->bc_owner);
	if ((c->bc_owner = strdup(s)) == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

void
bridge_config_free(struct bridge_config *c)
{
	if (c == NULL)
		return;
	free(c->bc_url);
	free(c->bc_token_file);
	free(c->bc_owner);
	free(c->bc_ca_file);
	free(c->bc_broker_socket);
	free(c);
}

/* Each required key, named as the owner writes it. */
static int
check_required(const char *name, const struct bridge_config *c,
    struct bx_error *err)
{
	if (c->bc_url == NULL)
		return bx_fail(err, "%s: [mattermost] url is required (the "
		    "server's base URL, e.g. \"https://chat.example.org\")",
		    name);
	if (c->bc_token_file == NULL)
		return bx_fail(err, "%s: [mattermost] token_file is required "
		    "(the file holding the bot account's access token, "
		    "mode 0600)", name);
	if (c->bc_owner == NULL)
		return bx_fail(err, "%s: [mattermost] owner is required (the "
		    "owner's Mattermost user id)", name);
	if (c->bc_broker_socket == NULL)
		return bx_fail(err, "%s: [broker] socket is required "
		    "(brokerd.toml's [sockets] bridge)", name);
	return 0;
}

int
bridge_config_parse(const char *name, const char *buf, size_t len,
    struct bridge_config **ret, struct bx_error *err)
{
	struct toml_doc *doc = NULL;
	struct bridge_config *c;
	int rc = -1;

	if ((c = calloc(1, sizeof(*c))) == NULL)
		return bx_fail(err, "out of memory");
	if (toml_parse(name, buf, len, &doc, err) == -1 ||
	    toml_keys_decode(doc, sections, c, err) == -1 ||
	    check_required(name, c, err) == -1)
		goto out;
	if (c->bc_poll_s == 0)
		c->bc_poll_s = BRIDGE_CONFIG_DEFAULT_POLL_S;
	*ret = c;
	c = NULL;
	rc = 0;
out:
	toml_doc_free(doc);
	bridge_config_free(c);
	return rc;
}

/* bxbridge.toml beside brokerd.toml; missing, it is named. */
static int
load_default(struct bridge_config **ret, struct bx_error *err)
{
	struct bx_defaults d;
	char path[BX_PATH_MAX + 1];

	if (bx_defaults_get(&d, err) == -1)
		return -1;
	if (snprintf(path, sizeof(path), "%s/bxbridge.toml", d.d_config_dir) >=
	    (int)sizeof(path))
		return bx_fail(err, "the configuration directory %s is too "
		    "long for bxbridge.toml", d.d_config_dir);
	if (access(path, F_OK) == -1 && errno == ENOENT)
		return bx_fail(err, "no configuration at %s: write one, or "
		    "name one with --config", path);
	return bridge_config_load(path, ret, err);
}

int
bridge_config_load(const char *path, struct bridge_config **ret,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	size_t len;
	char *buf;
	int r;

	if (path == NULL)
		return load_default(ret, err);
	if (bx_readfile(path, BRIDGE_CONFIG_FILE_MAX, &buf, &len, &why,
	    err) == -1) {
		if (why == BX_READFILE_DIRECTORY)
			bx_fail(err, "%s is a directory, not bxbridge.toml",
			    path);
		return -1;
	}
	r = bridge_config_parse(path, buf, len, ret, err);
	free(buf);
	return r;
}
