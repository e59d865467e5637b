/*
 * test-grantwrite.c: the grant files bxctl writes (grantwrite.c) and the
 * commands that write and remove them, `bxctl grants add` and `bxctl
 * grants remove`, run as the owner would against a brokerd.toml in a temp
 * directory.
 *
 * Paths full of what TOML treats specially come back from brokerd's own
 * loader byte for byte, and the file holds only printable ASCII; a name
 * already taken is never replaced; a grants directory that cannot be
 * written leaves nothing behind; grants add refuses in brokerd's words;
 * remove takes only a grant file.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/grants/approve_for.h"
#include "bxctl/grants/grantwrite.h"
#include "fake.h"
#include "proto/types.h"
#include "run.h"

#define LATER_MS	1798761600000LL		/* 2027-01-01T00:00:00Z */

struct dirs {
	char	*top;
	char	 grants[4096];
	char	 config[4096];
};

static int
setup(void **state)
{
	struct dirs *d = calloc(1, sizeof(*d));
	FILE *f;

	assert_non_null(d);
	d->top = run_tempdir();
	snprintf(d->grants, sizeof(d->grants), "%s/grants", d->top);
	assert_int_equal(mkdir(d->grants, 0700), 0);
	snprintf(d->config, sizeof(d->config), "%s/brokerd.toml", d->top);
	assert_non_null(f = fopen(d->config, "w"));
	fprintf(f, "[paths]\nhome = \"%s\"\ngrants = \"%s\"\n", d->top,
	    d->grants);
	fclose(f);
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

/* The names in dir, sorted and joined by spaces, into buf. */
static const char *
listing(const char *dir, char *buf, size_t size)
{
	struct dirent **names;
	int i, n;

	buf[0] = '\0';
	assert_true((n = scandir(dir, &names, NULL, alphasort)) >= 0);
	for (i = 0; i < n; i++) {
		if (names[i]->d_name[0] != '.' || (strcmp(names[i]->d_name,
		    ".") != 0 && strcmp(names[i]->d_name, "..") != 0)) {
			strncat(buf, names[i]->d_name, size - strlen(buf) - 2);
			strcat(buf, " ");
		}
		free(names[i]);
	}
	free(names);
	return buf;
}

static char *
text_for(const char *path)
{
	const char *paths[1] = { path };
	struct grant_text gt = { 0 };
	struct bx_error err;
	char *text;
	size_t len;

	gt.gt_comment = "a test\nof two lines";
	gt.gt_tool = "read_file";
	gt.gt_mode = "auto";
	gt.gt_max_taint = "private";
	gt.gt_class = "public";
	gt.gt_expires = LATER_MS;
	gt.gt_paths = paths;
	gt.gt_npaths = 1;
	if (grantwrite_text(&gt, &text, &len, &err) == -1)
		fail_msg("grantwrite_text: %s", err.msg);
	assert_int_equal(strlen(text), len);
	return text;
}

/* Every path comes back from brokerd's loader as it went in. */
static void
test_round_trip(void **state)
{
	static const char *paths[] = {
		"/a \"quoted\" name",
		"/back\\slash\\",
		"/tab\there/new\nline/cr\rff\fbs\b",
		"/c0 \x01\x1f del \x7f",
		"/c1 \xc2\x85 \xc2\x9b[2J",
		"/caf\xc3\xa9/\xe2\x80\xae" "txt.exe/\xe2\x80\x8b",
		"/emoji \xf0\x9f\x98\x80 and \xef\xbf\xbf",
		"/''' \"\"\" # [x] = {y}",
	};
	struct dirs *d = *state;
	struct grants *set;
	struct bx_error err;
	const unsigned char *p;
	char *text;
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++) {
		text = text_for(paths[i]);
		for (p = (const unsigned char *)text; *p != '\0'; p++)
			if ((*p < 0x20 && *p != '\n') || *p >= 0x7f)
				fail_msg("byte 0x%02x in %s", *p, text);
		if (grantwrite_check(d->grants, "rt", text, strlen(text), &set,
		    &err) == -1)
			fail_msg("grantwrite_check: %s", err.msg);
		if (!grants_valid(set))
			fail_msg("%s: %s", text, set->gs_problems[0].gp_problem);
		assert_int_equal(set->gs_len, 1);
		assert_int_equal(set->gs_grants[0].g_npaths, 1);
		assert_string_equal(set->gs_grants[0].g_paths[0], paths[i]);
		assert_string_equal(set->gs_grants[0].g_id, "rt");
		assert_int_equal(set->gs_grants[0].g_expires, LATER_MS);
		grants_free(set);
		free(text);
	}
}

