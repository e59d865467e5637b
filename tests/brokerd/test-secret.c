/*
 * test-secret.c: secret files (brokerd/secret.h): each kind loads and
 * says what it sends; where a file may live (modes, owners, symbolic
 * links, what is not a file); every rule of the format, each problem with
 * its file and line; and, for every problem of every case, that no
 * message holds the value or what may be it. Then secret_check_grant(),
 * what `bxctl grants check` will report for a grant that names a secret.
 *
 * The tests run as root, so file modes do not stop a read: an unreadable
 * file is a directory or bytes that are not UTF-8 in the file's place.
 */
#include <sys/stat.h>

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
#include "brokerd/secret.h"
#include "brokerd/secret_call.h"
#include "freecheck.h"
#include "grants-fixture.h"
#include "secret-fixture.h"

/* The value every well-formed case uses; no message may ever hold it. */
#define VALUE		"ghp_s3cretVALUEx9"
#define HOSTS		"hosts = [\"api.github.com\", \"uploads.github.com\"]\n"
#define BEARER		"kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\"\n"
#define NOBODY		65534

#define MAX_PROBLEMS	32

/* What a sink was told. */
struct seen {
	int	 n;
	char	*file[MAX_PROBLEMS];
	int64_t	 line[MAX_PROBLEMS];
	char	*text[MAX_PROBLEMS];
};

static int
collect(void *ctx, const char *file, int64_t line, const char *problem)
{
	struct seen *s = ctx;

	if (s->n == MAX_PROBLEMS)
		fail_msg("more than %d problems", MAX_PROBLEMS);
	s->file[s->n] = strdup(file);
	s->line[s->n] = line;
	s->text[s->n] = strdup(problem);
	s->n++;
	return 0;
}

static void
seen_clear(struct seen *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->file[i]);
		free(s->text[i]);
	}
	memset(s, 0, sizeof(*s));
}

static void
path_of(char *buf, size_t len, const char *dir, const char *name)
{
	snprintf(buf, len, "%s/secrets/%s.toml", dir, name);
}

static void
done(char *dir)
{
	fixture_remove(dir);
	free(dir);
}

/* Fails when any message of s holds hidden (NULL: only VALUE). */
static void
assert_hidden(const struct seen *s, const char *hidden)
{
	int i;

	for (i = 0; i < s->n; i++) {
		if (strstr(s->text[i], VALUE) != NULL ||
		    strstr(s->file[i], VALUE) != NULL)
			fail_msg("the value is in \"%s\"", s->text[i]);
		if (hidden != NULL && strstr(s->text[i], hidden) != NULL)
			fail_msg("\"%s\" is in \"%s\"", hidden, s->text[i]);
	}
}

static struct secret *
load_ok(const char *dir, const char *name)
{
	struct secret *sec = NULL;
	struct bx_error err;

	if (secret_load(dir, name, &sec, &err) != 0)
		fail_msg("secret_load %s: %s", name, err.msg);
	return sec;
}

/*
 * Secret name of dir must not load: a problem containing want, at line
 * (-1: any), of file (NULL: the secret's own file), and no message may
 * hold VALUE or hidden. secret_load's one message says the same.
 */
static void
expect_in(const char *dir, const char *name, const char *file,
    const char *want, int64_t line, const char *hidden)
{
	struct seen s = { 0 };
	struct secret_sink sink = { collect, &s };
	struct secret *sec = NULL;
	struct bx_error err;
	char own[4096], prefix[4200];
	int i;

	path_of(own, sizeof(own), dir, name);
	if (file == NULL)
		file = own;
	assert_int_equal(secret_read(dir, name, &sink, &sec, &err), 1);
	assert_null(sec);
	assert_hidden(&s, hidden);
	for (i = 0; i < s.n; i++)
		if (strstr(s.text[i], want) != NULL &&
		    strcmp(s.file[i], file) == 0 &&
		    (line == -1 || s.line[i] == line))
			break;
	if (i == s.n) {
		for (i = 0; i < s.n; i++)
			print_error("problem: %s:%lld: %s\n", s.file[i],
			    (long long)s.line[i], s.text[i]);
		fail_msg("%s: no problem \"%s\" of %s at line %lld", name, want,
		    file, (long long)line);
	}
	/* The first problem, in "<file>:<line>: " form, and no value. */
	assert_int_equal(secret_load(dir, name, &sec, &err), -1);
	assert_null(sec);
	if (s.line[0] > 0)
		snprintf(prefix, sizeof(prefix), "%s:%lld: ", s.file[0],
		    (long long)s.line[0]);
	else
		snprintf(prefix, sizeof(prefix), "%s: ", s.file[0]);
	assert_memory_equal(err.msg, prefix, strlen(prefix));
	assert_null(strstr(err.msg, VALUE));
	if (hidden != NULL)
		assert_null(strstr(err.msg, hidden));
	seen_clear(&s);
}

