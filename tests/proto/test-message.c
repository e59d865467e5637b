/*
 * test-message.c: the message codec of src/proto/message.h against the
 * byte-exact fixtures in tests/fixtures/messages/: each decodes and encodes
 * back to the same bytes, the fixtures cover every kind, status, event type
 * and outcome, and for every fixture an unknown field, a duplicate key, a
 * missing field and a wrong type are each refused with an error naming the
 * key.
 */
#include <dirent.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "proto/frame.h"
#include "proto/json.h"
#include "proto/message.h"
#include "proto/readfile.h"

#define MAX_FIXTURES	64

struct fixture {
	char	 name[128];
	char	*bytes;		/* the whole file, newline included */
	size_t	 len;
};

static struct fixture	fixtures[MAX_FIXTURES];
static size_t		nfixtures;
/* How many optional fields test_refusals found absent-as-null. */
static size_t		nabsent;

static int
load_fixtures(void **state)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char dir[512], path[1024];
	struct bx_error err;
	struct dirent *de;
	DIR *d;
	size_t n;

	(void)state;
	assert_non_null(root);
	snprintf(dir, sizeof(dir), "%s/tests/fixtures/messages", root);
	d = opendir(dir);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		n = strlen(de->d_name);
		if (n < 7 || strcmp(de->d_name + n - 6, ".jsonl") != 0)
			continue;
		assert_true(nfixtures < MAX_FIXTURES);
		snprintf(fixtures[nfixtures].name,
		    sizeof(fixtures[nfixtures].name), "%s", de->d_name);
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (bx_readfile(path, 0, &fixtures[nfixtures].bytes,
		    &fixtures[nfixtures].len, NULL, &err) == -1)
			fail_msg("%s", err.msg);
		assert_true(fixtures[nfixtures].len > 0);
		nfixtures++;
	}
	closedir(d);
	return 0;
}

static int
free_fixtures(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < nfixtures; i++)
		free(fixtures[i].bytes);
	return 0;
}

/* Decodes a fixture line (without its newline); fails the test if refused. */
static struct bx_msg *
decode_fixture(const struct fixture *f)
{
	struct bx_error err = { "" };
	struct bx_msg *m = NULL;

	if (bx_msg_decode(f->bytes, f->len - 1, &m, &err) == -1)
		fail_msg("%s: %s", f->name, err.msg);
	return m;
}

static void
test_round_trip(void **state)
{
	struct bx_error err;
	struct bx_msg *m;
	size_t i, len;
	char *out;

	(void)state;
	assert_true(nfixtures >= BX_MSG_MAX);
	for (i = 0; i < nfixtures; i++) {
		assert_int_equal(fixtures[i].bytes[fixtures[i].len - 1], '\n');
		m = decode_fixture(&fixtures[i]);
		if (bx_msg_encode(m, &out, &len, &err) == -1)
			fail_msg("%s: %s", fixtures[i].name, err.msg);
		if (len != fixtures[i].len ||
		    memcmp(out, fixtures[i].bytes, len) != 0)
			fail_msg("%s: encoded as\n%s", fixtures[i].name, out);
		free(out);
		bx_msg_free(m);
	}
}

/* Every kind, status, event type and outcome has a fixture. */
static void
test_coverage(void **state)
{
	bool kinds[BX_MSG_MAX] = { 0 }, statuses[BX_STATUS_MAX] = { 0 };
	bool events[BX_EVENT_MAX] = { 0 }, outcomes[BX_OUTCOME_MAX] = { 0 };
	struct bx_msg *m;
	size_t i;

	(void)state;
	for (i = 0; i < nfixtures; i++) {
		m = decode_fixture(&fixtures[i]);
		kinds[m->kind] = true;
		if (m->kind == BX_MSG_TOOL_RESPONSE)
			statuses[m->tool_response.status] = true;
		if (m->kind == BX_MSG_TURN_EVENT)
			events[m->turn_event.type] = true;
		if (m->kind == BX_MSG_APPROVE_RESULT)
			outcomes[m->approve_result.kind] = true;
		bx_msg_free(m);
	}
	for (i = 0; i < BX_MSG_MAX; i++)
		if (!kinds[i])
			fail_msg("no fixture for kind %s", bx_msg_kind_name(i));
	for (i = 0; i < BX_STATUS_MAX; i++)
		if (!statuses[i])
			fail_msg("no fixture for status %s", bx_status_name(i));
	for (i = 0; i < BX_EVENT_MAX; i++)
		if (!events[i])
			fail_msg("no fixture for event %s", bx_event_name(i));
	for (i = 0; i < BX_OUTCOME_MAX; i++)
		if (!outcomes[i])
			fail_msg("no fixture for outcome %s",
			    bx_outcome_name(i));
}

