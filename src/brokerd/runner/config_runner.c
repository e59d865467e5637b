/*
 * config_runner.c: the keys of the [runner] and [egress] tables of
 * brokerd.toml, their ranges and defaults, for toml/keys.h to decode. A key
 * a table does not know, a value out of range or of the wrong type fails
 * the load with the file, line and key: a limit mistyped must never become
 * a default.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/config_runner.h"
#include "proto/netaddr.h"
#include "proto/path.h"

static const char *const kind_names[RUNNER_KIND_MAX] = {
	"podman", "bwrap", "refuse",
};

static int	decode_kind(const struct toml_doc *, const struct toml_value *,
		    void *, struct bx_error *);
static int	decode_allow(const struct toml_doc *, const struct toml_value *,
		    void *, struct bx_error *);

#define INT(n, m, lo, hi) \
	{ n, TOML_KEY_INT64, offsetof(struct config_runner, m), lo, hi, \
	    false, NULL }
#define STR(n, type, m, unset) \
	{ n, type, offsetof(struct config_runner, m), 0, BX_PATH_MAX, \
	    unset, NULL }
#define CUSTOM(n, f)	{ n, TOML_KEY_CUSTOM, 0, 0, 0, false, f }

const struct toml_key config_runner_keys[] = {
	CUSTOM("kind", decode_kind),
	INT("timeout_ms", cr_timeout_ms, 100, 3600000),
	INT("start_timeout_ms", cr_start_timeout_ms, 1000, 600000),
	INT("memory_mb", cr_memory_mb, 16, 65536),
	INT("pids", cr_pids, 8, 65536),
	INT("output_bytes", cr_output_bytes, 1024, 1048576),
	INT("max_running", cr_max_running, 1, 64),
	STR("root", TOML_KEY_PATH, cr_root, true),
	STR("user", TOML_KEY_TEXT, cr_user, true),
	STR("podman_runtime", TOML_KEY_TEXT, cr_podman_runtime, true),
	STR("podman_path", TOML_KEY_PROGRAM, cr_podman_path, false),
	STR("bwrap_path", TOML_KEY_PROGRAM, cr_bwrap_path, false),
	STR("bxtool_path", TOML_KEY_PATH, cr_bxtool_path, true),
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

const struct toml_key config_egress_keys[] = {
	CUSTOM("allow_addresses", decode_allow),
	INT("connect_timeout_ms", cr_connect_timeout_ms, 100, 60000),
	INT("max_bytes", cr_max_bytes, 1024, 1024 * 1024 * 1024),
	STR("ca_file", TOML_KEY_PATH, cr_ca_file, true),
	STR("bxegress_path", TOML_KEY_PATH, cr_bxegress_path, true),
	{ NULL, TOML_KEY_TEXT, 0, 0, 0, false, NULL },
};

const char *
config_runner_kind_name(enum runner_kind k)
{
	return k < RUNNER_KIND_MAX ? kind_names[k] : "unknown";
}

void
config_runner_defaults(struct config_runner *r)
{
	memset(r, 0, sizeof(*r));
	r->cr_kind = RUNNER_PODMAN;
	r->cr_timeout_ms = RUNNER_DEFAULT_TIMEOUT_MS;
	r->cr_start_timeout_ms = RUNNER_DEFAULT_START_TIMEOUT_MS;
	r->cr_memory_mb = RUNNER_DEFAULT_MEMORY_MB;
	r->cr_pids = RUNNER_DEFAULT_PIDS;
	r->cr_output_bytes = RUNNER_DEFAULT_OUTPUT_BYTES;
	r->cr_max_running = RUNNER_DEFAULT_MAX_RUNNING;
	r->cr_connect_timeout_ms = EGRESS_DEFAULT_CONNECT_MS;
	r->cr_max_bytes = EGRESS_DEFAULT_MAX_BYTES;
}

void
config_runner_clear(struct config_runner *r)
{
	size_t i;

	if (r == NULL)
		return;
	free(r->cr_root);
	free(r->cr_user);
	free(r->cr_podman_runtime);
	free(r->cr_podman_path);
	free(r->cr_bwrap_path);
	free(r->cr_bxtool_path);
	free(r->cr_ca_file);
	free(r->cr_bxegress_path);
	for (i = 0; i < r->cr_nallow; i++)
		free(r->cr_allow_text[i]);
	memset(r, 0, sizeof(*r));
}

static int
decode_kind(const struct toml_doc *doc, const struct toml_value *v,
    void *section, struct bx_error *err)
{
	struct config_runner *r = section;
	const char *s;
	size_t len;
	int k;

	if (toml_value_string(v, &s, &len) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "runner.kind must be a string");
	for (k = 0; k < RUNNER_KIND_MAX; k++)
		if (strcmp(s, kind_names[k]) == 0) {
			r->cr_kind = (enum runner_kind)k;
			return 0;
		}
	return toml_fail_at(err, doc, toml_value_line(v), "runner.kind must "
	    "be \"podman\", \"bwrap\" or \"refuse\"");
}

/* allow_addresses: an array of CIDR strings, each checked at load. */
static int
decode_allow(const struct toml_doc *doc, const struct toml_value *v,
    void *section, struct bx_error *err)
{
	struct config_runner *r = section;
	const struct toml_array *a;
	const struct toml_value *e;
	struct bx_error why;
	const char *s;
	size_t i, len;

	if (toml_value_array(v, &a) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "egress.allow_addresses must be an array of strings");
	if (toml_array_len(a) > BX_CIDR_MAX_ALLOW)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "egress.allow_addresses lists at most %d ranges",
		    BX_CIDR_MAX_ALLOW);
	for (i = 0; i < toml_array_len(a); i++) {
		e = toml_array_at(a, i);
		if (toml_value_string(e, &s, &len) == -1 ||
		    strlen(s) != len || len >= BX_CIDR_TEXT_MAX)
			return toml_fail_at(err, doc, toml_value_line(e),
			    "egress.allow_addresses[%zu] must be a CIDR "
			    "string", i);
		if (bx_cidr_parse(s, &r->cr_allow[r->cr_nallow], &why) == -1)
			return toml_fail_at(err, doc, toml_value_line(e),
			    "egress.allow_addresses[%zu] \"%s\" %s", i, s,
			    why.msg);
		if ((r->cr_allow_text[r->cr_nallow] = strdup(s)) == NULL)
			return bx_fail(err, "out of memory");
		r->cr_nallow++;
	}
	return 0;
}