/* The file text as secret "s" must not load, as expect_in says. */
static void
expect(const char *text, const char *want, int64_t line, const char *hidden)
{
	char *dir = fixture_config_dir();

	fixture_secret(dir, "s", text);
	expect_in(dir, "s", NULL, want, line, hidden);
	done(dir);
}

static void
test_bearer(void **state)
{
	char *dir = fixture_config_dir(), path[4096];
	struct secret *sec;

	(void)state;
	fixture_secret(dir, "github", "# the owner's token\n" BEARER);
	sec = load_ok(dir, "github");
	assert_string_equal(secret_name(sec), "github");
	path_of(path, sizeof(path), dir, "github");
	assert_string_equal(secret_file(sec), path);
	assert_int_equal(secret_kind(sec), SECRET_BEARER);
	assert_string_equal(secret_kind_name(secret_kind(sec)), "bearer");
	assert_int_equal(secret_nhosts(sec), 2);
	assert_string_equal(secret_host(sec, 0), "api.github.com");
	assert_string_equal(secret_host(sec, 1), "uploads.github.com");
	assert_null(secret_host(sec, 2));
	assert_int_equal(secret_hosts_line(sec), 3);
	assert_true(secret_has_host(sec, "api.github.com"));
	assert_true(secret_has_host(sec, "uploads.github.com"));
	assert_false(secret_has_host(sec, "github.com"));
	assert_false(secret_has_host(sec, "x.api.github.com"));
	assert_false(secret_has_host(sec, "API.github.com"));
	assert_string_equal(secret_header_name(sec), "Authorization");
	assert_string_equal(secret_header_value(sec), "Bearer " VALUE);
	assert_string_equal(secret_value(sec), VALUE);
	secret_free(sec);
	secret_free(NULL);
	done(dir);
}

static void
test_header(void **state)
{
	char *dir = fixture_config_dir();
	struct secret *sec;

	(void)state;
	fixture_secret(dir, "maps",
	    "header = \"X-Api-Key\"\nvalue = \"" VALUE "\"\n"
	    "kind = \"header\"\nhosts = [\"maps.example.com\"]\n");
	sec = load_ok(dir, "maps");
	assert_int_equal(secret_kind(sec), SECRET_HEADER);
	assert_string_equal(secret_header_name(sec), "X-Api-Key");
	assert_string_equal(secret_header_value(sec), VALUE);
	assert_int_equal(secret_hosts_line(sec), 4);
	secret_free(sec);
	/* Every tchar of RFC 9110 is allowed in the name. */
	fixture_secret(dir, "maps",
	    "kind = \"header\"\nhosts = [\"maps.example.com\"]\n"
	    "value = \"" VALUE "\"\nheader = \"x!#$%&'*+-.^_`|~Z9\"\n");
	sec = load_ok(dir, "maps");
	assert_string_equal(secret_header_name(sec), "x!#$%&'*+-.^_`|~Z9");
	secret_free(sec);
	done(dir);
}

/* RFC 7617's example: the header value is "Basic " and base64(user:value). */
static void
test_basic(void **state)
{
	char *dir = fixture_config_dir();
	struct secret *sec;

	(void)state;
	fixture_secret(dir, "lamp",
	    "kind = \"basic\"\nhosts = [\"lamp.example.com\"]\n"
	    "user = \"Aladdin\"\nvalue = \"open sesame\"\n");
	sec = load_ok(dir, "lamp");
	assert_int_equal(secret_kind(sec), SECRET_BASIC);
	assert_string_equal(secret_header_name(sec), "Authorization");
	assert_string_equal(secret_header_value(sec),
	    "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ==");
	assert_string_equal(secret_value(sec), "open sesame");
	secret_free(sec);
	done(dir);
}

