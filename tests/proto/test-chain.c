/*
 * test-chain.c: the ChainVerifier's rules, on logs built in memory with the
 * record encoder: a good chain across files, each kind of tampering failing
 * at its file and line, torn tails, recovered lines, accepted breaks (and
 * the ones that must not be accepted), abandoned asks, clock warnings and
 * resuming.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "proto/audit_record.h"
#include "proto/chain.h"
#include "proto/sha256.h"

#define T0	1758189600000LL		/* 2025-09-18T10:00:00.000Z */
#define MAXLINES	64

/* A log: lines in files, each line without its "\n". */
struct log {
	char		*line[MAXLINES];
	int		 file[MAXLINES];	/* index into names */
	bool		 newline[MAXLINES];
	int		 n;
	const char	*names[4];
	int		 nfiles;
	uint64_t	 seq;
	struct bx_hash	 prev;
	int64_t		 time;
};

static void
log_init(struct log *l)
{
	memset(l, 0, sizeof(*l));
	l->names[0] = "2025-09-18.jsonl";
	l->names[1] = "2025-09-19.jsonl";
	l->names[2] = "2025-09-20.jsonl";
	l->nfiles = 1;
	l->time = T0;
}

static void
log_free(struct log *l)
{
	int i;

	for (i = 0; i < l->n; i++)
		free(l->line[i]);
}

static void
hash_of(const char *s, size_t len, struct bx_hash *h)
{
	struct bx_error err;

	assert_int_equal(bx_sha256(s, len, h, &err), 0);
}

static void
push_raw(struct log *l, char *line)
{
	assert_true(l->n < MAXLINES);
	l->line[l->n] = line;
	l->file[l->n] = l->nfiles - 1;
	l->newline[l->n] = true;
	l->n++;
}

/* Appends ev as the next record of the chain (or with the given seq/prev). */
static void
push_event(struct log *l, const struct bx_audit_event *ev)
{
	struct bx_audit_record rec = { 0 };
	struct bx_error err;
	char *line;
	size_t len;

	rec.seq = l->seq;
	rec.time = l->time;
	rec.prev = l->prev;
	rec.event = *ev;
	if (bx_audit_record_encode(&rec, &line, &len, &err) != 0)
		fail_msg("%s", err.msg);
	hash_of(line, len, &l->prev);
	l->seq++;
	l->time += 1000;
	push_raw(l, line);
}

static void
push_decision(struct log *l, bool ask)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_DECISION };

	ev.decision.session = "chat-1";
	ev.decision.call = "c1";
	ev.decision.tool = "read_file";
	ev.decision.arguments = "{\"path\":\"/home/kyle/notes/a.md\"}";
	ev.decision.outcome.kind = ask ? BX_OUTCOME_ASK : BX_OUTCOME_ALLOWED;
	ev.decision.grant = "notes";
	ev.decision.taint = BX_CLASS_PRIVATE;
	push_event(l, &ev);
}

static void
push_approval(struct log *l, uint64_t decision)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_APPROVAL };

	ev.approval.session = "chat-1";
	ev.approval.call = "c1";
	ev.approval.decision = decision;
	ev.approval.answer = BX_ANSWER_APPROVED;
	ev.approval.by = "bxctl";
	ev.approval.outcome.kind = BX_OUTCOME_ALLOWED;
	push_event(l, &ev);
}

static void
push_decisions(struct log *l, int n)
{
	while (n-- > 0)
		push_decision(l, false);
}

static void
next_file(struct log *l)
{
	l->nfiles++;
}

/* Feeds lines [0, upto) of the log to c. */
static struct bx_chain_report *
run_on(struct bx_chain *c, const struct log *l, int upto)
{
	struct bx_chain_report *r;
	struct bx_error err;
	int i, file = -1;

	assert_non_null(c);
	for (i = 0; i < upto; i++) {
		if (l->file[i] != file) {
			/* Files with no lines in between still start. */
			while (file < l->file[i])
				bx_chain_file(c, l->names[++file]);
		}
		bx_chain_line(c, l->line[i], strlen(l->line[i]),
		    i + 1 == upto || l->file[i + 1] != file, l->newline[i]);
	}
	if (bx_chain_finish(c, &r, &err) != 0)
		fail_msg("%s", err.msg);
	return r;
}

