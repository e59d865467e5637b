/*
 * test-secrets.c: `bxctl secrets add`, `list` and `remove`, `grants add
 * --secret` and the secret half of `grants check`, run as the owner runs
 * them (the real build/bxctl, a brokerd.toml in a temp directory), with
 * the value on standard input or typed in a pseudo-terminal.
 *
 * Every run is checked for the value: it must never appear in anything
 * bxctl printed, on stdout, stderr or the terminal. Every refusal is
 * checked for leaving nothing behind in the secrets directory.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "fake.h"
#include "ptyrun.h"
#include "run.h"

#define VALUE		"ghp_Xy7kQ2value0123456789"
#define OTHER_VALUE	"rotated-Zq9w8e7r6t5y"

struct dirs {
	char	*top;
	char	 config[4096];
	char	 secrets[4096];
	char	 grants[4096];
};

static int
setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));
	FILE *f;

	assert_non_null(d);
	d->top = run_tempdir();
	snprintf(d->config, sizeof(d->config), "%s/brokerd.toml", d->top);
	snprintf(d->secrets, sizeof(d->secrets), "%s/secrets", d->top);
	snprintf(d->grants, sizeof(d->grants), "%s/grants", d->top);
	assert_int_equal(mkdir(d->grants, 0700), 0);
	assert_non_null(f = fopen(d->config, "w"));
	fprintf(f, "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n", d->top,
	    d->grants);
	assert_int_equal(fclose(f), 0);
	*state = d;
	return 0;
}

static int
teardown(void **state)
{
	struct dirs *d = *state;

	run_rmdir(d->top);
	free(d);
	return 0;
}

/* What bxctl printed must never hold value. */
static void
no_value(const struct run_result *res, const char *value)
{
	if (strstr(res->out, value) != NULL || strstr(res->err, value) !=
	    NULL)
		fail_msg("bxctl printed the value: stdout \"%s\", stderr "
		    "\"%s\"", res->out, res->err);
}

/*
 * Runs bxctl with up to sixteen words, then --config <the test's>, with
 * input on stdin; checks that VALUE and OTHER_VALUE were never printed.
 */
static void
run(struct dirs *d, struct run_result *res, const char *input, ...)
{
	const char *args[20];
	size_t n = 0;
	va_list ap;

	va_start(ap, input);
	while (n < 16 && (args[n] = va_arg(ap, const char *)) != NULL)
		n++;
	va_end(ap);
	args[n++] = "--config";
	args[n++] = d->config;
	args[n] = NULL;
	run_bxctl(args, d->top, input, res);
	no_value(res, VALUE);
	no_value(res, OTHER_VALUE);
}

/* The whole of a file, or NULL when it cannot be read. */
static char *
slurp(const char *path)
{
	char *buf;
	size_t n;
	FILE *f;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	assert_non_null(buf = calloc(1, 65536));
	n = fread(buf, 1, 65535, f);
	buf[n] = '\0';
	fclose(f);
	return buf;
}

/* The names in dir but . and .., sorted, each followed by a space. */
static void
listing(const char *dir, char *buf, size_t size)
{
	struct dirent **names;
	int i, n;

	buf[0] = '\0';
	if ((n = scandir(dir, &names, NULL, alphasort)) == -1)
		return;
	for (i = 0; i < n; i++) {
		if (strcmp(names[i]->d_name, ".") != 0 &&
		    strcmp(names[i]->d_name, "..") != 0) {
			strncat(buf, names[i]->d_name, size - strlen(buf) - 2);
			strcat(buf, " ");
		}
		free(names[i]);
	}
	free(names);
}

