/*
 * test-audit-start.c: brokerd's audit startup (design section 5, steps 1
 * to 5) on every case of the tampering suite, tests/fixtures/audit/. Each
 * failing case stops startup at the same file and line as the
 * ChainVerifier run over the whole directory; --accept-break then appends
 * an AcceptedBreak that every later verify reports; a torn tail is ended
 * and recovered; and no byte that was in a file is ever changed.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "audit-helpers.h"

#define NOW	1758400000000LL		/* 2025-09-20T20:26:40.000Z */
#define FILES_MAX	4

struct snapshot {
	char	*name[FILES_MAX];
	char	*bytes[FILES_MAX];
	size_t	 len[FILES_MAX];
	int	 n;
};

static char *
slurp(const char *path, size_t *ret_len)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *fp = fopen(path, "rb");
	int ch;

	if (fp == NULL)
		return NULL;
	buf = malloc(1 << 20);
	assert_non_null(buf);
	while ((ch = fgetc(fp)) != EOF && len < (1 << 20) - 1)
		buf[len++] = (char)ch;
	buf[len] = '\0';
	fclose(fp);
	*ret_len = len;
	return buf;
}

static void
snap(const char *home, struct snapshot *s)
{
	char dir[4096], path[8192];
	struct dirent *de;
	DIR *d;

	memset(s, 0, sizeof(*s));
	snprintf(dir, sizeof(dir), "%s/audit", home);
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		if (strstr(de->d_name, ".jsonl") == NULL)
			continue;
		assert_true(s->n < FILES_MAX);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		s->name[s->n] = strdup(de->d_name);
		s->bytes[s->n] = slurp(path, &s->len[s->n]);
		s->n++;
	}
	closedir(d);
}

/* Every file of before is still there, and starts with the same bytes. */
static void
unchanged(const char *home, struct snapshot *before)
{
	char path[8192], *now;
	size_t len;
	int i;

	for (i = 0; i < before->n; i++) {
		snprintf(path, sizeof(path), "%s/audit/%s", home,
		    before->name[i]);
		now = slurp(path, &len);
		assert_non_null(now);
		if (len < before->len[i] ||
		    memcmp(now, before->bytes[i], before->len[i]) != 0)
			fail_msg("%s was truncated or rewritten",
			    before->name[i]);
		free(now);
	}
}

static void
snap_free(struct snapshot *s)
{
	int i;

	for (i = 0; i < s->n; i++) {
		free(s->name[i]);
		free(s->bytes[i]);
	}
}

static char *
fixture_file(const char *name, const char *file)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char path[4096];
	size_t len;
	char *text;

	snprintf(path, sizeof(path), "%s/tests/fixtures/audit/%s/%s",
	    root != NULL ? root : ".", name, file);
	text = slurp(path, &len);
	assert_non_null(text);
	return text;
}

/* A copy of the case's home in a temporary directory. */
static char *
copy_case(const char *name)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char src[4096], dst[4096];
	char *home = th_home();

	snprintf(src, sizeof(src), "%s/tests/fixtures/audit/%s/audit",
	    root != NULL ? root : ".", name);
	snprintf(dst, sizeof(dst), "%s/audit", home);
	th_copy_dir(src, dst);
	return home;
}

static int
start(const char *home, bool accept, struct audit **ret, struct bx_error *err)
{
	static struct th_clock clock;
	static struct th_io io;

	th_clock_init(&clock, NOW);
	th_io_init(&io);
	*ret = NULL;
	return th_open(home, accept, &clock, &io, ret, err);
}

static void
start_ok(const char *home, size_t notices)
{
	struct bx_error err;
	struct audit *a;

	if (start(home, false, &a, &err) != 0)
		fail_msg("startup failed: %s", err.msg);
	assert_int_equal(audit_notice_count(a), notices);
	audit_close(a);
}