/* Decoding line must fail with an error containing needle. */
static void
expect_refused(const char *what, const char *line, size_t len,
    const char *needle)
{
	struct bx_error err = { "" };
	struct bx_msg *m = (struct bx_msg *)&err;	/* must stay untouched */

	if (bx_msg_decode(line, len, &m, &err) == 0)
		fail_msg("%s: accepted %.*s", what, (int)len, line);
	assert_ptr_equal(m, (struct bx_msg *)&err);
	if (strstr(err.msg, needle) == NULL)
		fail_msg("%s: error \"%s\" does not name %s", what, err.msg,
		    needle);
}

/* Encodes v compactly (no newline) into a malloc'd string. */
static char *
dump(const json_t *v)
{
	char *s = json_dumps(v, JSON_COMPACT | JSON_PRESERVE_ORDER);

	assert_non_null(s);
	return s;
}

/*
 * The object a test mutates: the top level (outer == NULL), or the object
 * at root[outer], or its first element when root[outer] is an array.
 */
static json_t *
target(json_t *root, const char *outer)
{
	json_t *v;

	if (outer == NULL)
		return root;
	v = json_object_get(root, outer);
	return json_is_array(v) ? json_array_get(v, 0) : v;
}

/*
 * The optional fields (Option<T>): absent decodes as null (baseline.md
 * section 1). Every other field is required.
 */
static bool
optional_field(const json_t *root, const char *outer, const char *key)
{
	static const struct {
		const char	*kind, *outer, *key;
	} opt[] = {
		{ "chat", NULL, "session" },
		{ "refuse", NULL, "reason" },
		{ "approve", NULL, "by" },
		{ "approve", NULL, "post" },
		{ "refuse", NULL, "by" },
		{ "refuse", NULL, "post" },
		{ "approval_changes", "ended", "by" },
		{ "approval_changes", "ended", "post" },
		{ "approval_changes", "ended", "outcome" },
		{ "grants_report", "problems", "line" },
		{ "grant_list", "problems", "line" },
		{ "explanation", "problems", "line" },
		{ "session_list", "items", "last_call" },
		{ "explanation", NULL, "detail" },
		{ "explanation", NULL, "grant" },
		{ "explanation", "grant", "matched_path" },
	};
	const char *kind = json_string_value(json_object_get(root, "kind"));
	size_t i;

	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++)
		if (kind != NULL && strcmp(kind, opt[i].kind) == 0 &&
		    ((outer == NULL && opt[i].outer == NULL) ||
		    (outer != NULL && opt[i].outer != NULL &&
		    strcmp(outer, opt[i].outer) == 0)) &&
		    strcmp(key, opt[i].key) == 0)
			return true;
	return false;
}

/* Decodes line and encodes it again; fails the test if either fails. */
static char *
reencode(const char *what, const char *line)
{
	struct bx_error err = { "" };
	struct bx_msg *m = NULL;
	size_t len;
	char *out;

	if (bx_msg_decode(line, strlen(line), &m, &err) == -1)
		fail_msg("%s: refused: %s\n%s", what, err.msg, line);
	if (bx_msg_encode(m, &out, &len, &err) == -1)
		fail_msg("%s: %s", what, err.msg);
	bx_msg_free(m);
	return out;
}