/* The value line of the secret file name, as bxctl wrote it. */
static void
expect_file(struct dirs *d, const char *name, const char *value)
{
	char path[8192], want[8192], *text;
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s.toml", d->secrets, name);
	assert_int_equal(lstat(path, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0600);
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(lstat(d->secrets, &st), 0);
	assert_true(S_ISDIR(st.st_mode));
	assert_int_equal(st.st_mode & 07777, 0700);
	assert_non_null(text = slurp(path));
	snprintf(want, sizeof(want), "\nvalue = \"%s\"\n", value);
	if (strstr(text, want) == NULL)
		fail_msg("%s does not hold the value as given: %s", path, text);
	free(text);
}

static void
add_github(struct dirs *d, const char *input, bool replace)
{
	struct run_result res;

	if (replace)
		run(d, &res, input, "secrets", "add", "github", "--host",
		    "api.github.com", "--bearer", "--replace", NULL);
	else
		run(d, &res, input, "secrets", "add", "github", "--host",
		    "api.github.com", "--bearer", NULL);
	if (res.status != 0)
		fail_msg("secrets add exited %d: %s", res.status, res.err);
	assert_string_equal(res.err, "");
	run_result_free(&res);
}

/* Add, list, remove, list: the file, its modes, and what each says. */
static void
test_round_trip(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char want[8192], names[1024];

	run(d, &res, VALUE "\n", "secrets", "add", "github", "--host",
	    "api.github.com", "--host", "uploads.github.com", "--bearer", NULL);
	assert_int_equal(res.status, 0);
	snprintf(want, sizeof(want), "added secret github (%s/github.toml)\n",
	    d->secrets);
	assert_string_equal(res.out, want);
	assert_string_equal(res.err, "");
	run_result_free(&res);
	expect_file(d, "github", VALUE);
	listing(d->secrets, names, sizeof(names));
	assert_string_equal(names, "github.toml ");

	run(d, &res, NULL, "secrets", "list", NULL);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "NAME"));
	assert_non_null(strstr(res.out, "github"));
	assert_non_null(strstr(res.out, "bearer"));
	assert_non_null(strstr(res.out, "api.github.com, uploads.github.com"));
	assert_null(strstr(res.out, "problem"));
	run_result_free(&res);

	run(d, &res, NULL, "secrets", "remove", "github", NULL);
	assert_int_equal(res.status, 0);
	snprintf(want, sizeof(want), "removed secret github (%s/github.toml)\n",
	    d->secrets);
	assert_string_equal(res.out, want);
	run_result_free(&res);
	listing(d->secrets, names, sizeof(names));
	assert_string_equal(names, "");

	run(d, &res, NULL, "secrets", "list", NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out, "secrets: none (bxctl secrets add writes "
	    "one)\n");
	run_result_free(&res);

	/* Gone is gone: a second remove says so. */
	run(d, &res, NULL, "secrets", "remove", "github", NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "bxctl: there is no secret github (no "
	    "%s/github.toml)\n", d->secrets);
	assert_string_equal(res.err, want);
	run_result_free(&res);
}

/* The kinds' own keys are written, and read back by the reader. */
static void
test_header_and_basic(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char path[8192], *text;

	run(d, &res, VALUE, "secrets", "add", "weather", "--host",
	    "api.weather.example", "--header", "X-Api-Key", NULL);
	assert_int_equal(res.status, 0);
	run_result_free(&res);
	run(d, &res, VALUE, "secrets", "add", "jira", "--host",
	    "jira.example.org", "--basic", "kyle", NULL);
	assert_int_equal(res.status, 0);
	run_result_free(&res);
	snprintf(path, sizeof(path), "%s/weather.toml", d->secrets);
	assert_non_null(text = slurp(path));
	assert_non_null(strstr(text, "kind = \"header\"\n"));
	assert_non_null(strstr(text, "header = \"X-Api-Key\"\n"));
	free(text);
	snprintf(path, sizeof(path), "%s/jira.toml", d->secrets);
	assert_non_null(text = slurp(path));
	assert_non_null(strstr(text, "kind = \"basic\"\n"));
	assert_non_null(strstr(text, "user = \"kyle\"\n"));
	free(text);
	expect_file(d, "jira", VALUE);

	run(d, &res, NULL, "secrets", "list", NULL);
	assert_int_equal(res.status, 0);
	assert_non_null(strstr(res.out, "header"));
	assert_non_null(strstr(res.out, "basic"));
	assert_non_null(strstr(res.out, "jira.example.org"));
	/* Nothing of a basic secret's header either. */
	assert_null(strstr(res.out, "a3lsZT"));
	run_result_free(&res);
}

