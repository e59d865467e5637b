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
#include "proto/audit_record.h"
#include "proto/readfile.h"
#include "proto/sha256.h"

#define NOW	1758400000000LL		/* 2025-09-20T20:26:40.000Z */
#define FILES_MAX	4

struct snapshot {
	char	*name[FILES_MAX];
	char	*bytes[FILES_MAX];
	size_t	 len[FILES_MAX];
	int	 n;
};

/* The whole file at path (malloc'd), or NULL if it cannot be read. */
static char *
read_whole(const char *path, size_t *ret_len)
{
	struct bx_error err;
	char *buf;

	if (bx_readfile(path, 0, &buf, ret_len, NULL, &err) == -1)
		return NULL;
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
		s->bytes[s->n] = read_whole(path, &s->len[s->n]);
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
		now = read_whole(path, &len);
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
	text = read_whole(path, &len);
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

/* One line of the log, in name order, as the tests read it themselves. */
struct line {
	char		 file[32];
	uint64_t	 lineno;
	const char	*bytes;
	size_t		 len;
	bool		 parses;
	uint64_t	 seq;
};

#define LINES_MAX	64

struct lines {
	struct snapshot	 snap;
	struct line	 l[LINES_MAX];
	int		 n;
};

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every line of every file of home, files in name order. */
static void
read_lines(const char *home, struct lines *ls)
{
	struct bx_audit_record rec;
	struct bx_error err;
	const char *p, *end, *nl;
	char *names[FILES_MAX];
	uint64_t no;
	int i, j;

	snap(home, &ls->snap);
	ls->n = 0;
	for (i = 0; i < ls->snap.n; i++)
		names[i] = ls->snap.name[i];
	qsort(names, (size_t)ls->snap.n, sizeof(names[0]), by_name);
	for (i = 0; i < ls->snap.n; i++) {
		for (j = 0; strcmp(ls->snap.name[j], names[i]) != 0; j++)
			;
		p = ls->snap.bytes[j];
		end = p + ls->snap.len[j];
		for (no = 1; p < end; no++) {
			struct line *l = &ls->l[ls->n++];

			assert_true(ls->n <= LINES_MAX);
			nl = memchr(p, '\n', (size_t)(end - p));
			snprintf(l->file, sizeof(l->file), "%s", names[i]);
			l->lineno = no;
			l->bytes = p;
			l->len = (size_t)((nl == NULL ? end : nl) - p);
			l->parses = bx_audit_record_decode(p, l->len, &rec,
			    &err) == 0;
			if (l->parses) {
				l->seq = rec.seq;
				bx_audit_record_clear(&rec);
			}
			p = nl == NULL ? end : nl + 1;
		}
	}
}

static struct bx_hash
hash_line(const struct line *l)
{
	struct bx_error err;
	struct bx_hash h;

	assert_int_equal(bx_sha256(l->bytes, l->len, &h, &err), 0);
	return h;
}

/* The last line of <home>/audit/<name>, decoded. */
static void
last_record(const char *home, const char *name, struct bx_audit_record *rec)
{
	struct lines ls;
	struct bx_error err;
	const struct line *last = NULL;
	char *copy;
	int i;

	read_lines(home, &ls);
	for (i = 0; i < ls.n; i++)
		if (strcmp(ls.l[i].file, name) == 0)
			last = &ls.l[i];
	assert_non_null(last);
	copy = strndup(last->bytes, last->len);
	assert_non_null(copy);
	if (bx_audit_record_decode(copy, last->len, rec, &err) != 0)
		fail_msg("%s: %s", name, err.msg);
	free(copy);
	snap_free(&ls.snap);
}

/*
 * Design section 5, Startup step 4, computed here from the bytes and not
 * from the verifier's report: the AcceptedBreak names the failure; its
 * last_good is the hash of the line before the failing one (the last that
 * verified: every line before the first failure did), prev the hash of the
 * newest file's last line, seq one more than the highest seq among the
 * lines that parse (at least the failing line's predecessor's plus one).
 */
static void
break_values_case(const char *name, const char *expect)
{
	char *home = copy_case(name), where[256], at[300];
	struct bx_hash last_good = { { 0 } }, prev;
	struct bx_audit_record rec;
	const char *newest;
	struct bx_error err;
	struct audit *a;
	struct lines ls;
	uint64_t seq = 0;
	int i, fail = -1;

	assert_int_equal(sscanf(expect, "fail %255s", where), 1);
	read_lines(home, &ls);
	for (i = 0; i < ls.n; i++) {
		snprintf(at, sizeof(at), "%s:%llu", ls.l[i].file,
		    (unsigned long long)ls.l[i].lineno);
		if (strcmp(at, where) == 0)
			fail = i;
	}
	assert_true(fail >= 0);
	if (fail > 0) {
		last_good = hash_line(&ls.l[fail - 1]);
		assert_true(ls.l[fail - 1].parses);
		seq = ls.l[fail - 1].seq + 1;
	}
	for (i = 0; i < ls.n; i++)
		if (ls.l[i].parses && ls.l[i].seq + 1 > seq)
			seq = ls.l[i].seq + 1;
	newest = ls.l[ls.n - 1].file;
	prev = hash_line(&ls.l[ls.n - 1]);

	if (start(home, true, &a, &err) != 0)
		fail_msg("%s: accept: %s", name, err.msg);
	audit_close(a);
	last_record(home, newest, &rec);
	assert_int_equal(rec.event.type, BX_AUDIT_ACCEPTED_BREAK);
	snprintf(at, sizeof(at), "%s:%llu", rec.event.accepted_break.file,
	    (unsigned long long)rec.event.accepted_break.line);
	assert_string_equal(at, where);
	if (!bx_hash_equal(&rec.event.accepted_break.last_good, &last_good))
		fail_msg("%s: last_good is not the hash of the line before "
		    "the failure", name);
	if (!bx_hash_equal(&rec.prev, &prev))
		fail_msg("%s: prev is not the hash of the file's last line",
		    name);
	if (rec.seq != seq)
		fail_msg("%s: seq %llu, expected %llu", name,
		    (unsigned long long)rec.seq, (unsigned long long)seq);
	assert_int_equal(rec.time, NOW);
	bx_audit_record_clear(&rec);
	snap_free(&ls.snap);
	th_rmrf(home);
	free(home);
}

static void
test_break_values(void **state)
{
	static const char *cases[] = {
		"changed-byte", "changed-byte-syntax", "cut-short",
		"deleted-line", "not-chaining", "seq-gap", "swapped-lines",
		"wrong-break",
	};
	char *expect;
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		expect = fixture_file(cases[i], "start.expect");
		assert_memory_equal(expect, "fail ", 5);
		break_values_case(cases[i], expect);
		free(expect);
	}
}