static struct bx_chain_report *
run(const struct log *l)
{
	return run_on(bx_chain_new(), l, l->n);
}

static void
assert_failure(const struct bx_chain_report *r, const char *file,
    uint64_t line, const char *what)
{
	if (!r->failed)
		fail_msg("expected a failure at %s:%llu", file,
		    (unsigned long long)line);
	if (strcmp(r->failure.at.file, file) != 0 || r->failure.at.line != line)
		fail_msg("failure at %s:%llu (%s), expected %s:%llu",
		    r->failure.at.file,
		    (unsigned long long)r->failure.at.line, r->failure.what,
		    file, (unsigned long long)line);
	if (strstr(r->failure.what, what) == NULL)
		fail_msg("failure \"%s\" does not say \"%s\"", r->failure.what,
		    what);
}

/* Runs the log, which must fail at file:line saying what; frees the log. */
static void
fails_at(struct log *l, const char *file, uint64_t line, const char *what)
{
	struct bx_chain_report *r = run(l);

	assert_failure(r, file, line, what);
	bx_chain_report_free(r);
	log_free(l);
}

static void
assert_ok(const struct bx_chain_report *r)
{
	if (r->failed)
		fail_msg("unexpected failure at %s:%llu: %s",
		    r->failure.at.file, (unsigned long long)r->failure.at.line,
		    r->failure.what);
}

static void
test_good_chain(void **state)
{
	struct bx_chain_report *r;
	struct log l;

	(void)state;
	log_init(&l);
	push_decisions(&l, 3);
	next_file(&l);
	push_decisions(&l, 2);
	r = run(&l);
	assert_ok(r);
	assert_int_equal(r->records, 5);
	assert_int_equal(r->next_seq, 5);
	assert_true(r->has_head);
	assert_true(bx_hash_equal(&r->head, &l.prev));
	assert_false(r->torn);
	assert_int_equal(r->nrecoveries + r->nbreaks + r->nabandoned +
	    r->nclock_warnings, 0);
	bx_chain_report_free(r);

	/* Nothing at all: no head, next seq 0. */
	r = run_on(bx_chain_new(), &l, 0);
	assert_ok(r);
	assert_false(r->has_head);
	assert_int_equal(r->next_seq, 0);
	bx_chain_report_free(r);
	log_free(&l);
}

static void
test_first_record(void **state)
{
	struct log l;

	(void)state;
	log_init(&l);
	l.seq = 1;
	push_decisions(&l, 2);
	fails_at(&l, "2025-09-18.jsonl", 1, "seq 1 where 0 was expected");

	log_init(&l);
	l.prev.bytes[0] = 1;
	push_decisions(&l, 2);
	fails_at(&l, "2025-09-18.jsonl", 1, "prev is not the hash");
}

static void
test_tampering(void **state)
{
	struct bx_chain_report *r;
	struct log l;
	char *tmp, *p;

	(void)state;
	/* A changed byte that keeps the line valid: the next line fails. */
	log_init(&l);
	push_decisions(&l, 5);
	p = strstr(l.line[2], "a.md");
	p[0] = 'b';
	r = run(&l);
	assert_failure(r, "2025-09-18.jsonl", 4, "prev is not the hash");
	bx_chain_report_free(r);
	/* A changed byte that breaks the JSON: that line fails. */
	p = strstr(l.line[2], "\"seq\"");
	p[1] = 'S';
	fails_at(&l, "2025-09-18.jsonl", 3, "not an audit record");

	/* A deleted line. */
	log_init(&l);
	push_decisions(&l, 5);
	free(l.line[2]);
	memmove(&l.line[2], &l.line[3], 2 * sizeof(l.line[0]));
	l.n--;
	fails_at(&l, "2025-09-18.jsonl", 3, "seq 3 where 2 was expected");

	/* Two lines swapped. */
	log_init(&l);
	push_decisions(&l, 5);
	tmp = l.line[1];
	l.line[1] = l.line[2];
	l.line[2] = tmp;
	fails_at(&l, "2025-09-18.jsonl", 2, "seq 2 where 1 was expected");

	/* A seq gap, every hash right. */
	log_init(&l);
	push_decisions(&l, 2);
	l.seq++;
	push_decisions(&l, 2);
	fails_at(&l, "2025-09-18.jsonl", 3, "seq 3 where 2 was expected");

	/* A file that does not chain from the one before. */
	log_init(&l);
	push_decisions(&l, 2);
	next_file(&l);
	l.prev.bytes[5] ^= 1;
	push_decisions(&l, 2);
	fails_at(&l, "2025-09-19.jsonl", 1, "does not chain from the last "
	    "line of 2025-09-18.jsonl");

	/* A middle line cut short. */
	log_init(&l);
	push_decisions(&l, 4);
	l.line[1][40] = '\0';
	fails_at(&l, "2025-09-18.jsonl", 2, "not an audit record");
}