static void
nothing_to_accept(const char *home)
{
	struct bx_error err;
	struct audit *a;

	assert_int_equal(start(home, true, &a, &err), AUDIT_NOTHING_TO_ACCEPT);
	assert_non_null(strstr(err.msg, "nothing to accept"));
	assert_null(a);
}

/* verify.out's "FILE:LINE:" for a failing case. */
static void
verify_location(const char *name, char *file, size_t size, uint64_t *line)
{
	char *out = fixture_file(name, "verify.out"), *colon;

	colon = strchr(out, ':');
	assert_non_null(colon);
	snprintf(file, size, "%.*s", (int)(colon - out), out);
	*line = strtoull(colon + 1, NULL, 10);
	free(out);
}

/* The case's failure, through the ChainVerifier over the whole directory. */
static void
verifier_fails_at(const char *name, const char *home)
{
	struct bx_chain_report *r = th_verify(home);
	char file[256];
	uint64_t line;

	verify_location(name, file, sizeof(file), &line);
	assert_true(r->failed);
	assert_string_equal(r->failure.at.file, file);
	assert_int_equal(r->failure.at.line, line);
	bx_chain_report_free(r);
}

static void
failing_case(const char *name, const char *expect)
{
	char *home = copy_case(name), where[256], want[300];
	struct bx_chain_report *r;
	struct snapshot before;
	struct bx_error err;
	struct audit *a;

	assert_int_equal(sscanf(expect, "fail %255s", where), 1);
	verifier_fails_at(name, home);
	snap(home, &before);
	assert_int_equal(start(home, false, &a, &err), -1);
	snprintf(want, sizeof(want), "audit: %s: ", where);
	if (strncmp(err.msg, want, strlen(want)) != 0 ||
	    strstr(err.msg, "see docs/runbook.md#audit-chain-broken") == NULL)
		fail_msg("%s: startup said \"%s\", not %s", name, err.msg, where);
	unchanged(home, &before);

	/* --accept-break appends the break; every later verify reports it. */
	if (start(home, true, &a, &err) != 0)
		fail_msg("%s: accept: %s", name, err.msg);
	assert_int_equal(audit_notice_count(a), 1);
	assert_non_null(strstr(audit_notice(a, 0), where));
	audit_close(a);
	unchanged(home, &before);
	r = th_verify(home);
	assert_false(r->failed);
	assert_int_equal(r->nbreaks, 1);
	snprintf(want, sizeof(want), "%s:%llu", r->breaks[0].accepted.file,
	    (unsigned long long)r->breaks[0].accepted.line);
	assert_string_equal(want, where);
	bx_chain_report_free(r);
	nothing_to_accept(home);
	start_ok(home, 0);
	r = th_verify(home);
	assert_false(r->failed);
	assert_int_equal(r->nbreaks, 1);
	bx_chain_report_free(r);
	snap_free(&before);
	th_rmrf(home);
	free(home);
}

static void
recover_case(const char *name)
{
	char *home = copy_case(name);
	struct bx_chain_report *r;
	struct snapshot before;
	struct bx_error err;
	struct audit *a;

	snap(home, &before);
	if (start(home, false, &a, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	assert_int_equal(audit_notice_count(a), 1);
	assert_non_null(strstr(audit_notice(a, 0),
	    "audit: recovered a torn final line"));
	assert_non_null(strstr(audit_notice(a, 0),
	    "see docs/runbook.md#audit-recovered"));
	audit_close(a);
	unchanged(home, &before);
	r = th_verify(home);
	assert_false(r->failed);
	assert_false(r->torn);
	assert_int_equal(r->nrecoveries, 1);
	bx_chain_report_free(r);
	/* Once recovered, startup has nothing more to say. */
	start_ok(home, 0);
	snap_free(&before);
	th_rmrf(home);
	free(home);
}

static void
ok_case(const char *name)
{
	char *home = copy_case(name);
	struct snapshot before;

	snap(home, &before);
	start_ok(home, 0);
	nothing_to_accept(home);
	unchanged(home, &before);
	snap_free(&before);
	th_rmrf(home);
	free(home);
}

static void
test_fixtures(void **state)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char dir[4096], *expect;
	struct dirent *de;
	int cases = 0;
	DIR *d;

	(void)state;
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/audit",
	    root != NULL ? root : ".");
	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || strchr(de->d_name, '.') != NULL ||
		    strcmp(de->d_name, "meson") == 0)
			continue;
		expect = fixture_file(de->d_name, "start.expect");
		if (strncmp(expect, "fail ", 5) == 0)
			failing_case(de->d_name, expect);
		else if (strcmp(expect, "recover\n") == 0)
			recover_case(de->d_name);
		else if (strcmp(expect, "ok\n") == 0)
			ok_case(de->d_name);
		else
			fail_msg("%s: start.expect is \"%s\"", de->d_name,
			    expect);
		free(expect);
		cases++;
	}
	closedir(d);
	/* The six tamperings and their variants, and the non-failures. */
	assert_true(cases >= 13);
}

