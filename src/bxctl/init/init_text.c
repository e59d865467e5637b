/*
 * init_text.c: brokerd.toml, loopd.toml, the example grant and the
 * commented bxbridge.toml as `bxctl init` writes them (init.h).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bxctl/init/init.h"
#include "proto/clock.h"
#include "proto/defaults.h"
#include "proto/path.h"
#include "proto/types.h"
#include "proto/utf8.h"

/* llama-server's own default address. */
#define INIT_MODEL_URL	"http://127.0.0.1:8080"

/*
 * A TOML basic string for path, quotes included (malloc'd). A control
 * character is refused rather than escaped: the raw path also goes into
 * comments, where a newline would start a key.
 */
static char *
quote(const char *path, struct bx_error *err)
{
	const unsigned char *u = (const unsigned char *)path;
	size_t len = strlen(path), i, at = 0, n;
	char *q;

	for (i = 0; i < len; i += n) {
		if ((n = bx_utf8_len(u + i, len - i)) == 0) {
			bx_fail(err, "%s is not UTF-8, which TOML needs", path);
			return NULL;
		}
		if (u[i] < 0x20 || u[i] == 0x7f) {
			bx_fail(err, "the path %s holds a control character",
			    path);
			return NULL;
		}
	}
	if ((q = malloc(len * 2 + 3)) == NULL) {
		bx_fail(err, "out of memory");
		return NULL;
	}
	q[at++] = '"';
	for (i = 0; i < len; i++) {
		if (path[i] == '"' || path[i] == '\\')
			q[at++] = '\\';
		q[at++] = path[i];
	}
	q[at++] = '"';
	q[at] = '\0';
	return q;
}

/* vasprintf, NULL on failure. */
static char *
text_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *
text_printf(const char *fmt, ...)
{
	va_list ap;
	char *text;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&text, fmt, ap);
	va_end(ap);
	return n == -1 ? NULL : text;
}

struct paths {
	char	*p_home, *p_grants, *p_broker, *p_admin, *p_loop, *p_bridge;
};

static void
paths_clear(struct paths *p)
{
	free(p->p_home);
	free(p->p_grants);
	free(p->p_broker);
	free(p->p_admin);
	free(p->p_loop);
	free(p->p_bridge);
}

/* home + rest, checked as a socket path; quoted. */
static char *
socket_under(const char *home, const char *rest, struct bx_error *err)
{
	char path[BX_PATH_MAX + 64];
	int n;

	n = snprintf(path, sizeof(path), "%s%s", strcmp(home, "/") == 0 ?
	    "" : home, rest);
	if (n < 0 || (size_t)n >= sizeof(path) ||
	    bx_socket_path_check(path, (size_t)n, err) == -1) {
		bx_fail(err, "the home %s is too long for its sockets (%s is "
		    "past %d bytes): set BOXMAKER_HOME to a shorter path",
		    home, rest, BX_SOCKET_PATH_MAX);
		return NULL;
	}
	return quote(path, err);
}

static int
paths_make(const char *home, struct paths *p, struct bx_error *err)
{
	char grants[BX_PATH_MAX + 16];

	memset(p, 0, sizeof(*p));
	snprintf(grants, sizeof(grants), "%s/" BX_HOME_GRANTS,
	    strcmp(home, "/") == 0 ? "" : home);
	if ((p->p_home = quote(home, err)) == NULL ||
	    (p->p_grants = quote(grants, err)) == NULL ||
	    (p->p_broker = socket_under(home, "/" BX_HOME_BROKER_SOCKET,
	    err)) == NULL ||
	    (p->p_admin = socket_under(home, "/" BX_HOME_ADMIN_SOCKET,
	    err)) == NULL ||
	    (p->p_loop = socket_under(home, "/" BX_HOME_LOOP_SOCKET,
	    err)) == NULL ||
	    (p->p_bridge = socket_under(home, "/" BX_HOME_BRIDGE_SOCKET,
	    err)) == NULL) {
		paths_clear(p);
		return -1;
	}
	return 0;
}

static char *
brokerd_text(const struct paths *p, const char *runtime)
{
	return text_printf(
	    "# brokerd.toml, written by bxctl init (brokerd(8)). Every key "
	    "is optional;\n# unknown keys are errors. The paths are yours, "
	    "written out.\n\n"
	    "[paths]\nhome = %s\n# One grant per *.toml file "
	    "(boxmaker-grant(5)).\ngrants = %s\n\n"
	    "[sockets]\n# loopd.toml's [broker] socket names this one.\n"
	    "broker = %s\n# bxctl's: approvals, approve, refuse, grants "
	    "check.\nadmin = %s\n\n"
	    "[runner]\n# \"podman\" or \"bwrap\": each allowed call runs in "
	    "a fresh sandbox.\nkind = \"%s\"\n# The defaults, per call: "
	    "timeout_ms = 30000, memory_mb = 512, pids = 128,\n"
	    "# output_bytes = 262144; max_running = 4 at once.\n",
	    p->p_home, p->p_grants, p->p_broker, p->p_admin, runtime);
}