/* Standard input: one trailing newline is not the value; no newline is. */
static void
test_stdin_newline(void **state)
{
	struct dirs *d = *state;
	struct run_result res;

	add_github(d, VALUE "\n", false);
	expect_file(d, "github", VALUE);
	add_github(d, VALUE, true);
	expect_file(d, "github", VALUE);
	/* Two newlines: the second is part of the value, which is refused. */
	run(d, &res, VALUE "\n\n", "secrets", "add", "other", "--host",
	    "api.github.com", "--bearer", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "field \"value\" holds a line break"));
	run_result_free(&res);
}

/* An existing secret is replaced only with --replace, and then whole. */
static void
test_replace_needed(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char want[8192], names[1024];

	add_github(d, VALUE "\n", false);
	run(d, &res, OTHER_VALUE "\n", "secrets", "add", "github", "--host",
	    "api.github.com", "--bearer", NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "bxctl: the secret github exists "
	    "(%s/github.toml); `bxctl secrets add --replace` replaces it, and "
	    "nothing was written\n", d->secrets);
	assert_string_equal(res.err, want);
	assert_string_equal(res.out, "");
	run_result_free(&res);
	expect_file(d, "github", VALUE);

	run(d, &res, OTHER_VALUE "\n", "secrets", "add", "github", "--host",
	    "api.github.com", "--bearer", "--replace", NULL);
	assert_int_equal(res.status, 0);
	snprintf(want, sizeof(want), "replaced secret github "
	    "(%s/github.toml)\n", d->secrets);
	assert_string_equal(res.out, want);
	run_result_free(&res);
	expect_file(d, "github", OTHER_VALUE);
	/* No temporary file left beside it. */
	listing(d->secrets, names, sizeof(names));
	assert_string_equal(names, "github.toml ");
}