/*
 * An optional field removed from copy (a fixture) decodes to the same value
 * as the field set to null: both encode to the same bytes, with null.
 */
static void
absent_is_null(const char *what, json_t *copy, const char *outer,
    const char *key)
{
	char *absent, *null, *a, *n;

	absent = dump(copy);
	assert_int_equal(json_object_set_new(target(copy, outer), key,
	    json_null()), 0);
	null = dump(copy);
	a = reencode(what, absent);
	n = reencode(what, null);
	if (strcmp(a, n) != 0)
		fail_msg("%s: absent gives\n%snull gives\n%s", what, a, n);
	free(absent);
	free(null);
	free(a);
	free(n);
}

/*
 * For one object of a fixture, each key: given a wrong type, then removed;
 * then a stranger key added. Each must be refused naming the key, except
 * that a removed optional field decodes as null.
 */
static void
mutate_object(const char *name, json_t *root, const char *outer)
{
	char what[256], needle[128], *line;
	json_t *obj = target(root, outer), *copy, *saved;
	const char *key;
	void *iter;

	for (iter = json_object_iter(obj); iter != NULL;
	    iter = json_object_iter_next(obj, iter)) {
		key = json_object_iter_key(iter);
		snprintf(needle, sizeof(needle), "\"%s\"", key);

		/* Wrong type: an array, or an object where an array belongs. */
		saved = json_incref(json_object_iter_value(iter));
		json_object_iter_set_new(obj, iter,
		    json_is_array(saved) ? json_object() : json_array());
		line = dump(root);
		snprintf(what, sizeof(what), "%s, %s of the wrong type", name,
		    key);
		expect_refused(what, line, strlen(line), needle);
		free(line);
		json_object_iter_set_new(obj, iter, saved);

		copy = json_deep_copy(root);
		assert_int_equal(json_object_del(target(copy, outer), key), 0);
		snprintf(what, sizeof(what), "%s without %s", name, key);
		if (optional_field(root, outer, key)) {
			absent_is_null(what, copy, outer, key);
			json_decref(copy);
			nabsent++;
			continue;
		}
		line = dump(copy);
		snprintf(needle, sizeof(needle), "missing field \"%s\"", key);
		expect_refused(what, line, strlen(line), needle);
		free(line);
		json_decref(copy);
	}
	copy = json_deep_copy(root);
	assert_int_equal(json_object_set_new(target(copy, outer), "zzz",
	    json_integer(1)), 0);
	line = dump(copy);
	snprintf(what, sizeof(what), "%s with an unknown field", name);
	expect_refused(what, line, strlen(line), "unknown field \"zzz\"");
	free(line);
	json_decref(copy);
}

/* Each top-level key of the fixture given twice, the copy first. */
static void
duplicate_keys(const struct fixture *f, json_t *root)
{
	char what[256], needle[128], *line;
	const char *key;
	json_t *v;
	int n;

	json_object_foreach(root, key, v) {
		n = asprintf(&line, "{\"%s\":null,%s", key, f->bytes + 1);
		assert_true(n > 0);
		snprintf(what, sizeof(what), "%s with %s twice", f->name, key);
		snprintf(needle, sizeof(needle), "\"%s\"", key);
		/* Without the fixture's newline. */
		expect_refused(what, line, (size_t)n - 1, needle);
		free(line);
	}
}

