/*
 * test-audit-record.c: the AuditRecord codec against its byte-exact
 * fixtures (tests/fixtures/audit-records/), both ways, and the strict
 * decoder's refusals for every key of every event: unknown, duplicate,
 * missing and mistyped keys each give an error naming the key. The fast
 * scan must agree with the decoder on every line here, and its fast path
 * must never take a line the decoder refuses: checked on every one-byte
 * change of every fixture and at the line length limit.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <jansson.h>

#include "proto/audit_record.h"
#include "proto/sha256.h"

static const char *fixtures[] = {
	"decision", "approval", "result", "recovery", "accepted_break",
	"decision-denied", "approval-refused",
};
#define NFIXTURES	(sizeof(fixtures) / sizeof(fixtures[0]))

/* Reads tests/fixtures/audit-records/<name>.jsonl without its "\n". */
static char *
read_fixture(const char *name, size_t *ret_len)
{
	const char *root = getenv("BX_SOURCE_ROOT");
	char path[4096], *buf;
	size_t len;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/tests/fixtures/audit-records/%s.jsonl",
	    root != NULL ? root : ".", name);
	fp = fopen(path, "rb");
	assert_non_null(fp);
	buf = malloc(1 << 16);
	assert_non_null(buf);
	len = fread(buf, 1, (1 << 16) - 1, fp);
	fclose(fp);
	assert_true(len > 0 && buf[len - 1] == '\n');
	buf[--len] = '\0';
	assert_null(memchr(buf, '\n', len));
	*ret_len = len;
	return buf;
}

/* Decodes and requires success; scan must agree on every summary field. */
static void
decode_ok(const char *line, size_t len, struct bx_audit_record *rec)
{
	struct bx_audit_summary s;
	struct bx_error err;

	if (bx_audit_record_decode(line, len, rec, &err) != 0)
		fail_msg("decode failed: %s\n%s", err.msg, line);
	assert_int_equal(bx_audit_record_scan(line, len, &s, &err), 0);
	assert_int_equal(s.seq, rec->seq);
	assert_int_equal(s.time, rec->time);
	assert_true(bx_hash_equal(&s.prev, &rec->prev));
	assert_int_equal(s.type, rec->event.type);
}

/* Decoding must fail with a message containing want; so must scanning. */
static void
decode_fails(const char *line, size_t len, const char *want)
{
	struct bx_audit_summary s;
	struct bx_audit_record rec;
	struct bx_error err;

	if (bx_audit_record_decode(line, len, &rec, &err) == 0)
		fail_msg("decoded but should not have:\n%.*s", (int)len, line);
	if (strstr(err.msg, want) == NULL)
		fail_msg("error \"%s\" does not name %s\n%.*s", err.msg, want,
		    (int)len, line);
	assert_int_equal(bx_audit_record_scan(line, len, &s, &err), -1);
}

static void
test_fixtures_round_trip(void **state)
{
	struct bx_audit_record rec;
	struct bx_error err;
	char *line, *out;
	size_t i, len, outlen;

	(void)state;
	for (i = 0; i < NFIXTURES; i++) {
		line = read_fixture(fixtures[i], &len);
		decode_ok(line, len, &rec);
		if (bx_audit_record_encode(&rec, &out, &outlen, &err) != 0)
			fail_msg("%s: %s", fixtures[i], err.msg);
		assert_int_equal(outlen, len);
		assert_memory_equal(out, line, len);
		assert_int_equal(strlen(out), len);
		free(out);
		bx_audit_record_clear(&rec);
		free(line);
	}
}

