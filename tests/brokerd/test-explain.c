/*
 * test-explain.c: `brokerd explain`, run in process with its output caught:
 * the text and JSON reports, the usage errors, and that it writes nothing.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "brokerd/explain.h"
#include "grants-fixture.h"

#define LATER	"2027-01-01T00:00:00.000Z"
#define NOW	"2026-09-18T12:00:00.000Z"

struct run {
	int	 status;
	char	*out;
	char	*errs;
};

struct fixture {
	char	*home;
	char	*config;
	char	*grants;
};

static int
setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char *text;

	f->home = fixture_dir();
	if (asprintf(&f->config, "%s/brokerd.toml", f->home) == -1 ||
	    asprintf(&f->grants, "%s/grants", f->home) == -1 ||
	    asprintf(&text, "[paths]\nhome = \"%s\"\n", f->home) == -1)
		return -1;
	fixture_text(f->home, "brokerd.toml", text);
	free(text);
	if (mkdir(f->grants, 0700) == -1)
		return -1;
	fixture_grant(f->grants, "notes", "read_file", "auto", "private",
	    LATER, "paths = [\"/home/kyle/notes\"]");
	fixture_grant(f->grants, "old", "read_file", "auto", "secret",
	    "2026-01-01T00:00:00.000Z", "paths = [\"/home/kyle\"]");
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fixture *f = *state;

	fixture_remove(f->home);
	free(f->home);
	free(f->config);
	free(f->grants);
	free(f);
	return 0;
}

static void
run_free(struct run *r)
{
	free(r->out);
	free(r->errs);
}

/* Runs explain with the NULL-terminated arguments after "explain". */
static struct run
run(const char *first, ...)
{
	char *argv[16];
	struct run r;
	size_t olen, elen;
	FILE *out, *errs;
	va_list ap;
	int argc = 0;

	argv[argc++] = (char *)"explain";
	va_start(ap, first);
	for (argv[argc] = (char *)first; argv[argc] != NULL && argc < 15;
	    argv[++argc] = va_arg(ap, char *))
		;
	va_end(ap);
	out = open_memstream(&r.out, &olen);
	errs = open_memstream(&r.errs, &elen);
	assert_non_null(out);
	assert_non_null(errs);
	r.status = explain_main(argc, argv, out, errs);
	fclose(out);
	fclose(errs);
	return r;
}

static void
contains(const char *text, const char *want)
{
	if (strstr(text, want) == NULL)
		fail_msg("\"%s\" lacks \"%s\"", text, want);
}

static void
test_text(void **state)
{
	struct fixture *f = *state;
	struct run r;

	r = run("--config", f->config, "--now", NOW, "read_file",
	    "{\"path\":\"/home/kyle/notes/a.md\"}", NULL);
	assert_int_equal(r.status, 0);
	assert_string_equal(r.errs, "");
	contains(r.out, "outcome: allowed\n");
	contains(r.out, "grant: notes (auto, result_class private, untrusted "
	    "false, matched path /home/kyle/notes)\n");
	contains(r.out, "  notes (auto): matched\n");
	contains(r.out, "  old (auto): ruled out: expired at "
	    "2026-01-01T00:00:00.000Z\n");
	run_free(&r);
	r = run("--config", f->config, "--now", NOW, "--taint", "secret",
	    "read_file", "{\"path\":\"/home/kyle/notes/a.md\"}", NULL);
	contains(r.out, "outcome: denied (grant_expired)\n");
	contains(r.out, "grant: none\n");
	contains(r.out, "  notes (auto): ruled out: the session's taint secret "
	    "is above its max_taint private\n");
	run_free(&r);
	r = run("read_file", "{\"path\":\"/home/kyle/x\"}", "--config",
	    f->config, "--now", NOW, NULL);
	assert_int_equal(r.status, 0);
	contains(r.out, "outcome: denied (grant_expired)\n");
	contains(r.out, "  notes (auto): ruled out: path /home/kyle/x is not "
	    "inside its paths [/home/kyle/notes]\n");
	run_free(&r);
	r = run("--config", f->config, "shell", "{\"command\":\"ls\"}", NULL);
	contains(r.out, "outcome: denied (no_grant)\n");
	contains(r.out, "candidates: none (no grant for shell)\n");
	run_free(&r);
	r = run("--config", f->config, "read_file", "{\"path\":\"a\"}", NULL);
	contains(r.out, "outcome: denied (invalid_arguments)\n");
	contains(r.out, "arguments: field \"path\": not an absolute path");
	run_free(&r);
}

