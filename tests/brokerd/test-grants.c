/*
 * test-grants.c: loading the grants directory (design section 3, "Files"
 * and "Loading"): one case per loading rule with the text its problem must
 * contain, the fields of a valid grant, and the set as a whole.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "brokerd/grants.h"
#include "grants-fixture.h"
#include "proto/sha256.h"

#define HEAD	"tool = \"read_file\"\nmode = \"auto\"\n" \
		"max_taint = \"secret\"\nresult_class = \"private\"\n"
#define EXPIRES	"expires = \"2027-01-01T00:00:00.000Z\"\n"
#define PATHS	"[constraints]\npaths = [\"/home/kyle/notes\"]\n"
#define GOOD	HEAD EXPIRES PATHS

/*
 * getdents64() as grants.c calls it, made to list at most
 * listing_fail_after entries and then fail with EIO, while that is not -1.
 */
static int listing_fail_after = -1;

ssize_t
getdents64(int fd, void *buf, size_t len)
{
	static ssize_t (*real)(int, void *, size_t);
	struct dirent64 *de;
	ssize_t n, off = 0;

	if (real == NULL)
		*(void **)&real = dlsym(RTLD_NEXT, "getdents64");
	if (listing_fail_after == 0) {
		errno = EIO;
		return -1;
	}
	n = real(fd, buf, len);
	if (listing_fail_after < 0 || n <= 0)
		return n;
	/* Only the first listing_fail_after entries of what was read. */
	while (off < n && listing_fail_after > 0) {
		de = (struct dirent64 *)((char *)buf + off);
		off += de->d_reclen;
		listing_fail_after--;
	}
	return off;
}

static struct grants *
load(const char *dir)
{
	struct grants *g = NULL;
	struct bx_error err;

	if (grants_load(dir, &g, &err) != 0)
		fail_msg("grants_load: %s", err.msg);
	return g;
}

/*
 * The set made of the one file name holding len bytes of buf must be
 * invalid, with a problem of that file containing want, at line (0: no
 * line; -1: any).
 */