static void
test_newline_rules(void **state)
{
	struct log l;

	(void)state;
	/* A line with no newline in the middle of a file. */
	log_init(&l);
	push_decisions(&l, 3);
	l.newline[1] = false;
	fails_at(&l, "2025-09-18.jsonl", 2, "no newline");

	/* The last line of a file that is not the last one. */
	log_init(&l);
	push_decisions(&l, 2);
	l.newline[1] = false;
	next_file(&l);
	push_decisions(&l, 1);
	fails_at(&l, "2025-09-18.jsonl", 2, "no newline");
}

static void
test_torn_tail(void **state)
{
	struct bx_chain_report *r;
	struct bx_hash h;
	struct log l;

	(void)state;
	/* Garbage at the end with no newline: torn, not a failure. */
	log_init(&l);
	push_decisions(&l, 3);
	push_raw(&l, strdup("{\"seq\":3,\"ti"));
	l.newline[3] = false;
	r = run(&l);
	assert_ok(r);
	assert_true(r->torn);
	assert_string_equal(r->torn_tail.file, "2025-09-18.jsonl");
	assert_int_equal(r->torn_tail.line, 4);
	assert_int_equal(r->torn_bytes, 12);
	hash_of("{\"seq\":3,\"ti", 12, &h);
	assert_true(bx_hash_equal(&r->torn_sha256, &h));
	assert_true(bx_hash_equal(&r->torn_prev, &l.prev));
	assert_int_equal(r->torn_seq, 3);
	assert_int_equal(r->records, 3);
	assert_int_equal(r->next_seq, 3);
	bx_chain_report_free(r);
	log_free(&l);

	/* A whole record that only lacks its newline is torn too. */
	log_init(&l);
	push_decisions(&l, 3);
	l.newline[2] = false;
	r = run(&l);
	assert_ok(r);
	assert_true(r->torn);
	assert_int_equal(r->torn_tail.line, 3);
	assert_int_equal(r->records, 2);
	assert_int_equal(r->torn_seq, 2);
	bx_chain_report_free(r);
	log_free(&l);
}

/* Appends "\n" + a Recovery for the last line, as brokerd does. */
static void
recover_last(struct log *l)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };
	const char *torn = l->line[l->n - 1];
	struct bx_chain_report *r;

	l->newline[l->n - 1] = false;
	r = run(l);
	assert_true(r->torn);
	l->newline[l->n - 1] = true;
	ev.recovery.torn_bytes = strlen(torn);
	hash_of(torn, strlen(torn), &ev.recovery.torn_sha256);
	l->seq = r->torn_seq;
	l->prev = r->torn_prev;
	bx_chain_report_free(r);
	push_event(l, &ev);
}

static void
test_recovered_line(void **state)
{
	struct bx_chain_report *r;
	struct log l;

	(void)state;
	log_init(&l);
	push_decisions(&l, 2);
	push_raw(&l, strdup("{\"seq\":2,\"time\":\"20"));
	recover_last(&l);
	push_decisions(&l, 2);
	r = run(&l);
	assert_ok(r);
	assert_int_equal(r->nrecoveries, 1);
	assert_int_equal(r->recoveries[0].line, 3);
	assert_int_equal(r->records, 5);
	assert_int_equal(r->next_seq, 5);
	bx_chain_report_free(r);

	/* The same Recovery with one wrong byte in torn_bytes fails. */
	l.line[3][strlen(l.line[3]) - 80] ^= 1;
	r = run(&l);
	assert_true(r->failed);
	bx_chain_report_free(r);
	log_free(&l);

	/* A torn whole record (newline lost) recovered the same way. */
	log_init(&l);
	push_decisions(&l, 3);
	recover_last(&l);
	push_decisions(&l, 1);
	r = run(&l);
	assert_ok(r);
	assert_int_equal(r->nrecoveries, 1);
	assert_int_equal(r->recoveries[0].line, 3);
	assert_int_equal(r->next_seq, 4);
	bx_chain_report_free(r);
	log_free(&l);

	/* A garbage line followed by an unrelated record is a failure. */
	log_init(&l);
	push_decisions(&l, 2);
	push_raw(&l, strdup("garbage"));
	push_decisions(&l, 1);
	fails_at(&l, "2025-09-18.jsonl", 3, "not an audit record");
}