static void
test_refusals(void **state)
{
	json_error_t jerr;
	const char *key;
	json_t *root, *v;
	size_t i, nested = 0;

	(void)state;
	for (i = 0; i < nfixtures; i++) {
		root = json_loadb(fixtures[i].bytes, fixtures[i].len, 0, &jerr);
		assert_non_null(root);
		mutate_object(fixtures[i].name, root, NULL);
		duplicate_keys(&fixtures[i], root);
		/* The nested objects: PendingApproval, GrantProblem,
		 * DecisionRecord. */
		json_object_foreach(root, key, v) {
			if ((json_is_array(v) && json_array_size(v) > 0 &&
			    json_is_object(json_array_get(v, 0))) ||
			    json_is_object(v)) {
				mutate_object(fixtures[i].name, root, key);
				nested++;
			}
		}
		json_decref(root);
	}
	/* approval_list, grants_report and the three approve_results. */
	assert_true(nested >= 5);
	/*
	 * chat and chat-new-session, refuse and refuse-no-reason, and the
	 * first GrantProblem of grants_report: every optional field; the
	 * console's: grant_list's and explanation-grants_invalid's first
	 * GrantProblem, session_list's first last_call, and detail and grant
	 * of the three explanations, with the matched path of the one that
	 * has a grant; by and post of the five approves and refuses (and
	 * refuse-mattermost's reason), and of approval_changes' first ended,
	 * with its outcome.
	 */
	assert_int_equal(nabsent, 29);
}

static void
refused(const char *line, const char *needle)
{
	expect_refused(line, line, strlen(line), needle);
}

/* An approvals_wait names at most BX_WAIT_KNOWN_MAX approvals. */
static void
test_wait_known_bound(void **state)
{
	uint64_t known[BX_WAIT_KNOWN_MAX + 1];
	struct bx_error err;
	struct bx_msg *m, *back;
	char *line;
	size_t i, len;

	(void)state;
	for (i = 0; i <= BX_WAIT_KNOWN_MAX; i++)
		known[i] = i + 1;
	assert_non_null(m = bx_msg_approvals_wait(known, BX_WAIT_KNOWN_MAX,
	    5));
	assert_int_equal(bx_msg_encode(m, &line, &len, &err), 0);
	assert_int_equal(bx_msg_decode(line, len, &back, &err), 0);
	assert_int_equal(back->approvals_wait.nknown, BX_WAIT_KNOWN_MAX);
	assert_int_equal(back->approvals_wait.known[BX_WAIT_KNOWN_MAX - 1],
	    BX_WAIT_KNOWN_MAX);
	bx_msg_free(back);
	bx_msg_free(m);
	free(line);
	assert_non_null(m = bx_msg_approvals_wait(known,
	    BX_WAIT_KNOWN_MAX + 1, 5));
	assert_int_equal(bx_msg_encode(m, &line, &len, &err), 0);
	expect_refused("1025 known", line, len, "at most 1024");
	bx_msg_free(m);
	free(line);
}