static void
test_fixture_fields(void **state)
{
	struct bx_audit_record rec;
	struct bx_audit_summary s;
	struct bx_error err;
	char *line;
	size_t len;

	(void)state;
	line = read_fixture("decision", &len);
	decode_ok(line, len, &rec);
	assert_int_equal(rec.event.type, BX_AUDIT_DECISION);
	assert_string_equal(rec.event.decision.session, "chat-1758189600000");
	assert_string_equal(rec.event.decision.call, "call_1");
	assert_string_equal(rec.event.decision.tool, "read_file");
	assert_string_equal(rec.event.decision.arguments,
	    "{\"path\": \"/home/kyle/notes/caf\xc3\xa9.md\",\n \"x\": "
	    "\"\x1b[31m\"}");
	assert_int_equal(rec.event.decision.outcome.kind, BX_OUTCOME_ASK);
	assert_string_equal(rec.event.decision.grant, "notes-read");
	assert_true(rec.event.decision.has_grant_sha256);
	assert_int_equal(rec.event.decision.taint, BX_CLASS_PRIVATE);
	assert_false(rec.event.decision.untrusted);
	assert_true(bx_hash_is_zero(&rec.prev));
	assert_int_equal(bx_audit_record_scan(line, len, &s, &err), 0);
	assert_true(s.ask);
	bx_audit_record_clear(&rec);
	free(line);

	line = read_fixture("approval-refused", &len);
	decode_ok(line, len, &rec);
	assert_int_equal(rec.event.approval.decision, 6);
	assert_int_equal(rec.event.approval.answer, BX_ANSWER_REFUSED);
	assert_string_equal(rec.event.approval.by, "bxctl");
	assert_null(rec.event.approval.post);
	assert_string_equal(rec.event.approval.reason, "not now \"please\"");
	assert_int_equal(rec.event.approval.outcome.kind, BX_OUTCOME_DENIED);
	assert_int_equal(rec.event.approval.outcome.reason,
	    BX_DENY_APPROVAL_REFUSED);
	assert_int_equal(bx_audit_record_scan(line, len, &s, &err), 0);
	assert_int_equal(s.decision, 6);
	bx_audit_record_clear(&rec);
	free(line);

	line = read_fixture("accepted_break", &len);
	assert_int_equal(bx_audit_record_scan(line, len, &s, &err), 0);
	assert_string_equal(s.file, "2026-09-18.jsonl");
	assert_int_equal(s.line, 7);
	free(line);

	line = read_fixture("recovery", &len);
	assert_int_equal(bx_audit_record_scan(line, len, &s, &err), 0);
	assert_int_equal(s.torn_bytes, 136);
	free(line);
}

/* Dumps obj compact (order kept) and checks that decoding fails naming want. */
static void
dump_fails(json_t *obj, const char *want)
{
	char *s = json_dumps(obj, JSON_COMPACT);

	assert_non_null(s);
	decode_fails(s, strlen(s), want);
	free(s);
}

/* How many optional fields test_refusals found absent-as-null. */
static size_t nabsent;

static bool
optional_key(const char *key)
{
	static const char *opt[] = { "grant", "grant_sha256", "by", "post",
	    "reason", NULL };
	size_t i;

	for (i = 0; opt[i] != NULL; i++)
		if (strcmp(key, opt[i]) == 0)
			return true;
	return false;
}

/* A value of the wrong type for key: an array is never right. */
static json_t *
wrong_value(void)
{
	return json_pack("[i]", 1);
}

/* The object at path in a record: "" (the record), "event" or "outcome". */
static json_t *
sub(json_t *root, const char *path)
{
	if (strcmp(path, "") == 0)
		return root;
	if (strcmp(path, "event") == 0)
		return json_object_get(root, "event");
	return json_object_get(json_object_get(root, "event"), "outcome");
}

static const char *
nth_key(json_t *obj, size_t n)
{
	void *it = json_object_iter(obj);

	while (n-- > 0)
		it = json_object_iter_next(obj, it);
	return json_object_iter_key(it);
}

/* The same line with "key":value put again at the start of the object. */
static void
duplicate_fails(const char *line, const char *path, const char *quoted,
    json_t *v)
{
	const char *anchor = strcmp(path, "") == 0 ? "{" :
	    strcmp(path, "event") == 0 ? "\"event\":{" : "\"outcome\":{";
	const char *at = strstr(line, anchor);
	char *value, *dup;
	size_t pre;

	assert_non_null(at);
	value = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
	assert_non_null(value);
	pre = (size_t)(at - line) + strlen(anchor);
	dup = malloc(strlen(line) + strlen(quoted) + strlen(value) + 4);
	assert_non_null(dup);
	sprintf(dup, "%.*s%s:%s,%s", (int)pre, line, quoted, value, line + pre);
	decode_fails(dup, strlen(dup), quoted);
	free(dup);
	free(value);
}