/* Each tool's "not covered" names the argument and what it was held to. */
static void
test_not_covered(void **state)
{
	struct fixture *f = *state;
	struct run r;

	fixture_grant(f->grants, "sh", "shell", "auto", "secret", LATER, "");
	fixture_grant(f->grants, "sh-build", "shell", "auto", "secret", LATER,
	    "paths = [\"/srv/build\"]");
	fixture_grant(f->grants, "web", "http_fetch", "auto", "secret", LATER,
	    "hosts = [\"*.example.com\"]");
	fixture_grant(f->grants, "drafts", "write_file", "auto", "secret",
	    LATER, "paths = [\"/srv/drafts\"]");
	r = run("--config", f->config, "--now", NOW, "shell",
	    "{\"command\":\"ls\",\"cwd\":\"/tmp\"}", NULL);
	contains(r.out, "  sh (auto): ruled out: it has no paths, so it covers "
	    "only calls without cwd\n");
	contains(r.out, "  sh-build (auto): ruled out: cwd /tmp is not inside "
	    "its paths [/srv/build]\n");
	run_free(&r);
	r = run("--config", f->config, "--now", NOW, "shell",
	    "{\"command\":\"ls\"}", NULL);
	contains(r.out, "outcome: allowed\n");
	contains(r.out, "  sh-build (auto): ruled out: the call names no cwd, "
	    "and it covers only a cwd inside its paths [/srv/build]\n");
	run_free(&r);
	r = run("--config", f->config, "--now", NOW, "http_fetch",
	    "{\"url\":\"https://example.com/\"}", NULL);
	contains(r.out, "  web (auto): ruled out: host example.com matches "
	    "none of its hosts [*.example.com]\n");
	run_free(&r);
	r = run("--config", f->config, "--now", NOW, "write_file",
	    "{\"path\":\"/srv/drafts\",\"content\":\"\"}", NULL);
	contains(r.out, "  drafts (auto): ruled out: path /srv/drafts is its "
	    "grant path itself, and write_file writes only below one\n");
	run_free(&r);
}

static void
test_json(void **state)
{
	struct fixture *f = *state;
	json_error_t jerr;
	json_t *obj, *c;
	struct run r;

	r = run("--config", f->config, "--now", NOW, "--json", "read_file",
	    "{\"path\":\"/home/kyle/notes/a.md\"}", NULL);
	assert_int_equal(r.status, 0);
	assert_non_null(strchr(r.out, '\n'));
	assert_int_equal(strchr(r.out, '\n')[1], '\0');
	obj = json_loads(r.out, JSON_REJECT_DUPLICATES, &jerr);
	assert_non_null(obj);
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    obj, "outcome"), "outcome")), "allowed");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    obj, "grant"), "id")), "notes");
	assert_string_equal(json_string_value(json_object_get(json_object_get(
	    obj, "grant"), "matched_path")), "/home/kyle/notes");
	assert_int_equal(json_array_size(json_object_get(obj, "candidates")),
	    2);
	c = json_array_get(json_object_get(obj, "candidates"), 1);
	assert_string_equal(json_string_value(json_object_get(c, "id")), "old");
	assert_string_equal(json_string_value(json_object_get(c, "verdict")),
	    "expired");
	assert_true(json_is_true(json_object_get(c, "expired")));
	assert_true(json_is_true(json_object_get(c, "covered")));
	assert_true(json_is_null(json_object_get(obj, "runbook")));
	json_decref(obj);
	run_free(&r);
}