static void
test_refuses_values(void **state)
{
	(void)state;
	refused("{\"kind\":\"nope\"}", "\"kind\"");
	refused("{}", "missing field \"kind\"");
	refused("[]", "not a JSON object");
	refused("{\"kind\":\"ok\"} {}", "not valid JSON");
	refused("{\"kind\":\"tool_response\",\"final\":true,"
	    "\"status\":\"pending_approval\",\"approval\":41,"
	    "\"expires\":\"2026-09-18T12:15:00.000Z\"}", "\"final\"");
	refused("{\"kind\":\"tool_response\",\"final\":false,"
	    "\"status\":\"denied\",\"reason\":\"no_grant\"}", "\"final\"");
	refused("{\"kind\":\"turn_event\",\"final\":false,\"type\":\"done\","
	    "\"reply\":\"x\"}", "\"final\"");
	refused("{\"kind\":\"turn_event\",\"final\":true,\"type\":\"text\","
	    "\"text\":\"x\"}", "\"final\"");
	/* A field of another status is an unknown field. */
	refused("{\"kind\":\"tool_response\",\"final\":true,"
	    "\"status\":\"denied\",\"reason\":\"no_grant\",\"message\":\"x\"}",
	    "unknown field \"message\"");
	refused("{\"kind\":\"tool_response\",\"final\":true,"
	    "\"status\":\"denied\",\"reason\":\"maybe\"}", "\"reason\"");
	refused("{\"kind\":\"tool_request\",\"session\":\"../etc\","
	    "\"call\":\"c\",\"tool\":\"shell\",\"arguments\":\"{}\"}",
	    "\"session\"");
	refused("{\"kind\":\"tool_request\",\"session\":\"s\","
	    "\"call\":\"c d\",\"tool\":\"shell\",\"arguments\":\"{}\"}",
	    "\"call\"");
	refused("{\"kind\":\"tool_request\",\"session\":\"s\","
	    "\"call\":\"c\",\"tool\":\"shell\",\"arguments\":{}}",
	    "\"arguments\"");
	refused("{\"kind\":\"chat\",\"session\":\"\",\"text\":\"x\"}",
	    "\"session\"");
	refused("{\"kind\":\"approve\",\"approval\":-1}", "\"approval\"");
	refused("{\"kind\":\"approve\",\"approval\":1.0}", "\"approval\"");
	refused("{\"kind\":\"approve\",\"approval\":\"41\"}", "\"approval\"");
	refused("{\"kind\":\"approve\",\"approval\":99999999999999999999}",
	    "not valid JSON");
	refused("{\"kind\":\"tool_response\",\"final\":false,"
	    "\"status\":\"pending_approval\",\"approval\":41,"
	    "\"expires\":\"2026-02-29T12:15:00.000Z\"}", "\"expires\"");
	refused("{\"kind\":\"tool_response\",\"final\":true,"
	    "\"status\":\"result\",\"content\":\"x\",\"class\":\"Secret\","
	    "\"untrusted\":false,\"truncated\":false}", "\"class\"");
	refused("{\"kind\":\"turn_event\",\"final\":false,"
	    "\"type\":\"tool_result\",\"call\":\"c\","
	    "\"status\":\"pending_approval\",\"content\":\"x\","
	    "\"class\":\"public\",\"untrusted\":false}", "\"status\"");
	refused("{\"kind\":\"approve_result\",\"outcome\":{\"outcome\":"
	    "\"allowed\",\"reason\":\"no_grant\"}}", "unknown field \"reason\"");
	refused("{\"kind\":\"approve_result\",\"outcome\":{\"outcome\":"
	    "\"denied\"}}", "missing field \"reason\"");
	refused("{\"kind\":\"approve_result\",\"outcome\":{\"outcome\":"
	    "\"approved\"}}", "\"outcome\"");
	refused("{\"kind\":\"approval_list\",\"items\":[1]}", "\"items\"");
	/* An answer's Mattermost ids: 26 of [a-z0-9], exactly. */
	refused("{\"kind\":\"approve\",\"approval\":41,"
	    "\"by\":\"KZ8F3Q1XWBYN5C7TDM2RE4HS6A\",\"post\":null}", "\"by\"");
	refused("{\"kind\":\"approve\",\"approval\":41,\"by\":null,"
	    "\"post\":\"p9w2c7dj4xkqm8rf3nt6ybz1v\"}", "\"post\"");
	refused("{\"kind\":\"refuse\",\"approval\":41,\"reason\":null,"
	    "\"by\":\"kz8f3q1xwbyn5c7tdm2re4hs6a0\",\"post\":null}", "\"by\"");
	refused("{\"kind\":\"refuse\",\"approval\":41,\"reason\":null,"
	    "\"by\":\"kz8f3q1xwbyn5c7tdm2re4hs6a\","
	    "\"post\":\"p9w2c7dj4xkqm8rf3nt6ybz1v@\"}", "\"post\"");
	refused("{\"kind\":\"approvals_wait\",\"known\":[],"
	    "\"timeout_ms\":60001}", "\"timeout_ms\"");
	refused("{\"kind\":\"approvals_wait\",\"known\":[],"
	    "\"timeout_ms\":-1}", "\"timeout_ms\"");
	refused("{\"kind\":\"approvals_wait\",\"known\":[1,-1],"
	    "\"timeout_ms\":0}", "\"known\" [1]");
	refused("{\"kind\":\"approval_changes\",\"items\":[],\"ended\":"
	    "[{\"approval\":1,\"end\":\"maybe\",\"by\":null,\"post\":null,"
	    "\"outcome\":null}]}", "\"end\"");
	refused("{\"kind\":\"grants_report\",\"problems\":[{\"file\":\"f\","
	    "\"line\":1,\"problem\":\"p\",\"problem\":\"q\"}]}", "\"problem\"");
	refused("{\"kind\":\"error\",\"code\":\"teapot\",\"message\":\"x\"}",
	    "\"code\"");
	refused("{\"kind\":\"chat\",\"session\":null,\"text\":\"\\u0000\"}",
	    "not valid JSON");
	refused("{\"kind\":\"chat\",\"session\":null,\"text\":\"\xc3\"}",
	    "not valid JSON");
}