/* Each invalid input: its message, exit 1, and nothing written. */
static void
test_invalid_refused(void **state)
{
	static char long_value[4200], over_value[4200];
	static const struct {
		const char	*name, *input, *host, *kind, *kind_arg;
		const char	*message;
	} cases[] = {
		{ "short", "seven77\n", "a.example", "--bearer", NULL,
		    "field \"value\" is shorter than a secret's value may be "
		    "(8 to 4096 bytes)" },
		{ "spaced", "abcdefgh \n", "a.example", "--bearer", NULL,
		    "field \"value\" ends with a space" },
		{ "leading", " abcdefgh\n", "a.example", "--bearer", NULL,
		    "field \"value\" starts with a space" },
		{ "broken", "abcdefgh\nijklmnop\n", "a.example", "--bearer",
		    NULL, "field \"value\" holds a line break" },
		{ "tab", "abcd\tefgh\n", "a.example", "--bearer", NULL,
		    "field \"value\" holds a control character" },
		{ "accent", "abcdefg\xc3\xa9\n", "a.example", "--bearer", NULL,
		    "field \"value\" holds a character that is not ASCII" },
		{ "empty", "\n", "a.example", "--bearer", NULL,
		    "the value is empty; nothing was written" },
		{ "nothing", "", "a.example", "--bearer", NULL,
		    "the value is empty; nothing was written" },
		{ "pattern", VALUE, "*.github.com", "--bearer", NULL,
		    "hosts: \"*.github.com\" is a pattern; a secret names exact "
		    "hosts, each sent the secret" },
		{ "badhost", VALUE, "a..example", "--bearer", NULL,
		    "hosts: \"a..example\" is not a valid host name" },
		{ "Bad_Name", VALUE, "a.example", "--bearer", NULL,
		    "\"Bad_Name\" is not a secret name" },
		{ "host-header", VALUE, "a.example", "--header", "Host",
		    "field \"header\": \"Host\" frames or routes the request" },
		{ "proxy-header", VALUE, "a.example", "--header",
		    "Proxy-Authorization", "field \"header\": "
		    "\"Proxy-Authorization\" is for a proxy" },
		{ "spacey-header", VALUE, "a.example", "--header", "X Key",
		    "field \"header\" is not a header name" },
		{ "colon-user", VALUE, "a.example", "--basic", "a:b",
		    "field \"user\" holds a \":\"" },
		{ "toolong", long_value, "a.example", "--bearer", NULL,
		    "the value on standard input is longer than a secret's "
		    "value may be (4096 bytes at most)" },
		{ "justover", over_value, "a.example", "--bearer", NULL,
		    "field \"value\" is longer than a secret's value may be" },
	};
	struct dirs *d = *state;
	struct run_result res;
	char names[1024];
	size_t i;

	/* More than a value and its newline: never read to the loader. */
	memset(long_value, 'k', 4098);
	long_value[4098] = '\n';
	long_value[4099] = '\0';
	/* One byte over, whole: the loader's own words. */
	memset(over_value, 'k', 4097);
	over_value[4097] = '\0';
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (cases[i].kind_arg != NULL)
			run(d, &res, cases[i].input, "secrets", "add",
			    cases[i].name, "--host", cases[i].host,
			    cases[i].kind, cases[i].kind_arg, NULL);
		else
			run(d, &res, cases[i].input, "secrets", "add",
			    cases[i].name, "--host", cases[i].host,
			    cases[i].kind, NULL);
		if (res.status != 1 || strstr(res.err, cases[i].message) ==
		    NULL)
			fail_msg("case %s: exit %d, stderr \"%s\", wanted "
			    "\"%s\"", cases[i].name, res.status, res.err,
			    cases[i].message);
		assert_string_equal(res.out, "");
		/* What was refused for its form is never quoted back. */
		if (strlen(cases[i].input) > 8 &&
		    strncmp(cases[i].input, "abcdefgh", 8) == 0)
			assert_null(strstr(res.err, "abcdefgh"));
		run_result_free(&res);
		listing(d->secrets, names, sizeof(names));
		if (names[0] != '\0')
			fail_msg("case %s left %s", cases[i].name, names);
	}
}

/* A secrets directory brokerd would not read is refused, and named. */
static void
test_directory_refused(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char want[8192], names[1024], link[8192];

	assert_int_equal(mkdir(d->secrets, 0700), 0);
	assert_int_equal(chmod(d->secrets, 0755), 0);
	run(d, &res, VALUE, "secrets", "add", "github", "--host",
	    "api.github.com", "--bearer", NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "bxctl: %s: the secrets directory has "
	    "mode 0755, not 0700; it is not used (chmod 0700 %s)\n",
	    d->secrets, d->secrets);
	assert_string_equal(res.err, want);
	run_result_free(&res);
	listing(d->secrets, names, sizeof(names));
	assert_string_equal(names, "");

	/* A symbolic link to a good directory is no secrets directory. */
	assert_int_equal(chmod(d->secrets, 0700), 0);
	snprintf(link, sizeof(link), "%s/elsewhere", d->top);
	assert_int_equal(rename(d->secrets, link), 0);
	assert_int_equal(symlink(link, d->secrets), 0);
	run(d, &res, VALUE, "secrets", "add", "github", "--host",
	    "api.github.com", "--bearer", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "the secrets directory is a symbolic "
	    "link"));
	run_result_free(&res);
	listing(link, names, sizeof(names));
	assert_string_equal(names, "");
}