/* A value at either limit, and a name of 64 characters. */
static void
test_limits(void **state)
{
	char *dir = fixture_config_dir(), name[66], text[4200], big[4097];
	struct secret *sec;

	(void)state;
	fixture_secret(dir, "short",
	    "kind = \"bearer\"\nhosts = [\"a.example\"]\n"
	    "value = \"12345678\"\n");
	sec = load_ok(dir, "short");
	assert_string_equal(secret_value(sec), "12345678");
	secret_free(sec);
	memset(big, 'v', 4096);
	big[4096] = '\0';
	snprintf(text, sizeof(text), "kind = \"bearer\"\nhosts = "
	    "[\"a.example\"]\nvalue = \"%s\"\n", big);
	fixture_secret(dir, "long", text);
	sec = load_ok(dir, "long");
	assert_int_equal(strlen(secret_value(sec)), 4096);
	secret_free(sec);
	memset(name, 'n', 64);
	name[64] = '\0';
	fixture_secret(dir, name, BEARER);
	sec = load_ok(dir, name);
	assert_string_equal(secret_name(sec), name);
	secret_free(sec);
	done(dir);
}

static void
test_missing(void **state)
{
	char *dir = fixture_config_dir(), sdir[4096];

	(void)state;
	expect_in(dir, "github", NULL, "there is no such secret file", 0,
	    NULL);
	snprintf(sdir, sizeof(sdir), "%s/secrets", dir);
	assert_int_equal(rmdir(sdir), 0);
	expect_in(dir, "github", NULL, "there is no secrets directory", 0,
	    NULL);
	done(dir);
}

static void
test_file_mode(void **state)
{
	char *dir = fixture_config_dir(), path[4096];

	(void)state;
	fixture_secret(dir, "github", BEARER);
	path_of(path, sizeof(path), dir, "github");
	assert_int_equal(chmod(path, 0644), 0);
	expect_in(dir, "github", NULL, "the secret file has mode 0644, not "
	    "0600", 0, NULL);
	assert_int_equal(chmod(path, 0400), 0);
	expect_in(dir, "github", NULL, "has mode 0400, not 0600", 0, NULL);
	assert_int_equal(chmod(path, 04600), 0);
	expect_in(dir, "github", NULL, "has mode 4600, not 0600", 0, NULL);
	done(dir);
}

static void
test_dir_mode(void **state)
{
	char *dir = fixture_config_dir(), sdir[4096];

	(void)state;
	fixture_secret(dir, "github", BEARER);
	snprintf(sdir, sizeof(sdir), "%s/secrets", dir);
	assert_int_equal(chmod(sdir, 0755), 0);
	expect_in(dir, "github", sdir, "the secrets directory has mode 0755, "
	    "not 0700", 0, NULL);
	assert_int_equal(chmod(sdir, 0711), 0);
	expect_in(dir, "github", sdir, "has mode 0711", 0, NULL);
	done(dir);
}

static void
test_owner(void **state)
{
	char *dir = fixture_config_dir(), sdir[4096], path[4096];

	(void)state;
	fixture_secret(dir, "github", BEARER);
	path_of(path, sizeof(path), dir, "github");
	assert_int_equal(chown(path, NOBODY, NOBODY), 0);
	expect_in(dir, "github", NULL, "the secret file is owned by uid "
	    "65534, not by brokerd's uid", 0, NULL);
	assert_int_equal(chown(path, geteuid(), getegid()), 0);
	snprintf(sdir, sizeof(sdir), "%s/secrets", dir);
	assert_int_equal(chown(sdir, NOBODY, NOBODY), 0);
	expect_in(dir, "github", sdir, "the secrets directory is owned by "
	    "uid 65534", 0, NULL);
	done(dir);
}

static void
test_symlinks(void **state)
{
	char *dir = fixture_config_dir(), sdir[4096], path[4096], real[4096];

	(void)state;
	/* A link to a file that would pass every check itself. */
	fixture_secret(dir, "real", BEARER);
	path_of(real, sizeof(real), dir, "real");
	path_of(path, sizeof(path), dir, "github");
	assert_int_equal(symlink(real, path), 0);
	expect_in(dir, "github", NULL, "the secret file is a symbolic link",
	    0, NULL);
	/* A link to a directory that would pass every check itself. */
	snprintf(sdir, sizeof(sdir), "%s/secrets", dir);
	snprintf(real, sizeof(real), "%s/elsewhere", dir);
	assert_int_equal(rename(sdir, real), 0);
	assert_int_equal(symlink(real, sdir), 0);
	expect_in(dir, "real", sdir, "the secrets directory is a symbolic "
	    "link", 0, NULL);
	done(dir);
}