/* Appends the AcceptedBreak that startup would write for the log so far. */
static void
accept_now(struct log *l)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_ACCEPTED_BREAK };
	struct bx_chain_report *r = run(l);

	char file[64];

	assert_true(r->failed);
	/* The report's strings die with it: keep a copy. */
	snprintf(file, sizeof(file), "%s", r->failure.at.file);
	ev.accepted_break.file = file;
	ev.accepted_break.line = r->failure.at.line;
	ev.accepted_break.last_good = r->break_last_good;
	l->seq = r->break_seq;
	l->prev = r->break_prev;
	bx_chain_report_free(r);
	push_event(l, &ev);
}

static void
test_accepted_break(void **state)
{
	struct bx_chain_report *r;
	struct log l;

	(void)state;
	log_init(&l);
	push_decisions(&l, 3);
	l.seq += 5;
	push_decisions(&l, 2);		/* line 4 fails: seq 8, not 3 */
	push_raw(&l, strdup("not checked"));
	accept_now(&l);
	push_decisions(&l, 2);
	r = run(&l);
	assert_ok(r);
	assert_int_equal(r->nbreaks, 1);
	assert_int_equal(r->breaks[0].at.line, 7);
	assert_int_equal(r->breaks[0].accepted.line, 4);
	/* Highest parsed seq after the failure was 9: the break is 10. */
	assert_int_equal(r->next_seq, 13);
	bx_chain_report_free(r);
	log_free(&l);

	/* Two failures, each accepted in turn. */
	log_init(&l);
	push_decisions(&l, 2);
	l.seq++;
	push_decisions(&l, 1);
	accept_now(&l);
	push_decisions(&l, 1);
	l.prev.bytes[0] ^= 1;
	push_decisions(&l, 1);
	accept_now(&l);
	push_decisions(&l, 1);
	r = run(&l);
	assert_ok(r);
	assert_int_equal(r->nbreaks, 2);
	assert_int_equal(r->breaks[1].accepted.line, 6);
	bx_chain_report_free(r);
	log_free(&l);
}

static void
test_wrong_breaks(void **state)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_ACCEPTED_BREAK };
	struct bx_chain_report *r;
	struct log l;

	(void)state;
	/* A break naming the wrong line: the first failure stands. */
	log_init(&l);
	push_decisions(&l, 3);
	l.seq++;
	push_decisions(&l, 1);		/* line 4 fails */
	r = run(&l);
	ev.accepted_break.file = "2025-09-18.jsonl";
	ev.accepted_break.line = 3;
	ev.accepted_break.last_good = r->break_last_good;
	l.seq = r->break_seq;
	l.prev = r->break_prev;
	bx_chain_report_free(r);
	push_event(&l, &ev);
	r = run(&l);
	assert_failure(r, "2025-09-18.jsonl", 4, "seq 4 where 3 was expected");
	assert_int_equal(r->nbreaks, 0);
	bx_chain_report_free(r);
	log_free(&l);

	/* A break where nothing failed is itself the failure. */
	log_init(&l);
	push_decisions(&l, 2);
	ev.accepted_break.file = "2025-09-18.jsonl";
	ev.accepted_break.line = 1;
	push_event(&l, &ev);
	fails_at(&l, "2025-09-18.jsonl", 3, "nothing failed there");

	/* Only the first failure since the last break can be accepted. */
	log_init(&l);
	push_decisions(&l, 2);
	l.seq++;
	push_decisions(&l, 1);		/* line 3: first failure */
	l.seq++;
	push_decisions(&l, 1);		/* line 4: not checked */
	r = run(&l);
	ev.accepted_break.line = 4;
	ev.accepted_break.last_good = r->break_last_good;
	l.seq = r->break_seq;
	l.prev = r->break_prev;
	bx_chain_report_free(r);
	push_event(&l, &ev);
	fails_at(&l, "2025-09-18.jsonl", 3, "seq 3 where 2");

	/* The right line but the wrong last_good is not accepted either. */
	log_init(&l);
	push_decisions(&l, 2);
	l.seq++;
	push_decisions(&l, 1);
	r = run(&l);
	ev.accepted_break.line = 3;
	ev.accepted_break.last_good = r->break_last_good;
	ev.accepted_break.last_good.bytes[0] ^= 1;
	l.seq = r->break_seq;
	l.prev = r->break_prev;
	bx_chain_report_free(r);
	push_event(&l, &ev);
	fails_at(&l, "2025-09-18.jsonl", 3, "seq 3 where 2");
}