/* A path that is not UTF-8 is left for the loader to refuse. */
static void
test_not_utf8_refused_by_loader(void **state)
{
	struct dirs *d = *state;
	struct bx_error err;
	struct grants *set;
	char *text = text_for("/bad \xff byte"), names[512];

	assert_int_equal(grantwrite_check(d->grants, "bad", text,
	    strlen(text), &set, &err), 0);
	assert_false(grants_valid(set));
	assert_non_null(strstr(set->gs_problems[0].gp_problem, "UTF-8"));
	grants_free(set);
	assert_int_equal(grantwrite_put(d->grants, "bad", text, strlen(text),
	    &err), -1);
	assert_non_null(strstr(err.msg, "UTF-8"));
	assert_string_equal(listing(d->grants, names, sizeof(names)), "");
	free(text);
}

static void
test_put_never_replaces(void **state)
{
	struct dirs *d = *state;
	struct bx_error err;
	char *one = text_for("/one"), *two = text_for("/two"), names[512];
	char path[4096], back[256];
	FILE *f;
	size_t n;

	assert_int_equal(grantwrite_put(d->grants, "g", one, strlen(one),
	    &err), 0);
	assert_int_equal(grantwrite_put(d->grants, "g", two, strlen(two),
	    &err), -1);
	assert_non_null(strstr(err.msg, "already exists; nothing was "
	    "replaced"));
	snprintf(path, sizeof(path), "%s/g.toml", d->grants);
	assert_non_null(f = fopen(path, "r"));
	n = fread(back, 1, sizeof(back) - 1, f);
	back[n] = '\0';
	fclose(f);
	assert_string_equal(back, one);
	/* No temporary file left beside it. */
	assert_string_equal(listing(d->grants, names, sizeof(names)),
	    "g.toml ");
	free(one);
	free(two);
}

/* A file where the directory should be: nothing made, nothing changed. */
static void
test_put_into_a_file(void **state)
{
	struct dirs *d = *state;
	struct bx_error err;
	char *text = text_for("/x"), notdir[4096], names[512];
	struct stat st;
	FILE *f;

	snprintf(notdir, sizeof(notdir), "%s/plain", d->top);
	assert_non_null(f = fopen(notdir, "w"));
	fputs("x", f);
	fclose(f);
	assert_int_equal(grantwrite_put(notdir, "g", text, strlen(text),
	    &err), -1);
	assert_non_null(strstr(err.msg, "Not a directory"));
	assert_int_equal(stat(notdir, &st), 0);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_size, 1);
	assert_string_equal(listing(d->top, names, sizeof(names)),
	    "brokerd.toml grants plain ");
	assert_int_equal(grantwrite_put("/nonexistent-boxmaker-dir", "g",
	    text, strlen(text), &err), -1);
	free(text);
}

static void
test_remove_only_grant_files(void **state)
{
	struct dirs *d = *state;
	struct bx_error err;
	char *text = text_for("/x"), path[4096], names[512];

	assert_int_equal(grantwrite_put(d->grants, "g", text, strlen(text),
	    &err), 0);
	assert_int_equal(grantwrite_remove(d->grants, "../grants/g", &err),
	    -1);
	assert_non_null(strstr(err.msg, "is not a valid grant id"));
	assert_int_equal(grantwrite_remove(d->grants, "G", &err), -1);
	assert_int_equal(grantwrite_remove(d->grants, "nope", &err), -1);
	assert_non_null(strstr(err.msg, "there is no grant nope"));
	snprintf(path, sizeof(path), "%s/dir.toml", d->grants);
	assert_int_equal(mkdir(path, 0700), 0);
	assert_int_equal(grantwrite_remove(d->grants, "dir", &err), -1);
	assert_non_null(strstr(err.msg, "is not a regular file"));
	assert_int_equal(rmdir(path), 0);
	snprintf(path, sizeof(path), "%s/link.toml", d->grants);
	assert_int_equal(symlink("g.toml", path), 0);
	assert_int_equal(grantwrite_remove(d->grants, "link", &err), -1);
	assert_int_equal(unlink(path), 0);
	assert_int_equal(grantwrite_remove(d->grants, "g", &err), 0);
	assert_string_equal(listing(d->grants, names, sizeof(names)), "");
	free(text);
}