static void
test_grants_invalid(void **state)
{
	struct fixture *f = *state;
	json_error_t jerr;
	json_t *obj, *p;
	struct run r;

	fixture_text(f->grants, "typo.toml", "tool = \"read_file\"\nmod = 1\n");
	r = run("--config", f->config, "read_file",
	    "{\"path\":\"/home/kyle/notes/a.md\"}", NULL);
	assert_int_equal(r.status, 0);
	contains(r.out, "outcome: denied (grants_invalid)\n");
	contains(r.out, "typo.toml:2: unknown field \"mod\"\n");
	contains(r.out, "see docs/runbook.md#grants-invalid\n");
	run_free(&r);
	r = run("--json", "--config", f->config, "read_file",
	    "{\"path\":\"/home/kyle/notes/a.md\"}", NULL);
	obj = json_loads(r.out, 0, &jerr);
	assert_non_null(obj);
	/* Sorted by line: the missing fields (no line) come first. */
	p = json_array_get(json_object_get(obj, "problems"), 0);
	assert_true(json_is_null(json_object_get(p, "line")));
	p = json_array_get(json_object_get(obj, "problems"),
	    json_array_size(json_object_get(obj, "problems")) - 1);
	assert_int_equal(json_integer_value(json_object_get(p, "line")), 2);
	assert_string_equal(json_string_value(json_object_get(p, "problem")),
	    "unknown field \"mod\"");
	assert_string_equal(json_string_value(json_object_get(obj, "runbook")),
	    "see docs/runbook.md#grants-invalid");
	json_decref(obj);
	run_free(&r);
}

static void
test_usage(void **state)
{
	struct fixture *f = *state;
	struct run r;

	(void)f;
	r = run("read_file", NULL);
	assert_int_equal(r.status, 2);
	contains(r.errs, "usage: brokerd explain");
	run_free(&r);
	r = run("--config", f->config, "read_file", NULL);
	assert_int_equal(r.status, 2);
	run_free(&r);
	r = run("--config", f->config, "read_file", "{}", "extra", NULL);
	assert_int_equal(r.status, 2);
	run_free(&r);
	r = run("--config", f->config, "--bogus", "read_file", "{}", NULL);
	assert_int_equal(r.status, 2);
	run_free(&r);
	r = run("--config", f->config, "--taint", "top", "read_file", "{}",
	    NULL);
	assert_int_equal(r.status, 2);
	contains(r.errs, "--taint");
	run_free(&r);
	r = run("--config", f->config, "--now", "yesterday", "read_file", "{}",
	    NULL);
	assert_int_equal(r.status, 2);
	run_free(&r);
	r = run("--config", NULL);
	assert_int_equal(r.status, 2);
	run_free(&r);
}

static void
test_bad_config(void **state)
{
	struct fixture *f = *state;
	struct run r;

	fixture_text(f->home, "brokerd.toml", "[paths]\nhomes = \"/x\"\n");
	r = run("--config", f->config, "read_file", "{}", NULL);
	assert_int_equal(r.status, 1);
	contains(r.errs, "brokerd.toml:2: unknown key \"paths.homes\"");
	assert_string_equal(r.out, "");
	run_free(&r);
}

/* A TOOL JSON cannot carry is said to be so, not "out of memory". */
static void
test_json_tool_not_utf8(void **state)
{
	struct fixture *f = *state;
	struct run r;

	r = run("--config", f->config, "--json", "read\xff", "{}", NULL);
	assert_int_equal(r.status, 1);
	assert_string_equal(r.out, "");
	contains(r.errs, "brokerd explain: TOOL is not UTF-8");
	run_free(&r);
	r = run("--config", f->config, "read\xff", "{}", NULL);
	assert_int_equal(r.status, 0);
	contains(r.out, "outcome: denied (invalid_arguments)\n");
	run_free(&r);
}

static size_t
count_entries(const char *dir)
{
	struct dirent *de;
	size_t n = 0;
	DIR *d = opendir(dir);

	assert_non_null(d);
	while ((de = readdir(d)) != NULL)
		n++;
	closedir(d);
	return n;
}

/* Nothing is written: the home holds what it held before. */
static void
test_writes_nothing(void **state)
{
	struct fixture *f = *state;
	size_t home = count_entries(f->home), grants = count_entries(f->grants);
	struct run r;

	r = run("--config", f->config, "read_file",
	    "{\"path\":\"/home/kyle/notes/a.md\"}", NULL);
	assert_int_equal(r.status, 0);
	run_free(&r);
	assert_int_equal(count_entries(f->home), home);
	assert_int_equal(count_entries(f->grants), grants);
}

#define T(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_text),
		T(test_not_covered),
		T(test_json),
		T(test_grants_invalid),
		T(test_usage),
		T(test_bad_config),
		T(test_json_tool_not_utf8),
		T(test_writes_nothing),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