static void
test_abandoned_and_clock(void **state)
{
	struct bx_chain_report *r;
	struct log l;

	(void)state;
	log_init(&l);
	push_decision(&l, true);	/* 0: ask, approved below */
	push_decision(&l, true);	/* 1: ask, abandoned */
	push_decision(&l, false);	/* 2 */
	push_approval(&l, 0);		/* 3 */
	l.time -= 60000;
	push_decision(&l, true);	/* 4: ask, abandoned; clock back */
	r = run(&l);
	assert_ok(r);
	assert_int_equal(r->nabandoned, 2);
	assert_int_equal(r->abandoned[0], 1);
	assert_int_equal(r->abandoned[1], 4);
	assert_int_equal(r->nclock_warnings, 1);
	assert_int_equal(r->clock_warnings[0].line, 5);
	bx_chain_report_free(r);
	log_free(&l);
}

static void
test_resume(void **state)
{
	struct bx_chain_report *r;
	struct bx_hash prev;
	struct log l;

	(void)state;
	log_init(&l);
	l.seq = 100;
	l.prev.bytes[31] = 7;
	prev = l.prev;
	push_decisions(&l, 3);
	r = run_on(bx_chain_resume(100, &prev), &l, l.n);
	assert_ok(r);
	assert_int_equal(r->next_seq, 103);
	bx_chain_report_free(r);
	r = run_on(bx_chain_resume(101, &prev), &l, l.n);
	assert_failure(r, "2025-09-18.jsonl", 1, "seq 100 where 101");
	/* Nothing verified: last_good is the resume point. */
	assert_true(bx_hash_equal(&r->break_last_good, &prev));
	bx_chain_report_free(r);
	/* An empty file after a resume keeps the head. */
	r = run_on(bx_chain_resume(100, &prev), &l, 0);
	assert_ok(r);
	assert_true(r->has_head);
	assert_true(bx_hash_equal(&r->head, &prev));
	bx_chain_report_free(r);
	log_free(&l);
}

/*
 * What a hash chain cannot see by itself (shared/notes/audit-durability.md,
 * the tamper matrix): the last line deleted, the newest file deleted, the
 * whole log rewritten from genesis. Each verifies; only the head and the
 * record count, which bxctl audit verify prints, differ from what the owner
 * saw before, so catching these needs that anchor kept elsewhere
 * (docs/decisions.md, "What the chain cannot see").
 */
static void
test_needs_an_anchor(void **state)
{
	struct bx_chain_report *full, *r;
	struct log l, forged;
	int first_of_newest;

	(void)state;
	log_init(&l);
	push_decisions(&l, 3);
	next_file(&l);
	first_of_newest = l.n;
	push_decisions(&l, 3);
	full = run(&l);
	assert_ok(full);
	assert_int_equal(full->records, 6);

	/* The last line deleted. */
	r = run_on(bx_chain_new(), &l, l.n - 1);
	assert_ok(r);
	assert_int_equal(r->records, 5);
	assert_false(bx_hash_equal(&r->head, &full->head));
	bx_chain_report_free(r);

	/* The newest file deleted. */
	r = run_on(bx_chain_new(), &l, first_of_newest);
	assert_ok(r);
	assert_int_equal(r->records, 3);
	assert_false(bx_hash_equal(&r->head, &full->head));
	bx_chain_report_free(r);

	/* Rewritten from genesis: other records, the same count. */
	log_init(&forged);
	push_decisions(&forged, 2);
	push_decision(&forged, true);
	next_file(&forged);
	push_decisions(&forged, 3);
	r = run(&forged);
	assert_ok(r);
	assert_int_equal(r->records, 6);
	assert_false(bx_hash_equal(&r->head, &full->head));
	bx_chain_report_free(r);
	log_free(&forged);

	bx_chain_report_free(full);
	log_free(&l);
}