static void
expect_bytes(const char *name, const char *buf, size_t len, const char *want,
    int line)
{
	char *dir = fixture_dir(), text[2048];
	struct grants *g;
	size_t i;

	fixture_write(dir, name, buf, len);
	g = load(dir);
	assert_false(grants_valid(g));
	assert_int_equal(g->gs_len, 0);
	for (i = 0; i < g->gs_nproblems; i++) {
		grants_problem_format(&g->gs_problems[i], text, sizeof(text));
		if (strstr(g->gs_problems[i].gp_problem, want) != NULL &&
		    (line == -1 || g->gs_problems[i].gp_line == line))
			break;
	}
	if (i == g->gs_nproblems) {
		for (i = 0; i < g->gs_nproblems; i++) {
			grants_problem_format(&g->gs_problems[i], text,
			    sizeof(text));
			print_error("problem: %s\n", text);
		}
		fail_msg("%s: no problem \"%s\" at line %d", name, want, line);
	}
	assert_non_null(strstr(g->gs_problems[i].gp_file, name));
	assert_non_null(strstr(g->gs_problems[i].gp_file, dir));
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

static void
expect(const char *name, const char *text, const char *want, int line)
{
	expect_bytes(name, text, strlen(text), want, line);
}

/* Rule 1: cannot be read. As root modes do not stop reads: a directory. */
static void
test_rule1_unreadable(void **state)
{
	char *dir = fixture_dir(), *sub;
	struct grants *g;

	(void)state;
	assert_true(asprintf(&sub, "%s/x.toml", dir) > 0);
	assert_int_equal(mkdir(sub, 0700), 0);
	g = load(dir);
	assert_false(grants_valid(g));
	assert_int_equal(g->gs_nproblems, 1);
	assert_string_equal(g->gs_problems[0].gp_file, sub);
	assert_int_equal(g->gs_problems[0].gp_line, 0);
	assert_non_null(strstr(g->gs_problems[0].gp_problem,
	    "not a regular file"));
	grants_free(g);
	free(sub);
	fixture_remove(dir);
	free(dir);
}

/* A FIFO must be a problem, not a hang. */
static void
test_rule1_fifo(void **state)
{
	char *dir = fixture_dir(), *path;
	struct grants *g;

	(void)state;
	assert_true(asprintf(&path, "%s/pipe.toml", dir) > 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	g = load(dir);
	assert_int_equal(g->gs_nproblems, 1);
	assert_non_null(strstr(g->gs_problems[0].gp_problem,
	    "not a regular file"));
	grants_free(g);
	free(path);
	fixture_remove(dir);
	free(dir);
}

static void
test_rule1_not_utf8(void **state)
{
	static const char bad[] = HEAD "# caf\xe9\n" EXPIRES PATHS;

	(void)state;
	expect_bytes("x.toml", bad, sizeof(bad) - 1, "invalid UTF-8", 5);
	expect("x.toml", HEAD "# \xed\xa0\x80 surrogate\n" EXPIRES PATHS,
	    "invalid UTF-8", 5);
	expect("x.toml", HEAD "# \xc0\xaf overlong\n" EXPIRES PATHS,
	    "invalid UTF-8", 5);
}

/* What a problem quotes from the file or its name cannot hold a control. */
static void
test_problem_text_printable(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;
	size_t i;
	const char *c;

	(void)state;
	fixture_text(dir, "a\x1b[2J.toml", GOOD);
	fixture_text(dir, "b.toml", HEAD EXPIRES "\"k\\u001b]0;t\\u0007\" = 1\n"
	    "[constraints]\npaths = [\"x\\n\\u0085\"]\n");
	g = load(dir);
	assert_false(grants_valid(g));
	for (i = 0; i < g->gs_nproblems; i++)
		for (c = g->gs_problems[i].gp_problem; *c != '\0'; c++)
			assert_true((unsigned char)*c >= 0x20 && *c != 0x7f &&
			    ((unsigned char)*c != 0xc2 ||
			    (unsigned char)c[1] > 0x9f));
	assert_non_null(strstr(g->gs_problems[0].gp_file,
	    "/a\\u001B[2J.toml"));
	assert_non_null(strstr(g->gs_problems[2].gp_problem,
	    "\"x\\u000A\\u0085\" is not a valid absolute path"));
	assert_string_equal(g->gs_problems[1].gp_problem,
	    "unknown field \"k\\u001B]0;t\\u0007\"");
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

static void
test_rule1_not_toml(void **state)
{
	(void)state;
	expect("x.toml", HEAD "expires = \n" PATHS, "", 5);
	expect("x.toml", HEAD EXPIRES "mode = \"ask\"\n" PATHS, "", -1);
}

static void
test_rule1_unknown_field(void **state)
{
	(void)state;
	expect("x.toml", HEAD EXPIRES "colour = \"blue\"\n" PATHS,
	    "unknown field \"colour\"", 6);
	expect("x.toml", GOOD "path = \"/a\"\n",
	    "unknown field \"constraints.path\"", 8);
	expect("x.toml", GOOD "[extra]\n", "unknown field \"extra\"", 8);
	/* A key holding a NUL is not the field its C string would name. */
	expect("x.toml", GOOD "\"paths\\u0000x\" = [\"/\"]\n",
	    "unknown field \"constraints.paths\\u0000x\"", 8);
	expect("x.toml", "\"tool\\u0000\" = \"shell\"\n" GOOD,
	    "unknown field \"tool\\u0000\"", 1);
}

static void
test_rule1_fields(void **state)
{
	(void)state;
	expect("x.toml", "mode = \"auto\"\nmax_taint = \"secret\"\n"
	    "result_class = \"private\"\n" EXPIRES PATHS,
	    "missing required field \"tool\"", 0);
	expect("x.toml", HEAD PATHS, "missing required field \"expires\"", 0);
	expect("x.toml", "tool = \"read_file\"\nmode = \"sometimes\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES
	    PATHS, "mode \"sometimes\" is not auto, ask or deny", 2);
	expect("x.toml", "tool = \"read_file\"\nmode = \"auto\"\n"
	    "max_taint = \"top\"\nresult_class = \"private\"\n" EXPIRES PATHS,
	    "field \"max_taint\"", 3);
	expect("x.toml", "tool = \"read_file\"\nmode = 1\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES
	    PATHS, "field \"mode\" must be a string", 2);
	expect("x.toml", HEAD "untrusted = \"no\"\n" EXPIRES PATHS,
	    "field \"untrusted\" must be a boolean", 5);
	expect("x.toml", HEAD EXPIRES "[constraints]\npaths = \"/a\"\n",
	    "field \"constraints.paths\" must be an array", 7);
	expect("x.toml", HEAD EXPIRES "[constraints]\npaths = [1]\n",
	    "field \"constraints.paths\" must be a string", 7);
	expect("x.toml", HEAD EXPIRES "constraints = 3\n",
	    "field \"constraints\" must be a table", 6);
	expect("x.toml", HEAD "expires = \"2027-01-01\"\n" PATHS,
	    "field \"expires\"", 5);
}

/* baseline.md section 4: a bare datetime is an error that says to quote it. */
static void
test_rule1_bare_datetime(void **state)
{
	(void)state;
	expect("x.toml", HEAD "expires = 2027-01-01T00:00:00.000Z\n" PATHS,
	    "quote it", 5);
	expect("x.toml", HEAD "expires = 2027-01-01\n" PATHS, "quote it", 5);
}

static void
test_rule2_stem(void **state)
{
	char name[80];

	(void)state;
	expect("Notes.toml", GOOD, "not a valid grant id", 0);
	expect("notes_read.toml", GOOD, "not a valid grant id", 0);
	expect(".toml", GOOD, "not a valid grant id", 0);
	memset(name, 'a', 65);
	memcpy(name + 65, ".toml", 6);
	expect(name, GOOD, "not a valid grant id", 0);
}

static void
test_rule3_tool(void **state)
{
	(void)state;
	expect("x.toml", "tool = \"exec\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES
	    PATHS, "tool \"exec\" is not one of read_file, write_file, shell, "
	    "http_fetch", 1);
}


static void
test_rule5_patterns(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	expect("x.toml", GOOD "patterns = [\"rm *\"]\n",
	    "patterns are not supported", 8);
	/* An empty list is the default and is fine. */
	fixture_text(dir, "x.toml", GOOD "patterns = []\n");
	g = load(dir);
	assert_true(grants_valid(g));
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

static void
valid(const char *text)
{
	char *dir = fixture_dir();
	struct grants *g;

	fixture_text(dir, "x.toml", text);
	g = load(dir);
	if (!grants_valid(g))
		fail_msg("%s: %s", text, g->gs_problems[0].gp_problem);
	assert_int_equal(g->gs_len, 1);
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

#define TOOL(t)	"tool = \"" t "\"\nmode = \"auto\"\nmax_taint = \"secret\"\n" \
		"result_class = \"private\"\n" EXPIRES

#define FETCH	"tool = \"http_fetch\"\nmode = \"auto\"\n" \
		"max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES

/* Rule 4: a secret only on http_fetch, to exact hosts, by a valid name. */
static void
test_rule4_secret(void **state)
{
	(void)state;
	expect("x.toml", HEAD "secret = \"api-key\"\n" EXPIRES PATHS,
	    "secret is only for http_fetch", 5);
	expect("x.toml", "tool = \"shell\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES
	    "secret = \"api-key\"\n", "secret is only for http_fetch", 6);
	expect("x.toml", FETCH "secret = \"github\"\n[constraints]\n"
	    "hosts = [\"api.github.com\", \"*.github.com\"]\n",
	    "a grant with a secret names exact hosts, not patterns", 8);
	expect("x.toml", FETCH "secret = \"GitHub\"\n[constraints]\n"
	    "hosts = [\"api.github.com\"]\n",
	    "field \"secret\" is not a valid secret name", 6);
	expect("x.toml", FETCH "secret = \"\"\n[constraints]\n"
	    "hosts = [\"api.github.com\"]\n",
	    "field \"secret\" is not a valid secret name", 6);
	expect("x.toml", FETCH "secret = \"../github\"\n[constraints]\n"
	    "hosts = [\"api.github.com\"]\n",
	    "field \"secret\" is not a valid secret name", 6);
	expect("x.toml", FETCH "secret = 7\n[constraints]\n"
	    "hosts = [\"api.github.com\"]\n",
	    "field \"secret\" must be a string, not integer", 6);
	/* A tool that is not one of the four says only that. */
	expect("x.toml", "tool = \"exec\"\nmode = \"auto\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES
	    "secret = \"api-key\"\n", "is not one of", 1);
}

/* A valid secret grant keeps the name; loading reads no secret file. */
static void
test_rule4_secret_valid(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	fixture_text(dir, "gh.toml", FETCH "secret = \"github\"\n"
	    "[constraints]\nhosts = [\"api.github.com\", \"uploads.github.com\"]\n");
	fixture_text(dir, "plain.toml", FETCH "[constraints]\n"
	    "hosts = [\"*.example.org\"]\n");
	g = load(dir);
	if (!grants_valid(g))
		fail_msg("%s", g->gs_problems[0].gp_problem);
	assert_int_equal(g->gs_len, 2);
	assert_string_equal(g->gs_grants[0].g_id, "gh");
	assert_non_null(grant_secret(&g->gs_grants[0]));
	assert_string_equal(grant_secret(&g->gs_grants[0]), "github");
	assert_string_equal(g->gs_grants[1].g_id, "plain");
	assert_null(grant_secret(&g->gs_grants[1]));
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

/* Rule 6, every cell of its table. */
static void
test_rule6_constraints(void **state)
{
	(void)state;
	expect("x.toml", TOOL("read_file"), "a read_file grant requires "
	    "constraints.paths", 0);
	expect("x.toml", TOOL("read_file") "[constraints]\npaths = []\n",
	    "a read_file grant requires constraints.paths", 7);
	expect("x.toml", TOOL("read_file") PATHS "hosts = [\"a.com\"]\n",
	    "a read_file grant takes no constraints.hosts", 8);
	expect("x.toml", TOOL("write_file"), "a write_file grant requires "
	    "constraints.paths", 0);
	expect("x.toml", TOOL("write_file") PATHS "hosts = [\"a.com\"]\n",
	    "a write_file grant takes no constraints.hosts", 8);
	valid(TOOL("shell"));
	valid(TOOL("shell") PATHS);
	expect("x.toml", TOOL("shell") "[constraints]\nhosts = [\"a.com\"]\n",
	    "a shell grant takes no constraints.hosts", 7);
	expect("x.toml", TOOL("http_fetch") "[constraints]\n"
	    "hosts = [\"a.com\"]\npaths = [\"/a\"]\n",
	    "a http_fetch grant takes no constraints.paths", 8);
	expect("x.toml", TOOL("http_fetch"), "a http_fetch grant requires "
	    "constraints.hosts", 0);
	valid(TOOL("http_fetch") "[constraints]\nhosts = [\"a.com\"]\n"
	    "paths = []\n");
	valid(TOOL("read_file") PATHS "hosts = []\n");
}

static void
test_rule7_paths(void **state)
{
	(void)state;
	expect("x.toml", TOOL("read_file") "[constraints]\n"
	    "paths = [\"/home/kyle/notes/../x\"]\n",
	    "constraints.paths: \"/home/kyle/notes/../x\" is not a valid "
	    "absolute path", 7);
	expect("x.toml", TOOL("read_file") "[constraints]\n"
	    "paths = [\"/a\",\n \"notes\"]\n", "is not a valid absolute path", 8);
	expect("x.toml", TOOL("read_file") "[constraints]\n"
	    "paths = [\"/a/\"]\n", "is not a valid absolute path", 7);
	expect("x.toml", TOOL("read_file") "[constraints]\n"
	    "paths = [\"/a\\u0000b\"]\n", "contains a NUL", 7);
}

static void
test_rule8_hosts(void **state)
{
	(void)state;
	expect("x.toml", TOOL("http_fetch") "[constraints]\n"
	    "hosts = [\"Example.com\"]\n", "constraints.hosts: \"Example.com\" "
	    "is not a valid host pattern", 7);
	expect("x.toml", TOOL("http_fetch") "[constraints]\n"
	    "hosts = [\"*example.com\"]\n", "is not a valid host pattern", 7);
	expect("x.toml", TOOL("http_fetch") "[constraints]\n"
	    "hosts = [\"10.0.0.1\"]\n", "is not a valid host pattern", 7);
}

static void
test_valid_grant(void **state)
{
	static const char text[] = "tool = \"http_fetch\"\nmode = \"ask\"\n"
	    "max_taint = \"private\"\nresult_class = \"public\"\n"
	    "untrusted = true\nexpires = \"2027-01-01T00:00:00.000Z\"\n\n"
	    "[constraints]\nhosts = [\"example.org\", \"*.example.org\"]\n";
	char *dir = fixture_dir();
	struct bx_hash want, got;
	struct bx_error err;
	struct grants *g;
	const struct grant *gr;
	int64_t expires;

	(void)state;
	fixture_text(dir, "docs-fetch.toml", text);
	g = load(dir);
	assert_true(grants_valid(g));
	assert_int_equal(g->gs_len, 1);
	gr = &g->gs_grants[0];
	assert_string_equal(gr->g_id, "docs-fetch");
	assert_int_equal(gr->g_tool, BX_TOOL_HTTP_FETCH);
	assert_int_equal(gr->g_mode, GRANT_MODE_ASK);
	assert_int_equal(gr->g_max_taint, BX_CLASS_PRIVATE);
	assert_int_equal(gr->g_result_class, BX_CLASS_PUBLIC);
	assert_true(gr->g_untrusted);
	assert_int_equal(bx_time_parse("2027-01-01T00:00:00.000Z", &expires,
	    &err), 0);
	assert_true(gr->g_expires == expires);
	assert_int_equal(gr->g_npaths, 0);
	assert_int_equal(gr->g_nhosts, 2);
	assert_string_equal(gr->g_hosts[0], "example.org");
	assert_string_equal(gr->g_hosts[1], "*.example.org");
	assert_int_equal(bx_sha256(text, sizeof(text) - 1, &want, &err), 0);
	assert_int_equal(grant_sha256(gr, &got, &err), 0);
	assert_true(bx_hash_equal(&got, &want));
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

/* untrusted defaults to false; constraints default to empty. */
static void
test_defaults(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	fixture_text(dir, "sh.toml", TOOL("shell"));
	g = load(dir);
	assert_true(grants_valid(g));
	assert_false(g->gs_grants[0].g_untrusted);
	assert_int_equal(g->gs_grants[0].g_npaths, 0);
	assert_int_equal(g->gs_grants[0].g_nhosts, 0);
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

/* Files not ending in .toml are ignored; the set is sorted by id. */
static void
test_directory(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	fixture_text(dir, "zeta.toml", GOOD);
	fixture_text(dir, "alpha.toml", GOOD);
	fixture_text(dir, "b-2.toml", GOOD);
	fixture_text(dir, "README", "not a grant");
	fixture_text(dir, "alpha.toml~", "not a grant");
	fixture_text(dir, "alpha.toml.swp", "not a grant");
	fixture_text(dir, "x.TOML", "not a grant");
	g = load(dir);
	assert_true(grants_valid(g));
	assert_int_equal(g->gs_len, 3);
	assert_string_equal(g->gs_grants[0].g_id, "alpha");
	assert_string_equal(g->gs_grants[1].g_id, "b-2");
	assert_string_equal(g->gs_grants[2].g_id, "zeta");
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

/* No cache: each load sees the directory as it is now. */
static void
test_no_cache(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	g = load(dir);
	assert_true(grants_valid(g));
	assert_int_equal(g->gs_len, 0);
	grants_free(g);
	fixture_text(dir, "a.toml", GOOD);
	g = load(dir);
	assert_int_equal(g->gs_len, 1);
	assert_int_equal(g->gs_grants[0].g_mode, GRANT_MODE_AUTO);
	grants_free(g);
	fixture_text(dir, "a.toml", "tool = \"read_file\"\nmode = \"deny\"\n"
	    "max_taint = \"secret\"\nresult_class = \"private\"\n" EXPIRES
	    PATHS);
	g = load(dir);
	assert_int_equal(g->gs_grants[0].g_mode, GRANT_MODE_DENY);
	grants_free(g);
	fixture_unlink(dir, "a.toml");
	g = load(dir);
	assert_int_equal(g->gs_len, 0);
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

/* A listing that fails part way must not leave out the files after it. */
static void
test_listing_fails(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	fixture_text(dir, "a.toml", GOOD);
	fixture_text(dir, "b.toml", GOOD);
	listing_fail_after = 1;
	g = load(dir);
	listing_fail_after = -1;
	assert_false(grants_valid(g));
	assert_string_equal(g->gs_problems[g->gs_nproblems - 1].gp_file, dir);
	assert_non_null(strstr(g->gs_problems[g->gs_nproblems - 1].gp_problem,
	    "the grants directory cannot be read: Input/output error"));
	grants_free(g);
	g = load(dir);
	assert_true(grants_valid(g));
	assert_int_equal(g->gs_len, 2);
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

static void
test_missing_directory(void **state)
{
	struct grants *g;

	(void)state;
	g = load("/nonexistent/grants");
	assert_false(grants_valid(g));
	assert_int_equal(g->gs_nproblems, 1);
	assert_string_equal(g->gs_problems[0].gp_file, "/nonexistent/grants");
	assert_non_null(strstr(g->gs_problems[0].gp_problem,
	    "grants directory cannot be read"));
	grants_free(g);
}

/* One invalid file makes the set invalid; its valid neighbours stay. */
static void
test_one_invalid(void **state)
{
	char *dir = fixture_dir();
	struct grants *g;

	(void)state;
	fixture_text(dir, "good.toml", GOOD);
	fixture_text(dir, "bad.toml", GOOD "patterns = [\"x\"]\n");
	g = load(dir);
	assert_false(grants_valid(g));
	assert_int_equal(g->gs_len, 1);
	assert_int_equal(g->gs_nproblems, 1);
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

/* Problems are sorted, formatted with and without a line, fingerprinted. */
static void
test_problems(void **state)
{
	struct bx_hash h1, h2, h3, zero;
	struct grants *a, *b, *c;
	struct bx_error err;
	char text[256];

	(void)state;
	assert_int_equal(grants_new(&a, &err), 0);
	assert_int_equal(grants_new(&b, &err), 0);
	assert_int_equal(grants_new(&c, &err), 0);
	assert_int_equal(grants_add_problem(a, "/g/b.toml", 3, "p2", &err), 0);
	assert_int_equal(grants_add_problem(a, "/g/a.toml", 0, "p1", &err), 0);
	assert_int_equal(grants_add_problem(b, "/g/a.toml", 0, "p1", &err), 0);
	assert_int_equal(grants_add_problem(b, "/g/b.toml", 3, "p2", &err), 0);
	assert_int_equal(grants_add_problem(c, "/g/b.toml", 4, "p2", &err), 0);
	assert_int_equal(grants_add_problem(c, "/g/a.toml", 0, "p1", &err), 0);
	grants_finish(a);
	grants_finish(b);
	grants_finish(c);
	assert_int_equal(grants_add_problem(a, "/g/c.toml", 1, "x", &err), -1);
	assert_string_equal(a->gs_problems[0].gp_file, "/g/a.toml");
	grants_problem_format(&a->gs_problems[0], text, sizeof(text));
	assert_string_equal(text, "/g/a.toml: p1");
	grants_problem_format(&a->gs_problems[1], text, sizeof(text));
	assert_string_equal(text, "/g/b.toml:3: p2");
	assert_int_equal(grants_fingerprint(a, &h1, &err), 0);
	assert_int_equal(grants_fingerprint(b, &h2, &err), 0);
	assert_int_equal(grants_fingerprint(c, &h3, &err), 0);
	assert_true(bx_hash_equal(&h1, &h2));
	assert_false(bx_hash_equal(&h1, &h3));
	assert_false(bx_hash_is_zero(&h1));
	grants_free(a);
	grants_free(b);
	grants_free(c);
	assert_int_equal(grants_new(&a, &err), 0);
	grants_finish(a);
	assert_int_equal(grants_fingerprint(a, &zero, &err), 0);
	assert_true(bx_hash_is_zero(&zero));
	grants_free(a);
	grants_free(NULL);
}

/* The same directory read twice gives the same fingerprint. */
static void
test_fingerprint_stable(void **state)
{
	char *dir = fixture_dir();
	struct bx_hash h1, h2;
	struct bx_error err;
	struct grants *g;

	(void)state;
	fixture_text(dir, "a.toml", GOOD "patterns = [\"x\"]\n");
	fixture_text(dir, "b.toml", "nonsense");
	g = load(dir);
	assert_int_equal(grants_fingerprint(g, &h1, &err), 0);
	grants_free(g);
	g = load(dir);
	assert_int_equal(grants_fingerprint(g, &h2, &err), 0);
	assert_true(bx_hash_equal(&h1, &h2));
	grants_free(g);
	fixture_remove(dir);
	free(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule1_unreadable),
		cmocka_unit_test(test_rule1_fifo),
		cmocka_unit_test(test_rule1_not_utf8),
		cmocka_unit_test(test_problem_text_printable),
		cmocka_unit_test(test_rule1_not_toml),
		cmocka_unit_test(test_rule1_unknown_field),
		cmocka_unit_test(test_rule1_fields),
		cmocka_unit_test(test_rule1_bare_datetime),
		cmocka_unit_test(test_rule2_stem),
		cmocka_unit_test(test_rule3_tool),
		cmocka_unit_test(test_rule4_secret),
		cmocka_unit_test(test_rule4_secret_valid),
		cmocka_unit_test(test_rule5_patterns),
		cmocka_unit_test(test_rule6_constraints),
		cmocka_unit_test(test_rule7_paths),
		cmocka_unit_test(test_rule8_hosts),
		cmocka_unit_test(test_valid_grant),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_directory),
		cmocka_unit_test(test_no_cache),
		cmocka_unit_test(test_listing_fails),
		cmocka_unit_test(test_missing_directory),
		cmocka_unit_test(test_one_invalid),
		cmocka_unit_test(test_problems),
		cmocka_unit_test(test_fingerprint_stable),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
