/*
 * test-secret-call.c: a call's secret (brokerd/secret_call.h). For each
 * kind, the header line bxtool will read and a redactor that takes out the
 * value, the whole header value and basic's base64; for each way a secret
 * cannot be used (no configuration directory, no file, a bad mode, a bad
 * name, a bad form, a host that is not the secret's), one message naming
 * the secret, saying why, pointing at the runbook and never holding the
 * value, with nothing returned.
 *
 * Not reached: out of memory, and a redactor that cannot be made (a loaded
 * secret's forms are always printable and of a length it takes, and its
 * name is always one it takes).
 */
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/secret_call.h"
#include "grants-fixture.h"
#include "secret-fixture.h"

#define VALUE		"ghp_s3cretVALUEx9"
/* base64 of "kyle:" VALUE, by Python's base64 module. */
#define KYLE_B64	"a3lsZTpnaHBfczNjcmV0VkFMVUV4OQ=="
#define HOSTS		"hosts = [\"api.github.com\", \"uploads.github.com\"]\n"
#define BEARER		"kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\"\n"
#define HEADER		"kind = \"header\"\nheader = \"X-Api-Key\"\n" HOSTS \
			"value = \"" VALUE "\"\n"
#define BASIC		"kind = \"basic\"\nuser = \"kyle\"\n" HOSTS \
			"value = \"" VALUE "\"\n"
#define RUNBOOK		"; see docs/runbook.md#secret-unavailable"

static void
done(char *dir)
{
	fixture_remove(dir);
	free(dir);
}

static struct secret_call *
open_ok(const char *dir, const char *name, const char *host)
{
	struct secret_call *sc = NULL;
	struct bx_error err;

	if (secret_call_open(dir, name, host, &sc, &err) != 0)
		fail_msg("secret_call_open %s: %s", name, err.msg);
	assert_non_null(sc);
	return sc;
}

/*
 * The secret name cannot be used for host: one message, "the secret NAME
 * cannot be used: " then why (holding want) then the runbook, without the
 * value; *ret untouched.
 */
static void
expect_unusable(const char *dir, const char *name, const char *host,
    const char *want)
{
	struct secret_call *sc = (struct secret_call *)&sc;
	struct bx_error err;
	char prefix[256];
	size_t len;

	assert_int_equal(secret_call_open(dir, name, host, &sc, &err), -1);
	assert_ptr_equal(sc, (struct secret_call *)&sc);
	snprintf(prefix, sizeof(prefix), "the secret %s cannot be used: ",
	    name);
	if (strncmp(err.msg, prefix, strlen(prefix)) != 0)
		fail_msg("\"%s\" does not start \"%s\"", err.msg, prefix);
	len = strlen(err.msg);
	assert_true(len > strlen(RUNBOOK));
	assert_string_equal(err.msg + len - strlen(RUNBOOK), RUNBOOK);
	if (strstr(err.msg, want) == NULL)
		fail_msg("\"%s\" does not say \"%s\"", err.msg, want);
	assert_null(strstr(err.msg, VALUE));
	assert_null(strstr(err.msg, KYLE_B64));
}

/*
 * sc's redactor takes every one of forms out of text: n occurrences, each
 * now "[secret NAME]".
 */
static void
expect_redacts(const struct secret_call *sc, const char *text, size_t n,
    const char *const *forms)
{
	struct bx_error err;
	char *out = NULL, marker[128];
	size_t len, removed;

	snprintf(marker, sizeof(marker), "[secret %s]", secret_call_name(sc));
	if (bx_redact(secret_call_redactor(sc), text, strlen(text), 1 << 20,
	    &out, &len, &removed, &err) == -1)
		fail_msg("bx_redact: %s", err.msg);
	assert_int_equal(removed, n);
	for (; *forms != NULL; forms++)
		if (strstr(out, *forms) != NULL)
			fail_msg("\"%s\" is still in \"%s\"", *forms, out);
	assert_non_null(strstr(out, marker));
	free(out);
}

static void
test_bearer(void **state)
{
	static const char *forms[] = { VALUE, NULL };
	char *dir = fixture_config_dir();
	struct secret_call *sc;

	(void)state;
	fixture_secret(dir, "github", BEARER);
	sc = open_ok(dir, "github", "api.github.com");
	assert_string_equal(secret_call_name(sc), "github");
	assert_string_equal(secret_call_header(sc),
	    "Authorization: Bearer " VALUE "\n");
	expect_redacts(sc, "token=" VALUE " echo:Bearer " VALUE, 2, forms);
	secret_call_free(sc);
	/* Either of its hosts. */
	sc = open_ok(dir, "github", "uploads.github.com");
	secret_call_free(sc);
	done(dir);
}

static void
test_header(void **state)
{
	static const char *forms[] = { VALUE, NULL };
	char *dir = fixture_config_dir();
	struct secret_call *sc;

	(void)state;
	fixture_secret(dir, "maps", HEADER);
	sc = open_ok(dir, "maps", "api.github.com");
	assert_string_equal(secret_call_name(sc), "maps");
	assert_string_equal(secret_call_header(sc), "X-Api-Key: " VALUE "\n");
	/* The value is the whole header value: one form, found once. */
	expect_redacts(sc, "{\"x-api-key\": \"" VALUE "\"}", 1, forms);
	secret_call_free(sc);
	done(dir);
}