/* What the record hook saw: each accepted record's line number and seq. */
struct seen {
	uint64_t	line[MAXLINES];
	uint64_t	seq[MAXLINES];
	int		n;
	const struct log *log;
	bool		bytes_ok;
};

static void
on_record(void *ctx, const struct bx_chain_record *rec)
{
	struct seen *sn = ctx;
	struct bx_hash h;

	assert_true(sn->n < MAXLINES);
	sn->line[sn->n] = rec->at.line;
	sn->seq[sn->n++] = rec->sum->seq;
	/* The bytes are the line's, and the hash is theirs. */
	hash_of(rec->bytes, rec->len, &h);
	if (!bx_hash_equal(&h, &rec->hash))
		sn->bytes_ok = false;
}

static struct bx_chain_report *
run_seen(const struct log *l, struct seen *sn)
{
	struct bx_chain *c = bx_chain_new();

	memset(sn, 0, sizeof(*sn));
	sn->bytes_ok = true;
	assert_non_null(c);
	bx_chain_on_record(c, on_record, sn);
	return run_on(c, l, l->n);
}

/*
 * The hook sees exactly the accepted records, in order: not a recovered
 * line, not the lines after a failure until the AcceptedBreak, which it
 * sees; and nothing after a failure that is never accepted.
 */
static void
test_record_hook(void **state)
{
	/* File 1 line 1; file 2 lines 1, 3 (Recovery), 4, 7 (break), 8. */
	static const uint64_t want_line[] = { 1, 1, 3, 4, 7, 8 };
	struct bx_chain_report *r;
	struct seen sn;
	struct log l;
	int i;

	(void)state;
	log_init(&l);
	push_decisions(&l, 1);
	next_file(&l);
	push_decisions(&l, 1);
	push_raw(&l, strdup("{\"seq\":2,\"time\":\"20"));
	recover_last(&l);			/* line 4 of file 2 */
	push_decisions(&l, 1);
	l.seq += 3;
	push_decisions(&l, 1);			/* fails: seq 7, not 4 */
	push_raw(&l, strdup("not checked"));
	accept_now(&l);
	push_decisions(&l, 1);
	r = run_seen(&l, &sn);
	assert_ok(r);
	assert_true(sn.bytes_ok);
	assert_int_equal(sn.n, 6);
	for (i = 0; i < sn.n; i++)
		assert_int_equal(sn.line[i], want_line[i]);
	assert_int_equal(sn.seq[0], 0);
	assert_int_equal(sn.seq[1], 1);
	assert_int_equal(sn.seq[2], 2);		/* the Recovery */
	assert_int_equal(sn.seq[3], 3);
	assert_int_equal(sn.seq[4], 8);		/* the AcceptedBreak */
	assert_int_equal(sn.seq[5], 9);
	bx_chain_report_free(r);
	log_free(&l);

	/* A failure never accepted: nothing from it on. */
	log_init(&l);
	push_decisions(&l, 2);
	l.prev.bytes[0] ^= 1;
	push_decisions(&l, 2);
	r = run_seen(&l, &sn);
	assert_true(r->failed);
	assert_int_equal(sn.n, 2);
	bx_chain_report_free(r);
	log_free(&l);
}

/*
 * Settling hands over the held line at once; a Recovery for a settled
 * line then fails the chain, as chain.h warns. bx_chain_failed says so
 * before the finish.
 */