/*
 * A torn tail is any bytes without a final newline: a prefix of a record,
 * NULs (the size grew before the data landed), or garbage. Startup ends it
 * with "\n" and a Recovery record that hashes exactly those bytes and
 * chains from the line before them; no byte of them changes.
 */
static void
torn_case(const char *bytes, size_t len)
{
	char *home = copy_case("good");
	struct bx_audit_record rec;
	struct bx_chain_report *r;
	struct bx_hash want, prev;
	struct snapshot before;
	struct bx_error err;
	struct audit *a;
	struct lines ls;
	uint64_t seq;

	read_lines(home, &ls);
	prev = hash_line(&ls.l[ls.n - 1]);
	seq = ls.l[ls.n - 1].seq + 1;
	snap_free(&ls.snap);
	th_append_raw(home, "2025-09-19.jsonl", bytes, len);
	assert_int_equal(bx_sha256(bytes, len, &want, &err), 0);
	snap(home, &before);
	if (start(home, false, &a, &err) != 0)
		fail_msg("%s", err.msg);
	assert_int_equal(audit_notice_count(a), 1);
	assert_non_null(strstr(audit_notice(a, 0),
	    "audit: recovered a torn final line"));
	audit_close(a);
	unchanged(home, &before);
	last_record(home, "2025-09-19.jsonl", &rec);
	assert_int_equal(rec.event.type, BX_AUDIT_RECOVERY);
	assert_int_equal(rec.event.recovery.torn_bytes, len);
	assert_true(bx_hash_equal(&rec.event.recovery.torn_sha256, &want));
	assert_true(bx_hash_equal(&rec.prev, &prev));
	assert_int_equal(rec.seq, seq);
	bx_audit_record_clear(&rec);
	r = th_verify(home);
	assert_false(r->failed);
	assert_false(r->torn);
	assert_int_equal(r->nrecoveries, 1);
	assert_int_equal(r->recoveries[0].line, 9);
	bx_chain_report_free(r);
	start_ok(home, 0);
	snap_free(&before);
	th_rmrf(home);
	free(home);
}

