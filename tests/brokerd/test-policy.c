/*
 * test-policy.c: decide and redecide against grant directories on disk.
 * Every row of the tables of design section 3 is its own case, plus mode
 * precedence, the order of reasons, expiry at the instant, ties by id, and
 * the order of denials of baseline.md section 6.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "brokerd/policy.h"
#include "grants-fixture.h"
#include "proto/sha256.h"

#define LATER	"2027-01-01T00:00:00.000Z"
#define NOTES	"paths = [\"/home/kyle/notes\"]"

static int64_t now_ms;		/* 2026-09-18T12:00:00.000Z */
static int64_t later_ms;	/* LATER */

static int
setup(void **state)
{
	struct bx_error err;
	char *dir = fixture_dir();

	if (bx_time_parse("2026-09-18T12:00:00.000Z", &now_ms, &err) == -1 ||
	    bx_time_parse(LATER, &later_ms, &err) == -1)
		return -1;
	*state = dir;
	return 0;
}

static int
teardown(void **state)
{
	fixture_remove(*state);
	free(*state);
	return 0;
}

static struct decision *
decide_full(const char *dir, const char *tool, const char *args,
    enum bx_class taint, bool unreadable, int64_t now)
{
	struct policy_request r = { tool, args, strlen(args), taint,
	    unreadable, now };
	struct decision *d = NULL;
	struct bx_error err;

	if (policy_decide(dir, &r, &d, NULL, &err) != 0)
		fail_msg("policy_decide: %s", err.msg);
	return d;
}

static struct decision *
decide(const char *dir, const char *tool, const char *args)
{
	return decide_full(dir, tool, args, BX_CLASS_PRIVATE, false, now_ms);
}

/* The outcome must be kind (and reason), under grant (NULL: none). */
static void
check(const struct decision *d, enum bx_outcome_kind kind,
    enum bx_deny reason, const char *grant)
{
	struct bx_outcome o = decision_outcome(d);

	if (o.kind != kind || (kind == BX_OUTCOME_DENIED && o.reason != reason))
		fail_msg("%s %s: got %s %s (%s), want %s %s",
		    decision_tool_name(d), decision_arguments(d, NULL),
		    bx_outcome_name(o.kind),
		    o.kind == BX_OUTCOME_DENIED ? bx_deny_name(o.reason) : "",
		    decision_detail(d), bx_outcome_name(kind),
		    kind == BX_OUTCOME_DENIED ? bx_deny_name(reason) : "");
	if (grant == NULL) {
		assert_false(decision_has_grant(d));
		assert_null(decision_grant_id(d));
	} else
		assert_string_equal(decision_grant_id(d), grant);
}

static void
expect(const char *dir, const char *tool, const char *args,
    enum bx_outcome_kind kind, enum bx_deny reason, const char *grant)
{
	struct decision *d = decide(dir, tool, args);

	check(d, kind, reason, grant);
	decision_free(d);
}

#define ALLOWED(dir, tool, args, g) \
	expect(dir, tool, args, BX_OUTCOME_ALLOWED, 0, g)