static void
test_durations(void **state)
{
	struct bx_error err;
	int64_t ms;

	(void)state;
	assert_int_equal(when_duration("30m", APPROVE_FOR_MAX_MS, &ms, &err),
	    0);
	assert_int_equal(ms, 30 * 60 * 1000);
	assert_int_equal(when_duration("1h", APPROVE_FOR_MAX_MS, &ms, &err), 0);
	assert_int_equal(ms, 3600 * 1000);
	assert_int_equal(when_duration("30d", APPROVE_FOR_MAX_MS, &ms, &err),
	    0);
	assert_int_equal(ms, APPROVE_FOR_MAX_MS);
	assert_int_equal(when_duration("31d", APPROVE_FOR_MAX_MS, &ms, &err),
	    -1);
	assert_non_null(strstr(err.msg, "between 1 s and 30 d"));
	assert_int_equal(when_duration("0m", APPROVE_FOR_MAX_MS, &ms, &err),
	    -1);
	assert_int_equal(when_duration("1x", APPROVE_FOR_MAX_MS, &ms, &err),
	    -1);
	assert_int_equal(when_duration("-1h", APPROVE_FOR_MAX_MS, &ms, &err),
	    -1);
	assert_int_equal(when_duration("1h30m", APPROVE_FOR_MAX_MS, &ms,
	    &err), -1);
	assert_int_equal(when_future("2027-01-01T00:00:00Z", 0,
	    LATER_MS, &ms, &err), 0);
	assert_int_equal(ms, LATER_MS);
	assert_int_equal(when_future("2027-01-01T00:00:00Z", LATER_MS,
	    LATER_MS, &ms, &err), -1);
	assert_non_null(strstr(err.msg, "already passed"));
	assert_int_equal(when_future("2h", 1000, LATER_MS, &ms, &err), 0);
	assert_int_equal(ms, 1000 + 2 * 3600 * 1000);
}

static void
bxctl(struct dirs *d, const char *const *args, struct run_result *r)
{
	const char *argv[32];
	size_t n = 0;

	while (args[n] != NULL) {
		argv[n] = args[n];
		n++;
	}
	argv[n++] = "--config";
	argv[n++] = d->config;
	argv[n] = NULL;
	run_bxctl(argv, d->top, NULL, r);
}

static void
test_cli_add_and_remove(void **state)
{
	static const char *add[] = { "grants", "add", "http_fetch", "--host",
	    "example.org", "--host", "*.example.org", "--mode", "ask",
	    "--expires", "2d", "--max-taint", "public", "--class", "public",
	    "--untrusted", "--id", "web", NULL };
	static const char *rm[] = { "grants", "remove", "web", NULL };
	struct dirs *d = *state;
	struct run_result r;
	char path[4096], buf[1024], names[512];
	FILE *f;
	size_t n;

	bxctl(d, add, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "added grant web"));
	run_result_free(&r);
	snprintf(path, sizeof(path), "%s/web.toml", d->grants);
	assert_non_null(f = fopen(path, "r"));
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	fclose(f);
	assert_non_null(strstr(buf, "tool = \"http_fetch\"\nmode = \"ask\"\n"
	    "max_taint = \"public\"\nresult_class = \"public\"\n"
	    "untrusted = true\n"));
	assert_non_null(strstr(buf, "hosts = [\"example.org\", "
	    "\"*.example.org\"]\n"));

	/* The same id again: refused, the file as it was. */
	bxctl(d, add, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "already exists; nothing was replaced"));
	run_result_free(&r);

	bxctl(d, rm, &r);
	assert_int_equal(r.status, 0);
	assert_non_null(strstr(r.out, "removed grant web"));
	run_result_free(&r);
	assert_string_equal(listing(d->grants, names, sizeof(names)), "");
	bxctl(d, rm, &r);
	assert_int_equal(r.status, 1);
	assert_non_null(strstr(r.err, "there is no grant web"));
	run_result_free(&r);
}