/* Neither a directory nor a non-file nor bad bytes in the file's place. */
static void
test_unreadable(void **state)
{
	char *dir = fixture_config_dir(), path[4096], sdir[4096];

	(void)state;
	path_of(path, sizeof(path), dir, "github");
	assert_int_equal(mkdir(path, 0600), 0);
	expect_in(dir, "github", NULL, "the secret file is not a regular "
	    "file", 0, NULL);
	assert_int_equal(rmdir(path), 0);
	assert_int_equal(mkfifo(path, 0600), 0);
	expect_in(dir, "github", NULL, "not a regular file", 0, NULL);
	assert_int_equal(unlink(path), 0);
	fixture_secret(dir, "github",
	    "kind = \"bearer\"\n\nvalue = \"ab\xff\xfe" "cdefgh\"\n");
	expect_in(dir, "github", NULL, "not valid TOML", 3, NULL);
	/* The secrets directory is a file. */
	snprintf(sdir, sizeof(sdir), "%s/secrets", dir);
	fixture_remove(sdir);
	fixture_text(dir, "secrets", "");
	expect_in(dir, "github", sdir, "the secrets directory is not a "
	    "directory", 0, NULL);
	done(dir);
}

static void
test_too_large(void **state)
{
	char *text = malloc(SECRET_FILE_MAX + 2);

	(void)state;
	assert_non_null(text);
	memset(text, '#', SECRET_FILE_MAX + 1);
	text[SECRET_FILE_MAX + 1] = '\0';
	expect(text, "larger than 16384 bytes", 0, NULL);
	free(text);
}

static void
test_keys(void **state)
{
	(void)state;
	/* An unknown key is not quoted: it may be the value misplaced. */
	expect(BEARER "colour = \"red\"\n", "unknown key", 4, "colour");
	expect(BEARER VALUE " = \"x\"\n", "unknown key", 4, NULL);
	expect(BEARER "[extra]\nk = 1\n", "unknown key", 4, "extra");
	expect(BEARER "header = \"X-Key\"\n", "field \"header\" is only for "
	    "kind = \"header\", and this secret is of kind \"bearer\"", 4,
	    NULL);
	expect(BEARER "user = \"kyle\"\n", "field \"user\" is only for kind "
	    "= \"basic\"", 4, "kyle");
	expect("kind = \"header\"\n" HOSTS "value = \"" VALUE "\"\n"
	    "header = \"X-Key\"\nuser = \"kyle\"\n", "field \"user\" is only "
	    "for kind = \"basic\", and this secret is of kind \"header\"", 5,
	    NULL);
	expect("kind = \"header\"\n" HOSTS "value = \"" VALUE "\"\n",
	    "a secret of kind \"header\" needs field \"header\"", 1, NULL);
	expect("kind = \"basic\"\n" HOSTS "value = \"" VALUE "\"\n",
	    "a secret of kind \"basic\" needs field \"user\"", 1, NULL);
	expect(HOSTS "value = \"" VALUE "\"\n",
	    "missing required field \"kind\"", 0, NULL);
	expect("kind = \"bearer\"\nvalue = \"" VALUE "\"\n",
	    "missing required field \"hosts\"", 0, NULL);
	expect("kind = \"bearer\"\n" HOSTS, "missing required field "
	    "\"value\"", 0, NULL);
	expect("kind = \"token\"\n" HOSTS "value = \"" VALUE "\"\n",
	    "field \"kind\" is not one of \"bearer\", \"header\" and \"basic\"",
	    1, "token");
	expect("kind = 1\n" HOSTS "value = \"" VALUE "\"\n",
	    "field \"kind\" must be a string, not integer", 1, NULL);
	expect("", "missing required field \"kind\"", 0, NULL);
}