/* Decodes line, which must be accepted, and encodes it again. */
static char *
reencode(const char *line)
{
	struct bx_audit_record rec;
	struct bx_error err;
	char *out;
	size_t len;

	decode_ok(line, strlen(line), &rec);
	if (bx_audit_record_encode(&rec, &out, &len, &err) != 0)
		fail_msg("%s", err.msg);
	bx_audit_record_clear(&rec);
	return out;
}

/*
 * copy is a record whose event lacks the optional key: it decodes to the
 * same record as one with the key set to null (baseline.md section 1), so
 * both encode to the same line, which writes the key as null.
 */
static void
absent_is_null(json_t *copy, const char *key)
{
	char *absent, *null, *a, *n, want[64];

	absent = json_dumps(copy, JSON_COMPACT);
	json_object_set_new(sub(copy, "event"), key, json_null());
	null = json_dumps(copy, JSON_COMPACT);
	assert_non_null(absent);
	assert_non_null(null);
	a = reencode(absent);
	n = reencode(null);
	if (strcmp(a, n) != 0)
		fail_msg("absent %s gives\n%s\nnull gives\n%s", key, a, n);
	snprintf(want, sizeof(want), "\"%s\":null", key);
	assert_non_null(strstr(a, want));
	free(absent);
	free(null);
	free(a);
	free(n);
	nabsent++;
}

/* For one object inside the record: every refusal, key by key. */
static void
refuse_each_key(const char *line, const char *path)
{
	json_error_t jerr;
	json_t *root, *copy;
	char quoted[128];
	const char *key;
	size_t i, n;

	root = json_loads(line, 0, &jerr);
	assert_non_null(root);
	n = json_object_size(sub(root, path));
	for (i = 0; i < n; i++) {
		key = nth_key(sub(root, path), i);
		snprintf(quoted, sizeof(quoted), "\"%s\"", key);

		copy = json_deep_copy(root);
		json_object_set_new(sub(copy, path), key, wrong_value());
		dump_fails(copy, quoted);
		json_decref(copy);

		copy = json_deep_copy(root);
		json_object_del(sub(copy, path), key);
		if (strcmp(path, "event") == 0 && optional_key(key))
			absent_is_null(copy, key);
		else
			dump_fails(copy, quoted);
		json_decref(copy);

		duplicate_fails(line, path, quoted,
		    json_object_get(sub(root, path), key));
	}
	copy = json_deep_copy(root);
	json_object_set_new(sub(copy, path), "extra", json_integer(1));
	dump_fails(copy, "\"extra\"");
	json_decref(copy);
	json_decref(root);
}

static void
test_refusals(void **state)
{
	char *line;
	size_t i, len;

	(void)state;
	for (i = 0; i < NFIXTURES; i++) {
		line = read_fixture(fixtures[i], &len);
		refuse_each_key(line, "");
		refuse_each_key(line, "event");
		if (strstr(line, "\"outcome\":{") != NULL)
			refuse_each_key(line, "outcome");
		free(line);
	}
	/* grant and grant_sha256 in two Decisions; by, post, reason in two
	 * Approvals. */
	assert_int_equal(nabsent, 10);
}