/* A frame nested 10,000 deep is refused by the depth limit, not by a crash. */
static void
test_refuses_deep(void **state)
{
	const char *head = "{\"kind\":\"chat\",\"session\":null,\"text\":";
	size_t depth = 10000, i, len = 0;
	char *line;

	(void)state;
	line = malloc(strlen(head) + 2 * depth + 2);
	assert_non_null(line);
	memcpy(line, head, strlen(head));
	len = strlen(head);
	for (i = 0; i < depth; i++)
		line[len++] = '[';
	for (i = 0; i < depth; i++)
		line[len++] = ']';
	line[len++] = '}';
	expect_refused("deep", line, len, "deeper than 32");
	free(line);
}

static void
test_accepts(void **state)
{
	struct bx_error err;
	struct bx_msg *m;
	const char *line;

	(void)state;
	/* An unknown tool is decoded as it came; brokerd denies it. */
	line = "{\"kind\":\"tool_request\",\"session\":\"s\",\"call\":\"c\","
	    "\"tool\":\"echo\",\"arguments\":\"not json\"}";
	assert_int_equal(bx_msg_decode(line, strlen(line), &m, &err), 0);
	assert_string_equal(m->tool_request.tool, "echo");
	assert_string_equal(m->tool_request.arguments, "not json");
	bx_msg_free(m);
	/* Whitespace and any key order are fine on input. */
	line = " { \"approval\" : 9223372036854775807 , \"kind\" : \"approve\" } ";
	assert_int_equal(bx_msg_decode(line, strlen(line), &m, &err), 0);
	assert_int_equal(m->kind, BX_MSG_APPROVE);
	assert_true(m->approve.approval == INT64_MAX);
	bx_msg_free(m);
	bx_msg_free(NULL);
}

/* The fixture called name, as a C string with its newline. */
static const char *
fixture_bytes(const char *name)
{
	size_t i;

	for (i = 0; i < nfixtures; i++)
		if (strcmp(fixtures[i].name, name) == 0)
			return fixtures[i].bytes;
	fail_msg("no fixture %s", name);
	return NULL;
}

/* Encodes m (then frees it) and compares with the fixture called name. */
static void
assert_encodes_as(struct bx_msg *m, const char *name)
{
	struct bx_error err;
	size_t len;
	char *out;

	assert_non_null(m);
	if (bx_msg_encode(m, &out, &len, &err) == -1)
		fail_msg("%s: %s", name, err.msg);
	assert_string_equal(out, fixture_bytes(name));
	assert_int_equal(len, strlen(out));
	free(out);
	bx_msg_free(m);
}

static int64_t
ts(const char *s)
{
	struct bx_error err;
	int64_t ms;

	assert_int_equal(bx_time_parse(s, &ms, &err), 0);
	return ms;
}

