/*
 * config_runner.c: the [runner] and [egress] tables of brokerd.toml. A key
 * a table does not know, a value out of range or of the wrong type fails the load with
 * the file, line and key: a limit mistyped must never become a default.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/args.h"
#include "brokerd/config_runner.h"
#include "proto/netaddr.h"

#define RUNNER_NAME_MAX	4096

static const char *const kind_names[RUNNER_KIND_MAX] = {
	"podman", "bwrap", "refuse",
};

/* An integer key: where it goes and what it may be. */
struct int_key {
	const char	*ik_name;
	size_t		 ik_offset;
	int64_t		 ik_min;
	int64_t		 ik_max;
};

/* A string key: where it goes; "" means unset where allow_empty. */
struct str_key {
	const char	*sk_name;
	size_t		 sk_offset;
	bool		 sk_allow_empty;
	bool		 sk_path;	/* an absolute path (args_path_check) */
};

#define IKEY(n, m, lo, hi) { n, offsetof(struct config_runner, m), lo, hi }
#define SKEY(n, m, e, p) { n, offsetof(struct config_runner, m), e, p }

static const struct int_key int_keys[] = {
	IKEY("timeout_ms", cr_timeout_ms, 100, 3600000),
	IKEY("memory_mb", cr_memory_mb, 16, 65536),
	IKEY("pids", cr_pids, 8, 65536),
	IKEY("output_bytes", cr_output_bytes, 1024, 1048576),
	IKEY("max_running", cr_max_running, 1, 64),
	{ NULL, 0, 0, 0 },
};

static const struct int_key egress_int_keys[] = {
	IKEY("connect_timeout_ms", cr_connect_timeout_ms, 100, 60000),
	IKEY("max_bytes", cr_max_bytes, 1024, 1024 * 1024 * 1024),
	{ NULL, 0, 0, 0 },
};

static const struct str_key egress_str_keys[] = {
	SKEY("ca_file", cr_ca_file, true, true),
	SKEY("bxegress_path", cr_bxegress_path, true, true),
	{ NULL, 0, false, false },
};

static const struct str_key str_keys[] = {
	SKEY("root", cr_root, true, true),
	SKEY("user", cr_user, true, false),
	SKEY("podman_runtime", cr_podman_runtime, true, false),
	SKEY("podman_path", cr_podman_path, false, false),
	SKEY("bwrap_path", cr_bwrap_path, false, false),
	SKEY("bxtool_path", cr_bxtool_path, true, true),
	{ NULL, 0, false, false },
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
    struct config_runner *r, struct bx_error *err)
{
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

static int
decode_int(const struct toml_doc *doc, const char *table,
    const struct toml_value *v, const struct int_key *k,
    struct config_runner *r, struct bx_error *err)
{
	int64_t n;

	if (toml_value_integer(v, &n) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be an integer", table, k->ik_name);
	if (n < k->ik_min || n > k->ik_max)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be %lld to %lld", table, k->ik_name,
		    (long long)k->ik_min, (long long)k->ik_max);
	*(int64_t *)(void *)((char *)r + k->ik_offset) = n;
	return 0;
}

static int
decode_str(const struct toml_doc *doc, const char *table,
    const struct toml_value *v, const struct str_key *k,
    struct config_runner *r, struct bx_error *err)
{
	char **slot = (char **)(void *)((char *)r + k->sk_offset);
	struct bx_error why;
	const char *s;
	size_t len;

	if (toml_value_string(v, &s, &len) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be a string", table, k->sk_name);
	if (len == 0 && k->sk_allow_empty)
		return 0;
	if (len == 0 || len > RUNNER_NAME_MAX || strlen(s) != len)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s must be 1 to %d bytes without NUL", table,
		    k->sk_name, RUNNER_NAME_MAX);
	if (k->sk_path && args_path_check(s, len, &why) == -1)
		return toml_fail_at(err, doc, toml_value_line(v),
		    "%s.%s: %s", table, k->sk_name, why.msg);
	free(*slot);
	if ((*slot = strdup(s)) == NULL)
		return bx_fail(err, "out of memory");
	return 0;
}

/*
 * One table: the key special names is decoded by decode_special, the
 * others by the key tables; an unknown key fails with its line.
 */
struct table_keys {
	const char		*tk_name;	/* "runner", "egress" */
	const char		*tk_special;
	int			(*tk_decode_special)(const struct toml_doc *,
				    const struct toml_value *,
				    struct config_runner *, struct bx_error *);
	const struct int_key	*tk_ints;
	const struct str_key	*tk_strs;
};

/* An int or string key of the table; 1 when name is neither. */
static int
decode_key(const struct toml_doc *doc, const struct table_keys *tk,
    const char *name, const struct toml_value *v, struct config_runner *r,
    struct bx_error *err)
{
	const struct int_key *ik;
	const struct str_key *sk;

	if (strcmp(name, tk->tk_special) == 0)
		return tk->tk_decode_special(doc, v, r, err);
	for (ik = tk->tk_ints; ik->ik_name != NULL; ik++)
		if (strcmp(name, ik->ik_name) == 0)
			return decode_int(doc, tk->tk_name, v, ik, r, err);
	for (sk = tk->tk_strs; sk->sk_name != NULL; sk++)
		if (strcmp(name, sk->sk_name) == 0)
			return decode_str(doc, tk->tk_name, v, sk, r, err);
	return 1;
}

static int
decode_table(const struct toml_doc *doc, const struct toml_table *t,
    const struct table_keys *tk, struct config_runner *r,
    struct bx_error *err)
{
	const char *name;
	size_t i;
	int line, rc;

	for (i = 0; (name = toml_table_key_at(t, i, NULL, &line, NULL)); i++) {
		rc = decode_key(doc, tk, name, toml_table_value_at(t, i), r,
		    err);
		if (rc == 1)
			return toml_fail_at(err, doc, line, "unknown key "
			    "\"%s.%s\"", tk->tk_name, name);
		if (rc == -1)
			return -1;
	}
	return 0;
}

/* allow_addresses: an array of CIDR strings, each checked at load. */
static int
decode_allow(const struct toml_doc *doc, const struct toml_value *v,
    struct config_runner *r, struct bx_error *err)
{
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

int
config_runner_decode(const struct toml_doc *doc, const struct toml_table *t,
    struct config_runner *r, struct bx_error *err)
{
	static const struct table_keys tk = {
		"runner", "kind", decode_kind, int_keys, str_keys,
	};

	return decode_table(doc, t, &tk, r, err);
}

int
config_egress_decode(const struct toml_doc *doc, const struct toml_table *t,
    struct config_runner *r, struct bx_error *err)
{
	static const struct table_keys tk = {
		"egress", "allow_addresses", decode_allow, egress_int_keys,
		egress_str_keys,
	};

	return decode_table(doc, t, &tk, r, err);
}