/* What brokerd refuses, refused in its words, and nothing written. */
static void
test_cli_add_refusals(void **state)
{
	static const struct {
		const char	*args[16];
		const char	*says;
	} cases[] = {
		{ { "grants", "add", "read_file", "--path", "notes", "--mode",
		    "auto", "--expires", "1h", NULL },
		    "constraints.paths: \"notes\" is not a valid absolute path" },
		{ { "grants", "add", "read_file", "--host", "example.org",
		    "--path", "/n", "--mode", "auto", "--expires", "1h", NULL },
		    "a read_file grant takes no constraints.hosts" },
		{ { "grants", "add", "read_file", "--mode", "auto",
		    "--expires", "1h", NULL },
		    "a read_file grant requires constraints.paths" },
		{ { "grants", "add", "read_file", "--path", "/n", "--mode",
		    "sometimes", "--expires", "1h", NULL },
		    "mode \"sometimes\" is not auto, ask or deny" },
		{ { "grants", "add", "run_code", "--path", "/n", "--mode",
		    "auto", "--expires", "1h", NULL },
		    "tool \"run_code\" is not one of read_file, write_file, "
		    "shell, http_fetch" },
		{ { "grants", "add", "http_fetch", "--host", "*.org", "--mode",
		    "auto", "--expires", "1h", NULL },
		    "constraints.hosts: \"*.org\" is not a valid host pattern" },
		{ { "grants", "add", "read_file", "--path", "/n", "--mode",
		    "auto", "--expires", "1h", "--max-taint", "top", NULL },
		    "field \"max_taint\"" },
		{ { "grants", "add", "read_file", "--path", "/n", "--mode",
		    "auto", "--expires", "1h", "--id", "Notes", NULL },
		    "'Notes' is not a valid grant id" },
		{ { "grants", "add", "read_file", "--path", "/n", "--mode",
		    "auto", "--expires", "2020-01-01T00:00:00Z", NULL },
		    "has already passed" },
		{ { "grants", "add", "read_file", "--path", "/n", "--mode",
		    "auto", NULL }, "missing --expires" },
	};
	struct dirs *d = *state;
	struct run_result r;
	char names[512];
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		bxctl(d, cases[i].args, &r);
		assert_int_not_equal(r.status, 0);
		if (strstr(r.err, cases[i].says) == NULL)
			fail_msg("case %zu: %s", i, r.err);
		run_result_free(&r);
		assert_string_equal(listing(d->grants, names, sizeof(names)),
		    "");
	}
}

/*
 * bxctl approve --for on a shell call, as the owner runs it: refused with
 * the reason, no approve sent, nothing written; the approval still waits.
 */
static void
test_cli_approve_for_shell(void **state)
{
	struct dirs *d = *state;
	struct run_result r;
	struct fake *admin;
	char sock[4096], list[1024], expires[BX_TIME_LEN + 1], names[512];
	const char *args[] = { "approve", "--for", "1h", "--admin-socket",
	    sock, "41", NULL };

	snprintf(sock, sizeof(sock), "%s/admin.sock", d->top);
	admin = fake_admin_start(sock);
	bx_time_format(show_now() + 600000, expires);
	snprintf(list, sizeof(list), "{\"kind\":\"approval_list\",\"items\":"
	    "[{\"approval\":41,\"session\":\"s1\",\"call\":\"call_1\","
	    "\"tool\":\"shell\",\"arguments\":\"{\\\"command\\\":"
	    "\\\"ls\\\"}\",\"grant\":\"sh\",\"taint\":\"private\","
	    "\"created\":\"%s\",\"expires\":\"%s\"}]}", expires, expires);
	fake_admin_reply(admin, "approvals", list);
	bxctl(d, args, &r);
	assert_int_equal(r.status, 1);
	if (strstr(r.err, "a shell grant would let every command run in "
	    "that directory") == NULL || strstr(r.err, "the call still "
	    "waits") == NULL)
		fail_msg("stderr: %s", r.err);
	assert_string_equal(r.out, "");
	run_result_free(&r);
	assert_int_equal(fake_count(admin), 1);
	assert_non_null(strstr(fake_received(admin, 0), "\"approvals\""));
	assert_string_equal(listing(d->grants, names, sizeof(names)), "");
	fake_stop(admin);
}

int
main(void)
{
#define T(name) cmocka_unit_test_setup_teardown(name, setup, teardown)
	const struct CMUnitTest tests[] = {
		T(test_round_trip),
		T(test_not_utf8_refused_by_loader),
		T(test_put_never_replaces),
		T(test_put_into_a_file),
		T(test_remove_only_grant_files),
		T(test_durations),
		T(test_cli_add_and_remove),
		T(test_cli_add_refusals),
		T(test_cli_approve_for_shell),
	};
#undef T

	return cmocka_run_group_tests(tests, NULL, NULL);
}