static void
test_constructors(void **state)
{
	struct bx_outcome o = { BX_OUTCOME_DENIED, BX_DENY_TAINT_TOO_HIGH };
	struct bx_pending_approval p = {
		.approval = 41, .session = "chat-1758200000000",
		.call = "call_1", .tool = "shell",
		.arguments = "{\"command\": \"rm -rf /home/kyle/scratch/build\", "
		    "\"cwd\": \"/home/kyle/scratch\"}",
		.grant = "shell-scratch", .taint = BX_CLASS_PRIVATE,
	};
	int64_t expires = ts("2026-09-18T12:15:00.000Z");
	struct bx_msg *m;

	(void)state;
	p.created = ts("2026-09-18T12:00:00.000Z");
	p.expires = expires;
	assert_encodes_as(bx_msg_tool_request("chat-1758200000000", "call_0",
	    "read_file", "{\"path\":\"/home/kyle/notes/a.md\"}"),
	    "tool_request.jsonl");
	assert_encodes_as(bx_msg_pending(41, expires),
	    "tool_response-pending_approval.jsonl");
	assert_encodes_as(bx_msg_result("# Notes\n/home/kyle \xe2\x80\x94 "
	    "caf\xc3\xa9\tdone\x1b[0m", BX_CLASS_PRIVATE, false, false),
	    "tool_response-result.jsonl");
	assert_encodes_as(bx_msg_failed("no tool runs: the runner kind is "
	    "refuse"),
	    "tool_response-failed.jsonl");
	assert_encodes_as(bx_msg_denied(BX_DENY_NO_GRANT),
	    "tool_response-denied.jsonl");
	assert_encodes_as(bx_msg_new(BX_MSG_APPROVALS), "approvals.jsonl");
	m = bx_msg_new(BX_MSG_APPROVAL_LIST);
	assert_int_equal(bx_msg_add_pending(m, &p), 0);
	assert_encodes_as(m, "approval_list.jsonl");
	assert_encodes_as(bx_msg_new(BX_MSG_APPROVAL_LIST),
	    "approval_list-empty.jsonl");
	assert_encodes_as(bx_msg_approve(41), "approve.jsonl");
	assert_encodes_as(bx_msg_approve_result(&o),
	    "approve_result-denied.jsonl");
	assert_encodes_as(bx_msg_refuse(41, "not now"), "refuse.jsonl");
	assert_encodes_as(bx_msg_refuse(41, NULL), "refuse-no-reason.jsonl");
	assert_encodes_as(bx_msg_new(BX_MSG_OK), "ok.jsonl");
	assert_encodes_as(bx_msg_new(BX_MSG_CHECK_GRANTS),
	    "check_grants.jsonl");
	m = bx_msg_new(BX_MSG_GRANTS_REPORT);
	assert_int_equal(bx_msg_add_problem(m, "grants/notes-read.toml", true,
	    7, "unknown key \"mod\""), 0);
	assert_int_equal(bx_msg_add_problem(m, "grants/Bad.toml", false, 0,
	    "\"Bad\" is not a valid grant id"), 0);
	assert_encodes_as(m, "grants_report.jsonl");
	assert_encodes_as(bx_msg_error(BX_CODE_FORBIDDEN,
	    "approve is not accepted on broker.sock"), "error.jsonl");
	assert_encodes_as(bx_msg_chat(NULL, "Hello"), "chat-new-session.jsonl");
	assert_encodes_as(bx_msg_ev_started("chat-1758200000000"),
	    "turn_event-started.jsonl");
	assert_encodes_as(bx_msg_ev_text("Let me look."),
	    "turn_event-text.jsonl");
	assert_encodes_as(bx_msg_ev_text_delta("Let me"),
	    "turn_event-text_delta.jsonl");
	assert_encodes_as(bx_msg_ev_tool_call("call_0", "read_file",
	    "{\"path\":\"/home/kyle/notes/a.md\"}"),
	    "turn_event-tool_call.jsonl");
	assert_encodes_as(bx_msg_ev_tool_result("call_0", BX_STATUS_DENIED,
	    "Denied: no grant allows this call.", BX_CLASS_PUBLIC, false),
	    "turn_event-tool_result.jsonl");
	assert_encodes_as(bx_msg_ev_approval_pending(41, "shell", expires),
	    "turn_event-approval_pending.jsonl");
	assert_encodes_as(bx_msg_ev_done("Your notes hold one file, a.md."),
	    "turn_event-done.jsonl");
	assert_encodes_as(bx_msg_ev_error("the model server is unavailable"),
	    "turn_event-error.jsonl");
}