static void
test_bad_values(void **state)
{
	static const struct {
		const char	*from, *to, *want;
	} cases[] = {
		{ "\"seq\":0", "\"seq\":-1", "\"seq\"" },
		{ "\"seq\":0", "\"seq\":1.5", "\"seq\"" },
		{ "\"seq\":0", "\"seq\":9223372036854775808", "too big" },
		{ "2026-09-18T10:00:00.000Z", "2026-09-18T10:00:00Z", "\"time\"" },
		{ "2026-09-18T10:00:00.000Z", "2026-02-30T10:00:00.000Z",
		    "\"time\"" },
		{ "\"prev\":\"0000", "\"prev\":\"000A", "\"prev\"" },
		{ "\"type\":\"decision\"", "\"type\":\"decided\"", "\"type\"" },
		{ "chat-1758189600000", "Chat-1", "\"session\"" },
		{ "\"call_1\"", "\"call 1\"", "\"call\"" },
		{ "\"ask\"", "\"approved\"", "\"outcome\"" },
		{ "{\"outcome\":\"ask\"}", "{\"outcome\":\"ask\",\"reason\":"
		    "\"no_grant\"}", "\"reason\"" },
		{ "\"notes-read\"", "\"Notes\"", "\"grant\"" },
		{ "\"private\"", "\"internal\"", "\"taint\"" },
		{ "\"untrusted\":false", "\"untrusted\":0", "\"untrusted\"" },
		{ "{\"seq\"", "[{\"seq\"", "JSON" },
	};
	char *line, *bad, *at;
	size_t i, len;

	(void)state;
	line = read_fixture("decision", &len);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		at = strstr(line, cases[i].from);
		assert_non_null(at);
		bad = malloc(len + strlen(cases[i].to) + 2);
		assert_non_null(bad);
		sprintf(bad, "%.*s%s%s", (int)(at - line), line, cases[i].to,
		    at + strlen(cases[i].from));
		decode_fails(bad, strlen(bad), cases[i].want);
		free(bad);
	}
	free(line);
	/* Trailing bytes, an empty line, NUL inside, invalid UTF-8. */
	decode_fails("", 0, "JSON");
	line = read_fixture("recovery", &len);
	decode_fails(line, len - 1, "JSON");
	line[10] = '\0';
	decode_fails(line, len, "JSON");
	free(line);
	decode_fails("{\"seq\":0} x", 11, "JSON");
}

/* Records built in C encode to lines the decoder and the scanner accept. */
static void
test_encode_checks(void **state)
{
	struct bx_audit_record rec = { 0 };
	struct bx_audit_record back;
	struct bx_error err;
	char *line;
	size_t len;

	(void)state;
	rec.seq = 42;
	rec.time = 1758189600000;
	rec.event.type = BX_AUDIT_DECISION;
	rec.event.decision.session = "s-1";
	rec.event.decision.call = "c1";
	rec.event.decision.tool = "shell";
	rec.event.decision.arguments = "{\"command\":\"echo \\u0001\t\x7f\"}";
	rec.event.decision.outcome.kind = BX_OUTCOME_DENIED;
	rec.event.decision.outcome.reason = BX_DENY_NO_GRANT;
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), 0);
	decode_ok(line, len, &back);
	assert_string_equal(back.event.decision.arguments,
	    rec.event.decision.arguments);
	assert_null(back.event.decision.grant);
	bx_audit_record_clear(&back);
	free(line);

	rec.event.decision.session = "Bad";
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"session\""));
	rec.event.decision.session = "s-1";
	rec.event.decision.arguments = "\xff";
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"arguments\""));
	rec.event.decision.arguments = "{}";
	rec.seq = (uint64_t)INT64_MAX + 1;
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"seq\""));
	rec.seq = 0;
	rec.event.type = BX_AUDIT_ACCEPTED_BREAK;
	rec.event.accepted_break.file = "a/b";
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), -1);
	assert_non_null(strstr(err.msg, "\"file\""));
}

static void
assert_same_summary(const struct bx_audit_summary *a,
    const struct bx_audit_summary *b)
{
	assert_int_equal(a->seq, b->seq);
	assert_int_equal(a->time, b->time);
	assert_true(bx_hash_equal(&a->prev, &b->prev));
	assert_int_equal(a->type, b->type);
	assert_int_equal(a->ask, b->ask);
	assert_int_equal(a->decision, b->decision);
	assert_int_equal(a->torn_bytes, b->torn_bytes);
	assert_true(bx_hash_equal(&a->torn_sha256, &b->torn_sha256));
	assert_string_equal(a->file, b->file);
	assert_int_equal(a->line, b->line);
	assert_true(bx_hash_equal(&a->last_good, &b->last_good));
}

/*
 * bx_audit_record_read takes the line exactly when the decoder does, and
 * gives the same record: both encode to the same bytes.
 */