static void
test_settle(void **state)
{
	struct bx_chain_report *r;
	struct bx_error err;
	struct bx_chain *c;
	struct seen sn;
	struct log l;
	int i;

	(void)state;
	log_init(&l);
	push_decisions(&l, 3);
	memset(&sn, 0, sizeof(sn));
	sn.bytes_ok = true;
	assert_non_null(c = bx_chain_new());
	bx_chain_on_record(c, on_record, &sn);
	bx_chain_file(c, l.names[0]);
	for (i = 0; i < l.n; i++) {
		bx_chain_line(c, l.line[i], strlen(l.line[i]), false, true);
		assert_int_equal(sn.n, i);
		assert_false(bx_chain_settle(c, false));
		assert_int_equal(sn.n, i + 1);
		assert_false(bx_chain_settle(c, false));
		assert_int_equal(sn.n, i + 1);
	}
	assert_null(bx_chain_failed(c));
	assert_int_equal(bx_chain_finish(c, &r, &err), 0);
	assert_ok(r);
	assert_int_equal(r->records, 3);
	bx_chain_report_free(r);
	log_free(&l);

	/* A whole line, settled, then recovered: a failure. */
	log_init(&l);
	push_decisions(&l, 2);
	recover_last(&l);
	assert_non_null(c = bx_chain_new());
	bx_chain_file(c, l.names[0]);
	for (i = 0; i < l.n; i++) {
		bx_chain_line(c, l.line[i], strlen(l.line[i]), false, true);
		bx_chain_settle(c, false);
	}
	/* The Recovery itself fails, once nothing more can come. */
	assert_null(bx_chain_failed(c));
	assert_true(bx_chain_settle(c, true) == false);
	assert_non_null(bx_chain_failed(c));
	assert_int_equal(bx_chain_failed(c)->at.line, 3);
	assert_int_equal(bx_chain_finish(c, &r, &err), 0);
	assert_true(r->failed);
	bx_chain_report_free(r);
	log_free(&l);

	/*
	 * A torn line given its "\n", the Recovery not yet read: it waits,
	 * and the Recovery recovers it. Settled final, it fails.
	 */
	log_init(&l);
	push_decisions(&l, 1);
	push_raw(&l, strdup("{\"seq\":1,\"time\":\"20"));
	recover_last(&l);
	for (i = 0; i < 2; i++) {
		assert_non_null(c = bx_chain_new());
		bx_chain_file(c, l.names[0]);
		bx_chain_line(c, l.line[0], strlen(l.line[0]), false, true);
		bx_chain_line(c, l.line[1], strlen(l.line[1]), false, true);
		assert_true(bx_chain_settle(c, false));
		assert_null(bx_chain_failed(c));
		if (i == 0) {
			bx_chain_line(c, l.line[2], strlen(l.line[2]), false,
			    true);
			assert_false(bx_chain_settle(c, false));
			assert_null(bx_chain_failed(c));
		} else {
			assert_false(bx_chain_settle(c, true));
			assert_int_equal(bx_chain_failed(c)->at.line, 2);
		}
		assert_int_equal(bx_chain_finish(c, &r, &err), 0);
		assert_int_equal(r->failed, i == 1);
		assert_int_equal(r->nrecoveries, i == 0);
		bx_chain_report_free(r);
	}
	/* A later file settles it: nothing recovers across one. */
	assert_non_null(c = bx_chain_new());
	bx_chain_file(c, l.names[0]);
	bx_chain_line(c, l.line[0], strlen(l.line[0]), false, true);
	bx_chain_line(c, l.line[1], strlen(l.line[1]), false, true);
	bx_chain_file(c, "2025-09-19.jsonl");
	assert_false(bx_chain_settle(c, false));
	assert_int_equal(bx_chain_failed(c)->at.line, 2);
	bx_chain_free(c);
	log_free(&l);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_chain),
		cmocka_unit_test(test_first_record),
		cmocka_unit_test(test_tampering),
		cmocka_unit_test(test_newline_rules),
		cmocka_unit_test(test_torn_tail),
		cmocka_unit_test(test_recovered_line),
		cmocka_unit_test(test_accepted_break),
		cmocka_unit_test(test_wrong_breaks),
		cmocka_unit_test(test_abandoned_and_clock),
		cmocka_unit_test(test_resume),
		cmocka_unit_test(test_needs_an_anchor),
		cmocka_unit_test(test_record_hook),
		cmocka_unit_test(test_settle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