static void
test_value(void **state)
{
	char text[4300], big[4098];

	(void)state;
	expect("kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\\n\"\n",
	    "field \"value\" holds a line break", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = \"\"\"\n" VALUE "\n\"\"\"\n",
	    "field \"value\" holds a line break", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\\t\"\n",
	    "field \"value\" holds a control character", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\\u0000x\"\n",
	    "field \"value\" holds a NUL", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\xc3\xa9\"\n",
	    "field \"value\" holds a character that is not ASCII", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = \"1234567\"\n",
	    "field \"value\" is shorter than a secret's value may be (8 to "
	    "4096 bytes)", 3, "1234567");
	memset(big, 'w', 4097);
	big[4097] = '\0';
	snprintf(text, sizeof(text), "kind = \"bearer\"\n" HOSTS
	    "value = \"%s\"\n", big);
	expect(text, "field \"value\" is longer than", 3, "wwwwwwww");
	expect("kind = \"bearer\"\n" HOSTS "value = \" " VALUE "\"\n",
	    "field \"value\" starts with a space", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = \"" VALUE " \"\n",
	    "field \"value\" ends with a space", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS "value = 123456789012\n",
	    "field \"value\" must be a string, not integer", 3,
	    "123456789012");
}

/*
 * The parser's own message is not passed on: here it would quote the
 * value, a number too large or a bare word, and a key holding it.
 */
static void
test_not_toml(void **state)
{
	(void)state;
	expect("kind = \"bearer\"\n" HOSTS "value = 98765432109876543210987\n",
	    "not valid TOML", 3, "98765432109876543210987");
	expect("kind = \"bearer\"\n" HOSTS "value = 0x" VALUE "\n",
	    "not valid TOML", 3, NULL);
	expect("kind = \"bearer\"\n" HOSTS VALUE "\n", "not valid TOML", 3,
	    NULL);
	expect("kind = \"bearer\"\n" HOSTS "\"" VALUE "\" = \n",
	    "not valid TOML", 3, NULL);
	expect(BEARER "value = \"again\"\n", "not valid TOML", 4, NULL);
}

static void
test_header_names(void **state)
{
	static const char *refused[] = { "Host", "host", "Content-Length",
	    "CONTENT-LENGTH", "Transfer-Encoding", "connection" };
	char text[512];
	size_t i;

#define HEADER(h)	"kind = \"header\"\n" HOSTS "value = \"" VALUE "\"\n" \
			"header = \"" h "\"\n"
	(void)state;
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		snprintf(text, sizeof(text), HEADER("%s"), refused[i]);
		expect(text, "frames or routes the request", 4, NULL);
	}
	expect(HEADER("proxy-authorization"), "a secret never sets a Proxy-* "
	    "header", 4, NULL);
	expect(HEADER("Proxy-Foo"), "Proxy-* header", 4, NULL);
	expect(HEADER("X Api"), "character 2 is not allowed in an RFC 9110 "
	    "token", 4, "X Api");
	expect(HEADER("X-Api:"), "character 6 is not allowed", 4, NULL);
	expect(HEADER("X-\\u00e9"), "character 3 is not allowed", 4, NULL);
	expect(HEADER(""), "field \"header\" is 1 to 128 characters", 4, NULL);
#undef HEADER
}

static void
test_user(void **state)
{
#define BASIC(u)	"kind = \"basic\"\n" HOSTS "value = \"" VALUE "\"\n" \
			"user = \"" u "\"\n"
	(void)state;
	expect(BASIC("ky:le"), "field \"user\" holds a \":\"", 4, "ky:le");
	expect(BASIC(""), "field \"user\" is 1 to 256 bytes", 4, NULL);
	expect(BASIC("ky\\nle"), "field \"user\" holds a line break", 4, NULL);
	expect(BASIC("ky\\u0001le"), "holds a control character", 4, NULL);
#undef BASIC
}