static void
read_agrees(const char *line, size_t len, const struct bx_audit_record *dec,
    bool decoded)
{
	struct bx_audit_record rec;
	struct bx_error err;
	char *a, *b;
	size_t alen, blen;

	if (bx_audit_record_read(line, len, &rec, &err) == -1) {
		if (decoded)
			fail_msg("read refused what decode took (%s):\n%.*s",
			    err.msg, (int)len, line);
		return;
	}
	if (!decoded)
		fail_msg("read took a line decode refuses:\n%.*s", (int)len,
		    line);
	assert_int_equal(bx_audit_record_encode(&rec, &a, &alen, &err), 0);
	assert_int_equal(bx_audit_record_encode(dec, &b, &blen, &err), 0);
	if (alen != blen || memcmp(a, b, alen) != 0)
		fail_msg("read and decode differ:\n%s\n%s", a, b);
	free(a);
	free(b);
	bx_audit_record_clear(&rec);
}

/*
 * The fast path may refuse a valid line (the scan then asks the decoder),
 * but must never accept one the decoder refuses, and must agree with it on
 * every summary field. Returns whether the fast path took the line.
 */
static bool
fast_agrees(const char *line, size_t len)
{
	struct bx_audit_summary fast, slow, scanned;
	struct bx_audit_record rec;
	struct bx_error err;
	int decoded;

	decoded = bx_audit_record_decode(line, len, &rec, &err);
	assert_int_equal(bx_audit_record_scan(line, len, &scanned, &err) == 0,
	    decoded == 0);
	read_agrees(line, len, &rec, decoded == 0);
	if (bx_audit_record_scan_fast(line, len, &fast) == -1) {
		if (decoded == 0)
			bx_audit_record_clear(&rec);
		return false;
	}
	if (decoded != 0)
		fail_msg("the fast path took a line the decoder refuses "
		    "(%s):\n%.*s", err.msg, (int)len, line);
	bx_audit_record_summarize(&rec, &slow);
	assert_same_summary(&fast, &slow);
	assert_same_summary(&scanned, &slow);
	bx_audit_record_clear(&rec);
	return true;
}

/* Every fixture is canonical: the fast path takes it, and agrees. */
static void
test_fast_path_takes_fixtures(void **state)
{
	char *line;
	size_t i, len;

	(void)state;
	for (i = 0; i < NFIXTURES; i++) {
		line = read_fixture(fixtures[i], &len);
		if (!fast_agrees(line, len))
			fail_msg("%s: not taken by the fast path", fixtures[i]);
		free(line);
	}
}

/*
 * Each fixture with every byte replaced by each of a set of bytes chosen
 * to hit the fast path's decisions (quotes, escapes, digits, hex case,
 * structure, controls, UTF-8 lead and continuation bytes), with every byte
 * deleted, and with each of those bytes inserted everywhere.
 */
static void
test_fast_path_agrees_with_decoder(void **state)
{
	static const char subst[] = "\"\\0019aAfFgnu,:{}[] -.eE\x01\x1f"
	    "\x7f\x80\xbf\xc3\xe2\xed\xf0\xf4\xff";
	char *line, *m;
	size_t i, j, k, len, taken = 0, refused = 0;

	(void)state;
	for (i = 0; i < NFIXTURES; i++) {
		line = read_fixture(fixtures[i], &len);
		m = malloc(len + 2);
		assert_non_null(m);
		for (j = 0; j < len; j++) {
			for (k = 0; k < sizeof(subst) - 1; k++) {
				if (line[j] == subst[k])
					continue;
				memcpy(m, line, len);
				m[j] = subst[k];
				fast_agrees(m, len) ? taken++ : refused++;
				/* Inserted before byte j. */
				memcpy(m, line, j);
				m[j] = subst[k];
				memcpy(m + j + 1, line + j, len - j);
				fast_agrees(m, len + 1) ? taken++ : refused++;
			}
			memcpy(m, line, j);
			memcpy(m + j, line + j + 1, len - j - 1);
			fast_agrees(m, len - 1) ? taken++ : refused++;
		}
		free(m);
		free(line);
	}
	/* Both sides of the fast path were exercised. */
	assert_true(taken > 1000);
	assert_true(refused > 1000);
}