/* Encoding refuses what the wire cannot carry, naming the field. */
static void
test_encode_refuses(void **state)
{
	struct bx_error err = { "" };
	struct bx_msg *m;
	char *out = NULL, *big;
	size_t len = 0;

	(void)state;
	m = bx_msg_result("caf\xc3", BX_CLASS_PUBLIC, false, false);
	assert_int_equal(bx_msg_encode(m, &out, &len, &err), -1);
	assert_null(out);
	assert_non_null(strstr(err.msg, "\"content\""));
	bx_msg_free(m);

	m = bx_msg_pending(1, BX_TIME_MAX_MS + 1);
	assert_int_equal(bx_msg_encode(m, &out, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"expires\""));
	bx_msg_free(m);

	m = bx_msg_approve((uint64_t)INT64_MAX + 1);
	assert_int_equal(bx_msg_encode(m, &out, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"approval\""));
	bx_msg_free(m);

	m = bx_msg_failed(NULL);
	assert_int_equal(bx_msg_encode(m, &out, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"message\""));
	bx_msg_free(m);

	/* A frame past the limit is refused; one just under is fine. */
	big = malloc(BX_FRAME_MAX);
	assert_non_null(big);
	memset(big, 'a', BX_FRAME_MAX - 1);
	big[BX_FRAME_MAX - 1] = '\0';
	m = bx_msg_failed(big);
	assert_int_equal(bx_msg_encode(m, &out, &len, &err), -1);
	assert_non_null(strstr(err.msg, "1048576"));
	bx_msg_free(m);
	len = strlen("{\"kind\":\"tool_response\",\"final\":true,"
	    "\"status\":\"failed\",\"message\":\"\"}\n");
	big[BX_FRAME_MAX - len] = '\0';
	m = bx_msg_failed(big);
	assert_int_equal(bx_msg_encode(m, &out, &len, &err), 0);
	assert_int_equal(len, BX_FRAME_MAX);
	free(out);
	bx_msg_free(m);
	free(big);
}

/* docs/protocol.md shows every fixture, verbatim, as an example frame. */
static void
test_documented(void **state)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char path[512], *doc, *line;
	struct bx_error err;
	size_t i, len;

	(void)state;
	snprintf(path, sizeof(path), "%s/docs/protocol.md", root);
	if (bx_readfile(path, 0, &doc, &len, NULL, &err) == -1)
		fail_msg("%s", err.msg);
	assert_true(len > 0);
	for (i = 0; i < nfixtures; i++) {
		/* "    <frame>\n", an indented code line. */
		assert_true(asprintf(&line, "    %s", fixtures[i].bytes) > 0);
		if (strstr(doc, line) == NULL)
			fail_msg("docs/protocol.md lacks the example %s",
			    fixtures[i].name);
		free(line);
	}
	free(doc);
}

static void
test_names(void **state)
{
	size_t i;

	(void)state;
	for (i = 0; i < BX_MSG_MAX; i++)
		assert_string_not_equal(bx_msg_kind_name(i), "?");
	assert_string_equal(bx_msg_kind_name(BX_MSG_MAX), "?");
	assert_string_equal(bx_code_name(BX_CODE_NO_SUCH_APPROVAL),
	    "no_such_approval");
	assert_string_equal(bx_code_name(BX_CODE_INTERNAL), "internal");
	assert_string_equal(bx_event_name(BX_EVENT_APPROVAL_PENDING),
	    "approval_pending");
	assert_string_equal(bx_status_name(BX_STATUS_PENDING_APPROVAL),
	    "pending_approval");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_coverage),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_refuses_values),
		cmocka_unit_test(test_wait_known_bound),
		cmocka_unit_test(test_refuses_deep),
		cmocka_unit_test(test_accepts),
		cmocka_unit_test(test_constructors),
		cmocka_unit_test(test_encode_refuses),
		cmocka_unit_test(test_documented),
		cmocka_unit_test(test_names),
	};
	return cmocka_run_group_tests(tests, load_fixtures, free_fixtures);
}