static void
test_torn_garbage_and_nuls(void **state)
{
	static const char nuls[300] = { 0 };
	static const char prefix[] =
	    "{\"seq\":11,\"time\":\"2025-09-19T10:00:00.000Z\"\0\0\0";

	(void)state;
	torn_case(nuls, sizeof(nuls));
	torn_case("\xff\xfe{\"seq\":\x01garbage\x1b[31m", 21);
	/* A record's start, then NULs: the literal's bytes, not its terminator. */
	torn_case(prefix, sizeof(prefix) - 1);
}

/*
 * A torn tail after a failure: startup recovers the tail first (chained
 * from the line before it, seq as a break would take), then
 * --accept-break's record follows the Recovery.
 */
static void
test_torn_after_failure(void **state)
{
	char *home = copy_case("seq-gap");
	struct bx_audit_record rec;
	struct bx_chain_report *r;
	struct bx_error err;
	struct audit *a;
	struct lines ls;
	struct bx_hash prev;
	uint64_t seq = 0;
	int i;

	(void)state;
	read_lines(home, &ls);
	prev = hash_line(&ls.l[ls.n - 1]);
	for (i = 0; i < ls.n; i++)
		if (ls.l[i].parses && ls.l[i].seq + 1 > seq)
			seq = ls.l[i].seq + 1;
	snap_free(&ls.snap);
	th_append_raw(home, "2025-09-19.jsonl", "\0\0\0\0", 4);
	/* Without --accept-break: the tail is recovered, the failure stops. */
	assert_int_equal(start(home, false, &a, &err), -1);
	assert_non_null(strstr(err.msg, "audit: 2025-09-19.jsonl:3: "));
	last_record(home, "2025-09-19.jsonl", &rec);
	assert_int_equal(rec.event.type, BX_AUDIT_RECOVERY);
	assert_int_equal(rec.event.recovery.torn_bytes, 4);
	assert_true(bx_hash_equal(&rec.prev, &prev));
	assert_int_equal(rec.seq, seq);
	bx_audit_record_clear(&rec);

	read_lines(home, &ls);
	prev = hash_line(&ls.l[ls.n - 1]);
	snap_free(&ls.snap);
	assert_int_equal(start(home, true, &a, &err), 0);
	audit_close(a);
	last_record(home, "2025-09-19.jsonl", &rec);
	assert_int_equal(rec.event.type, BX_AUDIT_ACCEPTED_BREAK);
	assert_int_equal(rec.event.accepted_break.line, 3);
	assert_true(bx_hash_equal(&rec.prev, &prev));
	assert_int_equal(rec.seq, seq + 1);
	bx_audit_record_clear(&rec);
	r = th_verify(home);
	assert_false(r->failed);
	assert_int_equal(r->nbreaks, 1);
	bx_chain_report_free(r);
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
		cmocka_unit_test(test_break_values),
		cmocka_unit_test(test_torn_garbage_and_nuls),
		cmocka_unit_test(test_torn_after_failure),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