static void
test_hosts(void **state)
{
#define WITH(h)		"kind = \"bearer\"\nvalue = \"" VALUE "\"\nhosts = " h "\n"
	(void)state;
	expect(WITH("[\"*.github.com\"]"), "hosts: \"*.github.com\" is a "
	    "pattern; a secret names exact hosts", 3, NULL);
	expect(WITH("[\"api.github.com\", \"Example.com\"]"), "hosts: "
	    "\"Example.com\" is not a valid host name", 3, NULL);
	expect(WITH("[\"10.0.0.1\"]"), "\"10.0.0.1\" is not a valid host "
	    "name: an IP address is not a host name", 3, NULL);
	expect(WITH("[\"localhost\"]"), "is not a valid host name", 3, NULL);
	expect(WITH("[\"a.com\", \"b\\nc.com\"]"), "hosts: entry 2 is not a "
	    "host name", 3, NULL);
	expect(WITH("[]"), "field \"hosts\" is empty", 3, NULL);
	expect(WITH("\"api.github.com\""), "field \"hosts\" must be an array "
	    "of strings, not string", 3, NULL);
	expect(WITH("[1]"), "field \"hosts\" must be a string, not integer",
	    3, NULL);
	/* Each entry on its own line is named at its line. */
	expect("kind = \"bearer\"\nvalue = \"" VALUE "\"\nhosts = [\n"
	    "  \"a.example.com\",\n  \"*.example.com\",\n]\n",
	    "is a pattern", 5, NULL);
#undef WITH
}

static void
test_names(void **state)
{
	static const char *bad[] = { "GitHub", "../x", "", "a/b", "git_hub",
	    "nnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnnn" };
	char *dir = fixture_config_dir(), sdir[4096];
	size_t i;

	(void)state;
	snprintf(sdir, sizeof(sdir), "%s/secrets", dir);
	fixture_secret(dir, "github", BEARER);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_in(dir, bad[i], sdir, "is not a secret name: a secret "
		    "name is", 0, NULL);
	done(dir);
}

/* Every problem of a file is reported; secret_load counts the rest. */
static void
test_all_problems(void **state)
{
	char *dir = fixture_config_dir();
	struct seen s = { 0 };
	struct secret_sink sink = { collect, &s };
	struct secret *sec = NULL;
	struct bx_error err;

	(void)state;
	fixture_secret(dir, "s", "kind = \"bearer\"\nhosts = [\"*.a.com\"]\n"
	    "value = \"short\"\nuser = \"kyle\"\n");
	assert_int_equal(secret_read(dir, "s", &sink, &sec, &err), 1);
	assert_int_equal(s.n, 3);
	assert_int_equal(s.line[0], 2);
	assert_int_equal(s.line[1], 3);
	assert_int_equal(s.line[2], 4);
	assert_int_equal(secret_load(dir, "s", &sec, &err), -1);
	assert_non_null(strstr(err.msg, "s.toml:2: hosts: \"*.a.com\" is a "
	    "pattern"));
	assert_non_null(strstr(err.msg, "(and 2 more problems)"));
	seen_clear(&s);
	done(dir);
}

/* A grant by hand: http_fetch to hosts, naming secret (or none). */
static void
make_grant(struct grant *g, const char *secret, char **hosts, size_t n)
{
	memset(g, 0, sizeof(*g));
	snprintf(g->g_id, sizeof(g->g_id), "gh-fetch");
	g->g_tool = BX_TOOL_HTTP_FETCH;
	g->g_hosts = hosts;
	g->g_nhosts = n;
	if (secret != NULL)
		snprintf(g->g_secret, sizeof(g->g_secret), "%s", secret);
}

static void
test_check_grant(void **state)
{
	char a[] = "api.github.com", u[] = "uploads.github.com",
	    o[] = "github.com", path[4096];
	char *both[] = { a, u }, *other[] = { a, o, u };
	char *dir = fixture_config_dir();
	struct seen s = { 0 };
	struct secret_sink sink = { collect, &s };
	struct bx_error err;
	struct grant g;

	(void)state;
	fixture_secret(dir, "github",
	    "kind = \"bearer\"\n\n" HOSTS "value = \"" VALUE "\"\n");
	path_of(path, sizeof(path), dir, "github");
	/* No secret: nothing to check, nothing read. */
	make_grant(&g, NULL, other, 3);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 0);
	/* Every host among the secret's. */
	make_grant(&g, "github", both, 2);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 0);
	make_grant(&g, "github", both, 1);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 0);
	assert_int_equal(s.n, 0);
	/* One host that is not: named, on the secret's hosts line. */
	make_grant(&g, "github", other, 3);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 1);
	assert_int_equal(s.n, 1);
	assert_string_equal(s.file[0], path);
	assert_int_equal(s.line[0], 3);
	assert_non_null(strstr(s.text[0], "the grant \"gh-fetch\" allows the "
	    "host \"github.com\", which is not among this secret's hosts"));
	assert_hidden(&s, NULL);
	seen_clear(&s);
	/* A secret that does not load: its problems, each counted. */
	make_grant(&g, "absent", both, 2);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 1);
	assert_non_null(strstr(s.text[0], "there is no such secret file"));
	seen_clear(&s);
	assert_int_equal(chmod(path, 0640), 0);
	fixture_secret(dir, "broken",
	    "kind = \"bearer\"\nhosts = []\nvalue = \"x\"\n");
	make_grant(&g, "broken", both, 2);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 2);
	make_grant(&g, "github", both, 2);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), 1);
	assert_non_null(strstr(s.text[2], "has mode 0640"));
	assert_hidden(&s, NULL);
	seen_clear(&s);
	done(dir);
}