static void
test_empty_home(void **state)
{
	char *home = th_home();

	(void)state;
	start_ok(home, 0);
	nothing_to_accept(home);
	th_rmrf(home);
	free(home);
}

/* Startup resumes from the last line of the file before the newest. */
static void
test_resume_from_previous_file(void **state)
{
	char *home = copy_case("good");
	struct bx_audit_event ev = th_decision(false);
	struct bx_chain_report *r;
	struct bx_error err;
	struct audit *a;
	uint64_t seq;

	(void)state;
	assert_int_equal(start(home, false, &a, &err), 0);
	assert_int_equal(audit_append(a, &ev, &seq, &err), 0);
	assert_int_equal(seq, 11);
	audit_close(a);
	/* NOW is a day after the newest file: a third file chains on. */
	assert_int_equal(th_lines(home, "2025-09-20.jsonl"), 1);
	assert_int_equal(start(home, false, &a, &err), 0);
	audit_close(a);
	r = th_verify(home);
	assert_false(r->failed);
	assert_int_equal(r->records, 12);
	bx_chain_report_free(r);
	th_rmrf(home);
	free(home);
}

/*
 * When the file before the newest does not end in a record, startup
 * verifies it too, so its failure has a place and can be accepted.
 */
static void
test_damaged_previous_file(void **state)
{
	char *home = copy_case("good");
	struct bx_chain_report *r;
	struct bx_error err;
	struct audit *a;

	(void)state;
	th_append_raw(home, "2025-09-18.jsonl", "garbage", 7);
	assert_int_equal(start(home, false, &a, &err), -1);
	if (strstr(err.msg, "audit: 2025-09-18.jsonl:4: ") == NULL)
		fail_msg("%s", err.msg);
	assert_int_equal(start(home, true, &a, &err), 0);
	audit_close(a);
	r = th_verify(home);
	assert_false(r->failed);
	assert_int_equal(r->nbreaks, 1);
	assert_string_equal(r->breaks[0].accepted.file, "2025-09-18.jsonl");
	assert_string_equal(r->breaks[0].at.file, "2025-09-19.jsonl");
	bx_chain_report_free(r);
	th_rmrf(home);
	free(home);
}

/* A file name that is not a date makes startup stop, not write into it. */
static void
test_foreign_file(void **state)
{
	char *home = copy_case("good");
	struct bx_error err;
	struct audit *a;

	(void)state;
	th_append_raw(home, "zz-notes.jsonl", "hello\n", 6);
	assert_int_equal(start(home, false, &a, &err), -1);
	assert_non_null(strstr(err.msg, "zz-notes.jsonl"));
	assert_non_null(strstr(err.msg, "see docs/runbook.md#"));
	th_rmrf(home);
	free(home);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures),
		cmocka_unit_test(test_empty_home),
		cmocka_unit_test(test_resume_from_previous_file),
		cmocka_unit_test(test_damaged_previous_file),
		cmocka_unit_test(test_foreign_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