static char *
loopd_text(const struct paths *p)
{
	return text_printf(
	    "# loopd.toml, written by bxctl init (loopd(8)). Unknown keys are "
	    "errors.\n\n"
	    "[paths]\nhome = %s\n\n"
	    "[sockets]\n# Where bxctl chat connects.\nloop = %s\n\n"
	    "[model]\n# llama-server's base URL (started with --jinja), "
	    "without /v1.\nurl = \"" INIT_MODEL_URL "\"\nmodel = \"local\"\n"
	    "timeout_s = 300\n# The most tokens one answer may have.\n"
	    "max_tokens = 4096\n# For llama-server --api-key: a file holding "
	    "the key, mode 0600.\n# api_key_file = \"...\"\n\n"
	    "[broker]\n# brokerd.toml's [sockets] broker.\nsocket = %s\n\n"
	    "[turn]\nmax_steps = 16\n# The whole turn's bound in seconds.\n"
	    "max_s = 1800\n",
	    p->p_home, p->p_loop, p->p_broker);
}

/*
 * bxbridge.toml, valid TOML but not set up: the keys only the owner knows
 * are commented out, so `bxbridge check` names the first one missing.
 * The socket is brokerd's default for this home, so it is written out.
 */
static char *
bxbridge_text(const struct paths *p, const char *config_dir,
    struct bx_error *err)
{
	char token[BX_PATH_MAX + 32], *q, *text;

	snprintf(token, sizeof(token), "%s/bxbridge.token", config_dir);
	if ((q = quote(token, err)) == NULL)
		return NULL;
	text = text_printf(
	    "# bxbridge.toml, written by bxctl init (bxbridge(8)): approvals "
	    "in your\n# Mattermost direct messages. Optional, and not set up "
	    "yet: fill in url,\n# token_file and owner, then run `bxbridge "
	    "check`, which names what is\n# still missing. The bot account, "
	    "its token and your user id: the runbook,\n# "
	    "docs/runbook.md#bridge-not-set-up. Unknown keys are errors.\n\n"
	    "[mattermost]\n# The server's base URL: https (http only for "
	    "127.0.0.1).\n# url = \"https://chat.example.org\"\n"
	    "# The file holding the bot account's personal access token, mode "
	    "0600.\n# token_file = %s\n"
	    "# Your Mattermost user id: 26 characters of a-z and 0-9 (not "
	    "your user name).\n# owner = \"...\"\n"
	    "# How often, in seconds, answers to waiting posts are read: 1 to "
	    "60.\n# poll_s = 3\n"
	    "# A private CA's certificate (PEM); default: the system's CAs.\n"
	    "# ca_file = \"...\"\n\n"
	    "[broker]\n# brokerd.toml's [sockets] bridge (brokerd's default "
	    "for your home).\nsocket = %s\n", q, p->p_bridge);
	free(q);
	if (text == NULL)
		bx_fail(err, "out of memory");
	return text;
}

static char *
example_text(const struct init_text *t, const char *user_dir,
    struct bx_error *err)
{
	char expires[BX_TIME_LEN + 1], notes[BX_PATH_MAX + 16], *q, *text;

	bx_time_format(bx_clock_wall_ms() +
	    (int64_t)INIT_EXAMPLE_DAYS * 24 * 3600 * 1000, expires);
	snprintf(notes, sizeof(notes), "%s/notes", user_dir != NULL &&
	    strcmp(user_dir, "/") != 0 ? user_dir : "/home/you");
	if ((q = quote(notes, err)) == NULL)
		return NULL;
	text = text_printf(
	    "# An example grant (boxmaker-grant(5)). brokerd loads only the "
	    "*.toml files\n# in the grants directory, so this one, beside it, "
	    "never loads. To let\n# the model read your notes without asking, "
	    "copy it there and edit the path:\n#   cp %s %s/notes-read.toml\n"
	    "tool = \"read_file\"\nmode = \"auto\"\nmax_taint = \"secret\"\n"
	    "# A read makes the session's taint at least private.\n"
	    "result_class = \"private\"\nuntrusted = false\n"
	    "# Grants end; write a new date when this one does.\n"
	    "expires = \"%s\"\n\n[constraints]\npaths = [%s]\n",
	    t->it_example_path, t->it_grants, expires, q);
	free(q);
	if (text == NULL)
		bx_fail(err, "out of memory");
	return text;
}

int
init_text_make(const struct bx_defaults *d, const char *runtime,
    const char *user_dir, struct init_text *ret, struct bx_error *err)
{
	const char *under = strcmp(d->d_home, "/") == 0 ? "" : d->d_home;
	struct init_text t;
	struct paths p;

	memset(&t, 0, sizeof(t));
	if (paths_make(d->d_home, &p, err) == -1)
		return -1;
	if ((t.it_grants = text_printf("%s/grants", under)) == NULL ||
	    (t.it_example_path = text_printf("%s/example-grant.toml",
	    under)) == NULL ||
	    (t.it_brokerd = brokerd_text(&p, runtime)) == NULL ||
	    (t.it_loopd = loopd_text(&p)) == NULL) {
		bx_fail(err, "out of memory");
		goto fail;
	}
	if ((t.it_example = example_text(&t, user_dir, err)) == NULL ||
	    (t.it_bxbridge = bxbridge_text(&p, d->d_config_dir,
	    err)) == NULL)
		goto fail;
	paths_clear(&p);
	*ret = t;
	return 0;
fail:
	paths_clear(&p);
	init_text_clear(&t);
	return -1;
}

void
init_text_clear(struct init_text *t)
{
	free(t->it_brokerd);
	free(t->it_loopd);
	free(t->it_grants);
	free(t->it_example_path);
	free(t->it_example);
	free(t->it_bxbridge);
	memset(t, 0, sizeof(*t));
}