#define DENIED(dir, tool, args, why) \
	expect(dir, tool, args, BX_OUTCOME_DENIED, BX_DENY_##why, NULL)

static void
grant(const char *dir, const char *id, const char *tool, const char *mode,
    const char *constraints)
{
	fixture_grant(dir, id, tool, mode, "secret", LATER, constraints);
}

#define READ(p)	"{\"path\":\"" p "\"}"

/* The Paths table, row by row. */
static void
test_paths_inside(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	ALLOWED(*state, "read_file", READ("/home/kyle/notes/a.md"), "notes");
}

static void
test_paths_directory_itself(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	ALLOWED(*state, "read_file", READ("/home/kyle/notes"), "notes");
}

static void
test_paths_sibling_prefix(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	DENIED(*state, "read_file", READ("/home/kyle/notes2/a.md"), NO_GRANT);
}

static void
test_paths_dotdot(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	DENIED(*state, "read_file", READ("/home/kyle/notes/../.ssh/id"),
	    INVALID_ARGUMENTS);
}

static void
test_paths_relative(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	DENIED(*state, "read_file", READ("notes/a.md"), INVALID_ARGUMENTS);
}

static void
test_paths_double_slash_dot(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	DENIED(*state, "read_file", READ("/home/kyle//notes/./a.md"),
	    INVALID_ARGUMENTS);
}

static void
test_paths_root_grant(void **state)
{
	grant(*state, "everything", "read_file", "auto", "paths = [\"/\"]");
	ALLOWED(*state, "read_file", READ("/etc/passwd"), "everything");
}

/* Several of a grant's paths contain the argument: the longest is matched. */
static void
test_paths_longest(void **state)
{
	struct decision *d;
	size_t n;

	grant(*state, "home", "read_file", "auto",
	    "paths = [\"/home/kyle\", \"/home/kyle/notes\", \"/home\"]");
	d = decide(*state, "read_file", READ("/home/kyle/notes/a.md"));
	check(d, BX_OUTCOME_ALLOWED, 0, "home");
	assert_string_equal(decision_matched_path(d), "/home/kyle/notes");
	assert_int_equal(decision_grant_paths(d, &n)[0][0], '/');
	assert_int_equal(n, 3);
	decision_free(d);
}

/* The Hosts table, row by row. */
#define FETCH(u) "{\"url\":\"https://" u "/index.html\"}"

static void
test_hosts_exact(void **state)
{
	grant(*state, "ex", "http_fetch", "auto", "hosts = [\"example.com\"]");
	ALLOWED(*state, "http_fetch", FETCH("example.com"), "ex");
}

static void
test_hosts_exact_not_sub(void **state)
{
	grant(*state, "ex", "http_fetch", "auto", "hosts = [\"example.com\"]");
	DENIED(*state, "http_fetch", FETCH("www.example.com"), NO_GRANT);
}

static void
test_hosts_wildcard(void **state)
{
	grant(*state, "ex", "http_fetch", "auto",
	    "hosts = [\"*.example.com\"]");
	ALLOWED(*state, "http_fetch", FETCH("www.example.com"), "ex");
	ALLOWED(*state, "http_fetch", FETCH("a.b.example.com"), "ex");
}

static void
test_hosts_wildcard_not_apex(void **state)
{
	grant(*state, "ex", "http_fetch", "auto",
	    "hosts = [\"*.example.com\"]");
	DENIED(*state, "http_fetch", FETCH("example.com"), NO_GRANT);
	grant(*state, "ex", "http_fetch", "auto",
	    "hosts = [\"*.example.com\", \"example.com\"]");
	ALLOWED(*state, "http_fetch", FETCH("example.com"), "ex");
}

/* The URL rule: anything but its form is invalid_arguments. */
static void
test_urls(void **state)
{
	static const char *bad[] = {
		"{\"url\":\"http://example.com/\"}",
		"{\"url\":\"https://127.0.0.1/\"}",
		"{\"url\":\"https://[::1]/\"}",
		"{\"url\":\"https://EXAMPLE.com/\"}",
		"{\"url\":\"https://me@example.com/\"}",
		"{\"url\":\"https://example.com:8080/\"}",
		"{\"url\":\"https://example.com/a b\"}",
	};
	size_t i;

	grant(*state, "ex", "http_fetch", "auto", "hosts = [\"example.com\"]");
	ALLOWED(*state, "http_fetch", "{\"url\":\"https://example.com\"}", "ex");
	ALLOWED(*state, "http_fetch",
	    "{\"url\":\"https://example.com:443/a?b#c\"}", "ex");
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		DENIED(*state, "http_fetch", bad[i], INVALID_ARGUMENTS);
}

/* "What each tool takes, and what its constraints cover", row by row. */
static void
test_cover_read_file(void **state)
{
	grant(*state, "notes", "read_file", "auto", NOTES);
	ALLOWED(*state, "read_file", READ("/home/kyle/notes/x"), "notes");
	DENIED(*state, "read_file", READ("/home/kyle/x"), NO_GRANT);
	DENIED(*state, "read_file", "{\"path\":\"/home/kyle/notes/x\","
	    "\"offset\":1}", INVALID_ARGUMENTS);
}

static void
test_cover_write_file(void **state)
{
	grant(*state, "drafts", "write_file", "auto",
	    "paths = [\"/home/kyle/drafts\"]");
	ALLOWED(*state, "write_file", "{\"path\":\"/home/kyle/drafts/a.md\","
	    "\"content\":\"hi\"}", "drafts");
	DENIED(*state, "write_file", "{\"path\":\"/home/kyle/drafts\","
	    "\"content\":\"hi\"}", NO_GRANT);
	DENIED(*state, "write_file", "{\"path\":\"/home/kyle/drafts/a.md\"}",
	    INVALID_ARGUMENTS);
}

/* The grant path itself is refused only for that path: a parent covers it. */
static void
test_cover_write_file_nested(void **state)
{
	struct decision *d;

	grant(*state, "home", "write_file", "auto",
	    "paths = [\"/home/kyle\", \"/home/kyle/drafts\"]");
	d = decide(*state, "write_file", "{\"path\":\"/home/kyle/drafts\","
	    "\"content\":\"\"}");
	check(d, BX_OUTCOME_ALLOWED, 0, "home");
	assert_string_equal(decision_matched_path(d), "/home/kyle");
	decision_free(d);
}

static void
test_cover_shell_no_paths(void **state)
{
	struct decision *d;

	grant(*state, "sh", "shell", "auto", "");
	d = decide(*state, "shell", "{\"command\":\"date\"}");
	check(d, BX_OUTCOME_ALLOWED, 0, "sh");
	assert_null(decision_matched_path(d));
	decision_free(d);
	DENIED(*state, "shell", "{\"command\":\"date\",\"cwd\":\"/tmp\"}",
	    NO_GRANT);
}

static void
test_cover_shell_paths(void **state)
{
	struct decision *d;

	grant(*state, "scratch", "shell", "auto",
	    "paths = [\"/home/kyle/scratch\", \"/home/kyle/build\"]");
	d = decide(*state, "shell", "{\"command\":\"make\","
	    "\"cwd\":\"/home/kyle/build/x\"}");
	check(d, BX_OUTCOME_ALLOWED, 0, "scratch");
	assert_string_equal(decision_matched_path(d), "/home/kyle/build");
	decision_free(d);
	DENIED(*state, "shell", "{\"command\":\"make\"}", NO_GRANT);
	DENIED(*state, "shell", "{\"command\":\"make\",\"cwd\":null}",
	    NO_GRANT);
	DENIED(*state, "shell", "{\"command\":\"make\",\"cwd\":\"/home\"}",
	    NO_GRANT);
	DENIED(*state, "shell", "{\"command\":\"make\",\"cwd\":\"home\"}",
	    INVALID_ARGUMENTS);
}

static void
test_cover_http_fetch(void **state)
{
	struct decision *d;
	size_t n;

	grant(*state, "docs", "http_fetch", "auto",
	    "hosts = [\"docs.example.org\", \"*.example.net\"]");
	d = decide(*state, "http_fetch", FETCH("x.example.net"));
	check(d, BX_OUTCOME_ALLOWED, 0, "docs");
	assert_null(decision_matched_path(d));
	assert_string_equal(decision_grant_hosts(d, &n)[1], "*.example.net");
	assert_int_equal(n, 2);
	assert_string_equal(decision_args(d)->ta_host, "x.example.net");
	decision_free(d);
	DENIED(*state, "http_fetch", FETCH("example.org"), NO_GRANT);
}

/* Among matching grants deny wins over ask, ask over auto. */
static void
test_mode_precedence(void **state)
{
	grant(*state, "a-auto", "read_file", "auto", NOTES);
	grant(*state, "b-ask", "read_file", "ask", NOTES);
	grant(*state, "c-deny", "read_file", "deny", NOTES);
	expect(*state, "read_file", READ("/home/kyle/notes/x"),
	    BX_OUTCOME_DENIED, BX_DENY_DENIED_BY_GRANT, "c-deny");
	fixture_unlink(*state, "c-deny.toml");
	expect(*state, "read_file", READ("/home/kyle/notes/x"),
	    BX_OUTCOME_ASK, 0, "b-ask");
	fixture_unlink(*state, "b-ask.toml");
	ALLOWED(*state, "read_file", READ("/home/kyle/notes/x"), "a-auto");
}

/*
 * An exact auto grant (the very file read, the very host fetched) outranks
 * ask, never deny: what `bxctl approve --for` writes. A folder, a
 * wildcard, a shell or write_file grant is never exact.
 */
static void
test_exact_auto_over_ask(void **state)
{
	grant(*state, "notes-ask", "read_file", "ask", NOTES);
	grant(*state, "z-one", "read_file", "auto",
	    "paths = [\"/home/kyle/notes/x\"]");
	ALLOWED(*state, "read_file", READ("/home/kyle/notes/x"), "z-one");
	expect(*state, "read_file", READ("/home/kyle/notes/x/y"),
	    BX_OUTCOME_ASK, 0, "notes-ask");
	expect(*state, "read_file", READ("/home/kyle/notes/y"),
	    BX_OUTCOME_ASK, 0, "notes-ask");
	grant(*state, "z-deny", "read_file", "deny", NOTES);
	expect(*state, "read_file", READ("/home/kyle/notes/x"),
	    BX_OUTCOME_DENIED, BX_DENY_DENIED_BY_GRANT, "z-deny");

	grant(*state, "web-ask", "http_fetch", "ask",
	    "hosts = [\"*.example.org\"]");
	grant(*state, "web-one", "http_fetch", "auto",
	    "hosts = [\"docs.example.org\"]");
	grant(*state, "web-star", "http_fetch", "auto",
	    "hosts = [\"*.example.org\"]");
	ALLOWED(*state, "http_fetch", FETCH("docs.example.org"), "web-one");
	expect(*state, "http_fetch", FETCH("www.example.org"),
	    BX_OUTCOME_ASK, 0, "web-ask");

	grant(*state, "w-ask", "write_file", "ask", NOTES);
	grant(*state, "w-auto", "write_file", "auto", NOTES);
	expect(*state, "write_file",
	    "{\"path\":\"/home/kyle/notes/x\",\"content\":\"\"}",
	    BX_OUTCOME_ASK, 0, "w-ask");
}

/* The stricter grant wins only where it matches. */
static void
test_mode_precedence_scoped(void **state)
{
	grant(*state, "notes", "read_file", "auto", "paths = [\"/home/kyle\"]");
	grant(*state, "ssh", "read_file", "deny", "paths = [\"/home/kyle/.ssh\"]");
	expect(*state, "read_file", READ("/home/kyle/.ssh/id"),
	    BX_OUTCOME_DENIED, BX_DENY_DENIED_BY_GRANT, "ssh");
	ALLOWED(*state, "read_file", READ("/home/kyle/notes/x"), "notes");
}

/* Ties go to the lowest id in byte order: '-' < '0' < 'a'. */
static void
test_ties_by_id(void **state)
{
	grant(*state, "ab", "read_file", "ask", NOTES);
	grant(*state, "a0", "read_file", "ask", NOTES);
	grant(*state, "b", "read_file", "ask", NOTES);
	expect(*state, "read_file", READ("/home/kyle/notes/x"),
	    BX_OUTCOME_ASK, 0, "a0");
	grant(*state, "a-b", "read_file", "ask", NOTES);
	expect(*state, "read_file", READ("/home/kyle/notes/x"),
	    BX_OUTCOME_ASK, 0, "a-b");
	/* A lower id with a laxer mode does not win. */
	grant(*state, "0", "read_file", "auto", NOTES);
	expect(*state, "read_file", READ("/home/kyle/notes/x"),
	    BX_OUTCOME_ASK, 0, "a-b");
}

static void
test_expiry_at_the_instant(void **state)
{
	struct decision *d;
	const char *args = READ("/home/kyle/notes/x");

	grant(*state, "notes", "read_file", "auto", NOTES);
	d = decide_full(*state, "read_file", args, BX_CLASS_PUBLIC, false,
	    later_ms - 1);
	check(d, BX_OUTCOME_ALLOWED, 0, "notes");
	assert_true(decision_grant_expires(d) == later_ms);
	decision_free(d);
	d = decide_full(*state, "read_file", args, BX_CLASS_PUBLIC, false,
	    later_ms);
	check(d, BX_OUTCOME_DENIED, BX_DENY_GRANT_EXPIRED, NULL);
	decision_free(d);
	d = decide_full(*state, "read_file", args, BX_CLASS_PUBLIC, false,
	    later_ms + 1);
	check(d, BX_OUTCOME_DENIED, BX_DENY_GRANT_EXPIRED, NULL);
	decision_free(d);
}

static void
test_taint(void **state)
{
	struct decision *d;
	const char *args = READ("/home/kyle/notes/x");

	fixture_grant(*state, "notes", "read_file", "auto", "private", LATER,
	    NOTES);
	d = decide_full(*state, "read_file", args, BX_CLASS_PRIVATE, false,
	    now_ms);
	check(d, BX_OUTCOME_ALLOWED, 0, "notes");
	decision_free(d);
	d = decide_full(*state, "read_file", args, BX_CLASS_SECRET, false,
	    now_ms);
	check(d, BX_OUTCOME_DENIED, BX_DENY_TAINT_TOO_HIGH, NULL);
	assert_int_equal(decision_taint(d), BX_CLASS_SECRET);
	decision_free(d);
}

/*
 * One candidate expired, another with too much taint: expiry is named.
 * Either alone names itself; one grant both expired and tainted is not
 * "only by" either, and neither is one that would not cover the call.
 */
static void
test_reason_order(void **state)
{
	const char *args = READ("/home/kyle/notes/x");
	const char *old = "2026-01-01T00:00:00.000Z";
	struct decision *d;

	fixture_grant(*state, "b-old", "read_file", "auto", "secret", old,
	    NOTES);
	fixture_grant(*state, "a-strict", "read_file", "auto", "public",
	    LATER, NOTES);
	d = decide(*state, "read_file", args);
	check(d, BX_OUTCOME_DENIED, BX_DENY_GRANT_EXPIRED, NULL);
	assert_int_equal(decision_ncandidates(d), 2);
	assert_string_equal(decision_candidate(d, 0)->pc_id, "a-strict");
	assert_int_equal(decision_candidate(d, 0)->pc_verdict, POLICY_TAINT);
	assert_string_equal(decision_candidate(d, 1)->pc_id, "b-old");
	assert_int_equal(decision_candidate(d, 1)->pc_verdict, POLICY_EXPIRED);
	assert_null(decision_candidate(d, 2));
	decision_free(d);
	fixture_unlink(*state, "b-old.toml");
	DENIED(*state, "read_file", args, TAINT_TOO_HIGH);
	fixture_unlink(*state, "a-strict.toml");
	fixture_grant(*state, "both", "read_file", "auto", "public", old,
	    NOTES);
	DENIED(*state, "read_file", args, NO_GRANT);
	fixture_unlink(*state, "both.toml");
	fixture_grant(*state, "elsewhere", "read_file", "auto", "secret", old,
	    "paths = [\"/srv\"]");
	fixture_grant(*state, "strict-elsewhere", "read_file", "auto",
	    "public", LATER, "paths = [\"/srv\"]");
	DENIED(*state, "read_file", args, NO_GRANT);
}

/* Grants for another tool are no candidates. */
static void
test_other_tool(void **state)
{
	struct decision *d;

	grant(*state, "w", "write_file", "auto", NOTES);
	d = decide(*state, "read_file", READ("/home/kyle/notes/x"));
	check(d, BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	assert_int_equal(decision_ncandidates(d), 0);
	decision_free(d);
	DENIED(*state, "read_file", READ("/home/kyle/notes/x"), NO_GRANT);
}

/* The matched grant's fields travel with the decision. */
static void
test_matched_grant(void **state)
{
	static const char text[] = "tool = \"read_file\"\nmode = \"ask\"\n"
	    "max_taint = \"secret\"\nresult_class = \"secret\"\n"
	    "untrusted = true\nexpires = \"" LATER "\"\n[constraints]\n"
	    NOTES "\n";
	struct bx_hash want;
	struct bx_error err;
	struct decision *d;

	fixture_text(*state, "keys.toml", text);
	d = decide(*state, "read_file", READ("/home/kyle/notes/k"));
	check(d, BX_OUTCOME_ASK, 0, "keys");
	assert_int_equal(decision_grant_mode(d), GRANT_MODE_ASK);
	assert_int_equal(decision_result_class(d), BX_CLASS_SECRET);
	assert_true(decision_untrusted(d));
	assert_int_equal(bx_sha256(text, sizeof(text) - 1, &want, &err), 0);
	assert_true(bx_hash_equal(decision_grant_sha256(d), &want));
	assert_string_equal(decision_args(d)->ta_path, "/home/kyle/notes/k");
	assert_int_equal(decision_tool(d), BX_TOOL_READ_FILE);
	assert_true(decision_now(d) == now_ms);
	assert_int_equal(decision_candidate(d, 0)->pc_verdict, POLICY_MATCHED);
	decision_free(d);
}

/* baseline.md section 6: grants_invalid, state_unreadable, arguments. */
static void
test_denial_order(void **state)
{
	struct decision *d;

	grant(*state, "notes", "read_file", "auto", NOTES);
	d = decide_full(*state, "read_file", READ("/home/kyle/notes/a"),
	    BX_CLASS_PUBLIC, true, now_ms);
	check(d, BX_OUTCOME_DENIED, BX_DENY_STATE_UNREADABLE, NULL);
	assert_null(decision_args(d));
	decision_free(d);
	d = decide_full(*state, "read_file", "{", BX_CLASS_PUBLIC, true,
	    now_ms);
	check(d, BX_OUTCOME_DENIED, BX_DENY_STATE_UNREADABLE, NULL);
	decision_free(d);
	DENIED(*state, "exec", "{\"path\":\"/home/kyle/notes/a\"}",
	    INVALID_ARGUMENTS);
	DENIED(*state, "", "{}", INVALID_ARGUMENTS);
	DENIED(*state, "read_file", "{\"path\":1}", INVALID_ARGUMENTS);
	fixture_text(*state, "broken.toml", "tool = ");
	d = decide_full(*state, "read_file", "{", BX_CLASS_PUBLIC, true,
	    now_ms);
	check(d, BX_OUTCOME_DENIED, BX_DENY_GRANTS_INVALID, NULL);
	decision_free(d);
}

/* One invalid file among valid ones denies a call a valid file allows. */
static void
test_one_invalid_denies(void **state)
{
	struct bx_error err;
	struct grants *set = NULL;
	struct policy_request r = { "read_file", READ("/home/kyle/notes/a"),
	    0, BX_CLASS_PUBLIC, false, 0 };
	struct decision *d = NULL;

	r.pr_arguments_len = strlen(r.pr_arguments);
	r.pr_now = now_ms;
	grant(*state, "notes", "read_file", "auto", NOTES);
	grant(*state, "other", "http_fetch", "auto", "hosts = [\"a.org\"]");
	ALLOWED(*state, "read_file", READ("/home/kyle/notes/a"), "notes");
	grant(*state, "typo", "http_fetch", "deny", "hosts = [\"A.org\"]");
	assert_int_equal(policy_decide(*state, &r, &d, &set, &err), 0);
	check(d, BX_OUTCOME_DENIED, BX_DENY_GRANTS_INVALID, NULL);
	assert_non_null(set);
	assert_int_equal(set->gs_nproblems, 1);
	assert_non_null(strstr(set->gs_problems[0].gp_file, "typo.toml"));
	decision_free(d);
	grants_free(set);
}

/* A decision copies what it needs: it outlives its grant set. */
static void
test_outlives_set(void **state)
{
	struct policy_request r = { "shell", "{\"command\":\"ls\","
	    "\"cwd\":\"/home/kyle/notes/x\"}", 0, BX_CLASS_PUBLIC, false, 0 };
	struct grants *set = NULL;
	struct decision *d = NULL;
	struct bx_error err;

	r.pr_arguments_len = strlen(r.pr_arguments);
	r.pr_now = now_ms;
	grant(*state, "sh", "shell", "ask", NOTES);
	assert_int_equal(grants_load(*state, &set, &err), 0);
	assert_int_equal(policy_decide_grants(set, &r, &d, &err), 0);
	grants_free(set);
	check(d, BX_OUTCOME_ASK, 0, "sh");
	assert_string_equal(decision_matched_path(d), "/home/kyle/notes");
	assert_string_equal(decision_candidate(d, 0)->pc_id, "sh");
	assert_string_equal(decision_args(d)->ta_cwd, "/home/kyle/notes/x");
	decision_free(d);
	decision_free(NULL);
}

static struct decision *
redecide(const char *dir, const struct decision *pending, enum bx_class taint)
{
	struct decision *d = NULL;
	struct bx_error err;

	if (policy_redecide(dir, pending, taint, false, now_ms + 1000, &d,
	    NULL, &err) != 0)
		fail_msg("policy_redecide: %s", err.msg);
	return d;
}

/* Approve decides again with the grants and state as they are now. */
static void
test_redecide(void **state)
{
	const char *args = READ("/home/kyle/notes/a");
	struct decision *pending, *d;
	struct bx_error err;

	fixture_grant(*state, "notes", "read_file", "ask", "private", LATER,
	    NOTES);
	pending = decide(*state, "read_file", args);
	check(pending, BX_OUTCOME_ASK, 0, "notes");
	d = redecide(*state, pending, BX_CLASS_PRIVATE);
	check(d, BX_OUTCOME_ASK, 0, "notes");
	assert_true(decision_now(d) == now_ms + 1000);
	decision_free(d);
	d = redecide(*state, pending, BX_CLASS_SECRET);
	check(d, BX_OUTCOME_DENIED, BX_DENY_TAINT_TOO_HIGH, NULL);
	assert_int_equal(policy_redecide(*state, d, BX_CLASS_PUBLIC, false,
	    now_ms, &pending, NULL, &err), -1);
	decision_free(d);
	fixture_grant(*state, "open", "read_file", "auto", "private", LATER,
	    NOTES);
	fixture_unlink(*state, "notes.toml");
	d = redecide(*state, pending, BX_CLASS_PRIVATE);
	check(d, BX_OUTCOME_ALLOWED, 0, "open");
	decision_free(d);
	fixture_unlink(*state, "open.toml");
	d = redecide(*state, pending, BX_CLASS_PRIVATE);
	check(d, BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	decision_free(d);
	decision_free(pending);
}

static void
test_bad_taint(void **state)
{
	struct policy_request r = { "read_file", "{}", 2, BX_CLASS_MAX,
	    false, 0 };
	struct decision *d = NULL;
	struct bx_error err;

	assert_int_equal(policy_decide(*state, &r, &d, NULL, &err), -1);
	assert_null(d);
}

#define T(f)	cmocka_unit_test_setup_teardown(f, setup, teardown)

int
main(void)
{
	const struct CMUnitTest tests[] = {
		T(test_paths_inside),
		T(test_paths_directory_itself),
		T(test_paths_sibling_prefix),
		T(test_paths_dotdot),
		T(test_paths_relative),
		T(test_paths_double_slash_dot),
		T(test_paths_root_grant),
		T(test_paths_longest),
		T(test_hosts_exact),
		T(test_hosts_exact_not_sub),
		T(test_hosts_wildcard),
		T(test_hosts_wildcard_not_apex),
		T(test_urls),
		T(test_cover_read_file),
		T(test_cover_write_file),
		T(test_cover_write_file_nested),
		T(test_cover_shell_no_paths),
		T(test_cover_shell_paths),
		T(test_cover_http_fetch),
		T(test_mode_precedence),
		T(test_exact_auto_over_ask),
		T(test_mode_precedence_scoped),
		T(test_ties_by_id),
		T(test_expiry_at_the_instant),
		T(test_taint),
		T(test_reason_order),
		T(test_other_tool),
		T(test_matched_grant),
		T(test_denial_order),
		T(test_one_invalid_denies),
		T(test_outlives_set),
		T(test_redecide),
		T(test_bad_taint),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