/* A grant naming a secret shows in list, in text and in JSON. */
static void
test_list_grants_and_json(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char want[16384];

	add_github(d, VALUE, false);
	run(d, &res, NULL, "grants", "add", "http_fetch", "--host",
	    "api.github.com", "--secret", "github", "--mode", "auto",
	    "--expires", "1d", "--id", "gh-api", NULL);
	if (res.status != 0)
		fail_msg("grants add --secret: %s", res.err);
	run_result_free(&res);
	run(d, &res, NULL, "grants", "add", "http_fetch", "--host",
	    "status.example.org", "--secret", "missing", "--mode", "ask",
	    "--expires", "1d", "--id", "status", NULL);
	assert_int_equal(res.status, 0);
	run_result_free(&res);

	run(d, &res, NULL, "secrets", "list", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.out, "gh-api"));
	assert_non_null(strstr(res.out, "unusable"));
	snprintf(want, sizeof(want), "problem: %s/missing.toml: there is no "
	    "such secret file\nsecrets: 1 cannot be used, so a call that "
	    "needs one fails before sending anything\n", d->secrets);
	assert_non_null(strstr(res.out, want));
	run_result_free(&res);

	run(d, &res, NULL, "secrets", "list", "--json", NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want),
	    "{\"type\":\"secret\",\"name\":\"github\",\"kind\":\"bearer\","
	    "\"hosts\":[\"api.github.com\"],\"grants\":[\"gh-api\"],"
	    "\"problems\":[]}\n"
	    "{\"type\":\"secret\",\"name\":\"missing\",\"kind\":null,"
	    "\"hosts\":[],\"grants\":[\"status\"],\"problems\":[{\"file\":"
	    "\"%s/missing.toml\",\"line\":null,\"problem\":\"there is no "
	    "such secret file\"}]}\n", d->secrets);
	assert_string_equal(res.out, want);
	assert_string_equal(res.err, "");
	run_result_free(&res);
}

/* grants add --secret: the loader's rules for it, in its words. */
static void
test_grants_add_secret_rules(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char names[1024];

	run(d, &res, NULL, "grants", "add", "read_file", "--path", "/x",
	    "--secret", "github", "--mode", "auto", "--expires", "1d", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "secret is only for http_fetch"));
	run_result_free(&res);
	run(d, &res, NULL, "grants", "add", "http_fetch", "--host",
	    "*.github.com", "--secret", "github", "--mode", "auto",
	    "--expires", "1d", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "a grant with a secret names exact "
	    "hosts, not patterns"));
	run_result_free(&res);
	listing(d->grants, names, sizeof(names));
	assert_string_equal(names, "");
}

/*
 * grants check: brokerd's report (a fake admin socket here) and then
 * every named secret, read beside brokerd.toml.
 */
static void
test_grants_check_secrets(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	struct fake *admin;
	char sock[4300], want[16384], path[8192];

	snprintf(sock, sizeof(sock), "%s/admin.sock", d->top);
	admin = fake_admin_start(sock);
	fake_admin_reply(admin, "check_grants", "{\"kind\":\"grants_report\","
	    "\"problems\":[]}");
	add_github(d, VALUE, false);
	run(d, &res, NULL, "grants", "add", "http_fetch", "--host",
	    "api.github.com", "--secret", "github", "--mode", "auto",
	    "--expires", "1d", "--id", "gh", NULL);
	assert_int_equal(res.status, 0);
	run_result_free(&res);

	run(d, &res, NULL, "grants", "check", "--admin-socket", sock, NULL);
	assert_int_equal(res.status, 0);
	assert_string_equal(res.out, "grants: ok\n");
	run_result_free(&res);

	/* A host of the grant that is not the secret's, and a 0644 file. */
	run(d, &res, NULL, "grants", "add", "http_fetch", "--host",
	    "api.github.com", "--host", "gist.github.com", "--secret",
	    "github", "--mode", "auto", "--expires", "1d", "--id", "gh2",
	    NULL);
	assert_int_equal(res.status, 0);
	run_result_free(&res);
	run(d, &res, NULL, "grants", "check", "--admin-socket", sock, NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "%s/github.toml:3: the grant \"gh2\" "
	    "allows the host \"gist.github.com\", which is not among this "
	    "secret's hosts: a call to it would fail\n", d->secrets);
	assert_string_equal(res.out, want);
	run_result_free(&res);

	snprintf(path, sizeof(path), "%s/github.toml", d->secrets);
	assert_int_equal(chmod(path, 0644), 0);
	run(d, &res, NULL, "grants", "check", "--admin-socket", sock, NULL);
	assert_int_equal(res.status, 1);
	snprintf(want, sizeof(want), "%s: the secret file has mode 0644, not "
	    "0600; it is not used (chmod 0600 %s)\n", path, path);
	assert_string_equal(res.out, want);
	run_result_free(&res);
	fake_stop(admin);
}