/* Basic sends base64 of user:value; that alone is an echo too. */
static void
test_basic(void **state)
{
	static const char *forms[] = { VALUE, KYLE_B64, NULL };
	char *dir = fixture_config_dir();
	struct secret_call *sc;

	(void)state;
	fixture_secret(dir, "lamp", BASIC);
	sc = open_ok(dir, "lamp", "uploads.github.com");
	assert_string_equal(secret_call_header(sc),
	    "Authorization: Basic " KYLE_B64 "\n");
	expect_redacts(sc, "auth=" KYLE_B64 " pw=" VALUE, 2, forms);
	expect_redacts(sc, "Basic " KYLE_B64, 1, forms);
	secret_call_free(sc);
	done(dir);
}

/* The file is read at each open: a change applies to the next call. */
static void
test_read_each_time(void **state)
{
	char *dir = fixture_config_dir();
	struct secret_call *sc;

	(void)state;
	fixture_secret(dir, "github", BEARER);
	sc = open_ok(dir, "github", "api.github.com");
	secret_call_free(sc);
	fixture_secret(dir, "github", "kind = \"bearer\"\n"
	    "hosts = [\"other.example\"]\nvalue = \"" VALUE "\"\n");
	expect_unusable(dir, "github", "api.github.com",
	    "api.github.com is not among its hosts");
	sc = open_ok(dir, "github", "other.example");
	secret_call_free(sc);
	done(dir);
}

static void
test_no_config_dir(void **state)
{
	(void)state;
	expect_unusable(NULL, "github", "api.github.com",
	    "brokerd was started without a configuration directory");
}

static void
test_missing(void **state)
{
	char *dir = fixture_config_dir(), *bare = fixture_dir();

	(void)state;
	expect_unusable(dir, "github", "api.github.com",
	    "there is no such secret file");
	expect_unusable(bare, "github", "api.github.com",
	    "there is no secrets directory");
	done(dir);
	done(bare);
}

static void
test_bad_modes(void **state)
{
	char *dir = fixture_config_dir(), path[4096];

	(void)state;
	fixture_secret(dir, "github", BEARER);
	snprintf(path, sizeof(path), "%s/secrets/github.toml", dir);
	if (chmod(path, 0644) == -1)
		fail_msg("chmod %s: %s", path, strerror(errno));
	expect_unusable(dir, "github", "api.github.com",
	    "the secret file has mode 0644, not 0600");
	if (chmod(path, 0600) == -1)
		fail_msg("chmod %s: %s", path, strerror(errno));
	snprintf(path, sizeof(path), "%s/secrets", dir);
	if (chmod(path, 0755) == -1)
		fail_msg("chmod %s: %s", path, strerror(errno));
	expect_unusable(dir, "github", "api.github.com",
	    "the secrets directory has mode 0755, not 0700");
	done(dir);
}

/* The file's first problem, with its line, and how many more. */
static void
test_bad_form(void **state)
{
	char *dir = fixture_config_dir();

	(void)state;
	fixture_secret(dir, "github", "kind = \"bearer\"\n" HOSTS
	    "value = \"short\"\n");
	expect_unusable(dir, "github", "api.github.com",
	    "github.toml:3: field \"value\" is shorter");
	fixture_secret(dir, "github", "kind = \"bearer\"\nhosts = []\n"
	    "value = \"" VALUE "\"\ncolour = \"" VALUE "\"\n");
	expect_unusable(dir, "github", "api.github.com",
	    "(and 1 more problem)");
	fixture_secret(dir, "github", "kind = \"bearer\"\n" HOSTS
	    "value = " VALUE "\n");
	expect_unusable(dir, "github", "api.github.com", "not valid TOML");
	done(dir);
}

static void
test_bad_name(void **state)
{
	char *dir = fixture_config_dir();

	(void)state;
	expect_unusable(dir, "Git_Hub", "api.github.com", "Git_Hub");
	done(dir);
}

/* A host that is not the secret's: the file and line of its hosts. */
static void
test_host_not_listed(void **state)
{
	char *dir = fixture_config_dir(), want[4300];

	(void)state;
	fixture_secret(dir, "github", BEARER);
	snprintf(want, sizeof(want), "evil.example is not among its hosts "
	    "(%s/secrets/github.toml:2); nothing was sent", dir);
	expect_unusable(dir, "github", "evil.example", want);
	/* Exact names only: neither a parent nor a child nor a case. */
	expect_unusable(dir, "github", "github.com", "not among its hosts");
	expect_unusable(dir, "github", "x.api.github.com",
	    "not among its hosts");
	expect_unusable(dir, "github", "API.github.com", "not among its hosts");
	done(dir);
}

static void
test_free_null(void **state)
{
	(void)state;
	secret_call_free(NULL);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bearer),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_read_each_time),
		cmocka_unit_test(test_no_config_dir),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_bad_modes),
		cmocka_unit_test(test_bad_form),
		cmocka_unit_test(test_bad_name),
		cmocka_unit_test(test_host_not_listed),
		cmocka_unit_test(test_free_null),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