/* A sink out of memory makes the reader say so, and return -1. */
static int
refuse(void *ctx, const char *file, int64_t line, const char *problem)
{
	(void)ctx;
	(void)file;
	(void)line;
	(void)problem;
	return -1;
}

static void
test_sink_fails(void **state)
{
	char *dir = fixture_config_dir();
	struct secret_sink sink = { refuse, NULL };
	struct secret *sec = NULL;
	struct bx_error err;
	char a[] = "api.github.com", *hosts[] = { a };
	struct grant g;

	(void)state;
	assert_int_equal(secret_read(dir, "github", &sink, &sec, &err), -1);
	assert_non_null(strstr(err.msg, "out of memory"));
	fixture_secret(dir, "github", "kind = \"bearer\"\n");
	assert_int_equal(secret_read(dir, "github", &sink, &sec, &err), -1);
	fixture_secret(dir, "github",
	    "kind = \"bearer\"\nhosts = [\"b.example\"]\n"
	    "value = \"" VALUE "\"\n");
	make_grant(&g, "github", hosts, 1);
	assert_int_equal(secret_check_grant(dir, &g, &sink, &err), -1);
	assert_null(sec);
	done(dir);
}

/*
 * Nothing that held the value goes back to the allocator as it was
 * (freecheck.h sees each free and realloc): the file's bytes, the TOML
 * parser's copy, the secret, a file refused after its value was read, and
 * a call's header line and redactor.
 */
static void
test_value_wiped(void **state)
{
	char *dir = fixture_config_dir();
	struct secret_call *sc = NULL;
	struct secret *sec;
	struct seen seen = { 0 };
	struct secret_sink sink = { collect, &seen };
	struct bx_error err;

	(void)state;
	fixture_secret(dir, "gh", BEARER);
	fixture_secret(dir, "lamp", "kind = \"basic\"\nhosts = [\"lamp.example.com\"]\n"
	    "user = \"Aladdin\"\nvalue = \"" VALUE "\"\n");
	fixture_secret(dir, "bad", "kind = \"bearer\"\n" HOSTS "value = \"" VALUE "\"\n"
	    "vaule = 1\n");
	/* VALUE, and base64 of "Aladdin:" VALUE past its user's part. */
	freecheck_watch(VALUE, strlen(VALUE));
	freecheck_watch("czNjcmV0VkFMVUV4", 16);
	secret_free(load_ok(dir, "gh"));
	sec = load_ok(dir, "lamp");
	assert_non_null(strstr(secret_header_value(sec), "czNjcmV0VkFMVUV4"));
	secret_free(sec);
	sec = NULL;
	assert_int_equal(secret_read(dir, "bad", &sink, &sec, &err), 1);
	assert_null(sec);
	assert_int_equal(secret_call_open(dir, "lamp", "lamp.example.com", &sc,
	    &err), 0);
	secret_call_free(sc);
	assert_int_equal(freecheck_stop(), 0);
	seen_clear(&seen);
	done(dir);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_wiped),
		cmocka_unit_test(test_bearer),
		cmocka_unit_test(test_header),
		cmocka_unit_test(test_basic),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_file_mode),
		cmocka_unit_test(test_dir_mode),
		cmocka_unit_test(test_owner),
		cmocka_unit_test(test_symlinks),
		cmocka_unit_test(test_unreadable),
		cmocka_unit_test(test_too_large),
		cmocka_unit_test(test_keys),
		cmocka_unit_test(test_value),
		cmocka_unit_test(test_not_toml),
		cmocka_unit_test(test_header_names),
		cmocka_unit_test(test_user),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_all_problems),
		cmocka_unit_test(test_check_grant),
		cmocka_unit_test(test_sink_fails),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