/* remove takes only a secret's regular file. */
static void
test_remove_refuses(void **state)
{
	struct dirs *d = *state;
	struct run_result res;
	char path[8192];

	run(d, &res, NULL, "secrets", "remove", "../brokerd", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "'../brokerd' is not a secret name"));
	run_result_free(&res);
	assert_int_equal(access(d->config, F_OK), 0);

	assert_int_equal(mkdir(d->secrets, 0700), 0);
	snprintf(path, sizeof(path), "%s/dir.toml", d->secrets);
	assert_int_equal(mkdir(path, 0700), 0);
	run(d, &res, NULL, "secrets", "remove", "dir", NULL);
	assert_int_equal(res.status, 1);
	assert_non_null(strstr(res.err, "is not a regular file; it was not "
	    "removed"));
	run_result_free(&res);
	assert_int_equal(access(path, F_OK), 0);
}

/* The pty's arguments: secrets add github ... --config <the test's>. */
static void
pty_add(struct dirs *d, struct pty *p)
{
	const char *args[] = { "secrets", "add", "github", "--host",
	    "api.github.com", "--bearer", "--config", d->config, NULL };

	pty_start(p, args, d->top);
}

/* A value typed at the terminal: echo off, never shown, and written. */
static void
test_typed_at_terminal(void **state)
{
	struct dirs *d = *state;
	struct pty p;
	int status;

	pty_add(d, &p);
	pty_expect(&p, "The value of the secret github (it is not shown as "
	    "you type): ");
	pty_wait_echo(&p, false);
	pty_type(&p, VALUE "\n");
	pty_expect(&p, "added secret github");
	/* The terminal's mode is back. */
	pty_wait_echo(&p, true);
	status = pty_finish(&p);
	if (pty_shown(&p, VALUE) || pty_shown(&p, "ghp_"))
		fail_msg("the terminal showed the value: %s", p.p_out);
	pty_free(&p);
	assert_int_equal(status, 0);
	expect_file(d, "github", VALUE);
}

/* Ctrl-C at the prompt: echo back on, bxctl ended by it, nothing written. */
static void
test_interrupted_at_terminal(void **state)
{
	struct dirs *d = *state;
	char names[1024];
	struct pty p;
	int status;

	pty_add(d, &p);
	pty_expect(&p, "(it is not shown as you type): ");
	pty_wait_echo(&p, false);
	pty_type(&p, "ghp_half");
	pty_type(&p, "\003");
	pty_wait_echo(&p, true);
	status = pty_finish(&p);
	if (pty_shown(&p, "ghp_half"))
		fail_msg("the terminal showed what was typed: %s", p.p_out);
	pty_free(&p);
	assert_int_equal(status, 128 + 2);
	listing(d->secrets, names, sizeof(names));
	assert_string_equal(names, "");
}

/* End of input at the prompt: echo back on, exit 1, nothing written. */
static void
test_eof_at_terminal(void **state)
{
	struct dirs *d = *state;
	char names[1024];
	struct pty p;
	int status;

	pty_add(d, &p);
	pty_expect(&p, "(it is not shown as you type): ");
	pty_wait_echo(&p, false);
	pty_type(&p, "\004");
	pty_expect(&p, "no value was typed (end of input); nothing was "
	    "written");
	pty_wait_echo(&p, true);
	status = pty_finish(&p);
	pty_free(&p);
	assert_int_equal(status, 1);
	listing(d->secrets, names, sizeof(names));
	assert_string_equal(names, "");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_round_trip, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_header_and_basic, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_stdin_newline, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_replace_needed, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_invalid_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_directory_refused, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_list_grants_and_json,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_grants_add_secret_rules,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_grants_check_secrets,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_remove_refuses, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_typed_at_terminal, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_interrupted_at_terminal,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_eof_at_terminal, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