/*
 * A line longer than BX_AUDIT_LINE_MAX is not a record, for the fast path
 * as for the decoder, even in canonical form; the encoder will not make one.
 */
static void
test_line_limit(void **state)
{
	struct bx_audit_record rec = { 0 };
	struct bx_audit_summary s;
	struct bx_error err;
	const char *at;
	char *line, *big, *args;
	size_t len, n = BX_AUDIT_LINE_MAX, pre;

	(void)state;
	args = malloc(n + 1);
	assert_non_null(args);
	memset(args, 'a', n);
	args[n] = '\0';
	rec.time = 1758189600000;
	rec.event.type = BX_AUDIT_DECISION;
	rec.event.decision.session = "s-1";
	rec.event.decision.call = "c1";
	rec.event.decision.tool = "shell";
	rec.event.decision.arguments = args;
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	args[n - 4096] = '\0';
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), 0);
	assert_true(len <= BX_AUDIT_LINE_MAX);
	assert_true(fast_agrees(line, len));
	/* The same canonical line with its arguments grown past the limit. */
	at = strstr(line, "\"arguments\":\"") + 13;
	pre = (size_t)(at - line);
	big = malloc(len + 8192);
	assert_non_null(big);
	memcpy(big, line, pre);
	memset(big + pre, 'a', 8192);
	memcpy(big + pre + 8192, at, len - pre);
	assert_int_equal(bx_audit_record_scan_fast(big, len + 8192, &s), -1);
	assert_int_equal(bx_audit_record_scan(big, len + 8192, &s, &err), -1);
	assert_non_null(strstr(err.msg, "longer than"));
	assert_false(fast_agrees(big, len + 8192));
	free(big);
	free(line);
	free(args);
}

/*
 * Strings with every escape the encoder writes (each control, quote,
 * backslash), raw UTF-8 and bidi controls read back from the fast path
 * exactly as the decoder reads them.
 */
static void
test_read_unescapes(void **state)
{
	struct bx_audit_record rec = { 0 }, got;
	struct bx_audit_summary s;
	struct bx_error err;
	char args[64 + 32], *line;
	size_t len;
	int i;

	(void)state;
	for (i = 1; i < 32; i++)
		args[i - 1] = (char)i;
	strcpy(args + 31, "\"\\/caf\xc3\xa9 \xe2\x80\xae\x7f end");
	rec.time = 1758189600000;
	rec.event.type = BX_AUDIT_APPROVAL;
	rec.event.approval.session = "s-1";
	rec.event.approval.call = "c_1";
	rec.event.approval.decision = 7;
	rec.event.approval.answer = BX_ANSWER_REFUSED;
	rec.event.approval.by = args;
	rec.event.approval.reason = "not \"now\"\n";
	rec.event.approval.outcome.kind = BX_OUTCOME_DENIED;
	rec.event.approval.outcome.reason = BX_DENY_APPROVAL_REFUSED;
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), 0);
	assert_int_equal(bx_audit_record_scan_fast(line, len, &s), 0);
	assert_int_equal(bx_audit_record_read(line, len, &got, &err), 0);
	assert_string_equal(got.event.approval.by, args);
	assert_string_equal(got.event.approval.reason, "not \"now\"\n");
	assert_null(got.event.approval.post);
	assert_string_equal(got.event.approval.session, "s-1");
	assert_int_equal(got.event.approval.answer, BX_ANSWER_REFUSED);
	assert_int_equal(got.event.approval.outcome.reason,
	    BX_DENY_APPROVAL_REFUSED);
	bx_audit_record_clear(&got);
	free(line);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fixtures_round_trip),
		cmocka_unit_test(test_fixture_fields),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_encode_checks),
		cmocka_unit_test(test_fast_path_takes_fixtures),
		cmocka_unit_test(test_fast_path_agrees_with_decoder),
		cmocka_unit_test(test_line_limit),
		cmocka_unit_test(test_read_unescapes),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
