/*
 * test-harness.c: the checks of harness.c catch what they are there to
 * catch. The crash, fault, disk-full and hostile tests pass only if
 * rh_log_check and rh_answers_check find nothing wrong; this test writes
 * audit logs that break each promise on purpose and expects each to be
 * found (and a sound log to pass), so that a check that never fails cannot
 * hide behind green tests.
 */
#include <sys/stat.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"
#include "proto/sha256.h"

/*
 * Records to write, as shorthands: r_type is D (Decision), A (Approval), R
 * (Result) or X (a Recovery of the line before it).
 */
struct rec {
	char			 r_type;
	uint64_t		 r_seq;
	enum bx_outcome_kind	 r_kind;	/* D, A */
	enum bx_deny		 r_reason;
	uint64_t		 r_decision;	/* A, R */
	const char		*r_call;
};

#define ALLOWED		BX_OUTCOME_ALLOWED
#define ASK		BX_OUTCOME_ASK
#define DENIED		BX_OUTCOME_DENIED

static void
event(const struct rec *r, struct bx_audit_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	switch (r->r_type) {
	case 'D':
		ev->type = BX_AUDIT_DECISION;
		ev->decision.session = "s";
		ev->decision.call = r->r_call;
		ev->decision.tool = "read_file";
		ev->decision.arguments = RH_ARGS_ALLOW;
		ev->decision.outcome.kind = r->r_kind;
		ev->decision.outcome.reason = r->r_reason;
		ev->decision.taint = BX_CLASS_PRIVATE;
		break;
	case 'A':
		ev->type = BX_AUDIT_APPROVAL;
		ev->approval.session = "s";
		ev->approval.call = r->r_call;
		ev->approval.decision = r->r_decision;
		ev->approval.answer = r->r_kind == DENIED ? BX_ANSWER_REFUSED :
		    BX_ANSWER_APPROVED;
		ev->approval.outcome.kind = r->r_kind;
		ev->approval.outcome.reason = r->r_reason;
		break;
	case 'R':
		ev->type = BX_AUDIT_RESULT;
		ev->result.session = "s";
		ev->result.call = r->r_call;
		ev->result.decision = r->r_decision;
		ev->result.status = BX_RESULT_STATUS_FAILED;
		ev->result.taint_after = BX_CLASS_PRIVATE;
		break;
	default:
		ev->type = BX_AUDIT_RECOVERY;
		break;
	}
}

/* A home whose audit log holds recs, one line each. */
static void
write_log(struct rh_home *h, const struct rec *recs, size_t n)
{
	struct bx_audit_record rec;
	char path[PATH_MAX], *line, *prev = NULL;
	size_t len, plen = 0, i;
	FILE *fp;

	assert_int_equal(rh_home_make(h, 60000), 0);
	assert_int_equal(mkdir(h->audit, 0700), 0);
	snprintf(path, sizeof(path), "%s/2026-01-01.jsonl", h->audit);
	assert_non_null(fp = fopen(path, "w"));
	for (i = 0; i < n; i++) {
		memset(&rec, 0, sizeof(rec));
		rec.seq = recs[i].r_seq;
		rec.time = 1767225600000 + (int64_t)i;
		event(&recs[i], &rec.event);
		if (recs[i].r_type == 'X') {
			rec.event.recovery.torn_bytes = plen;
			assert_int_equal(bx_sha256(prev, plen,
			    &rec.event.recovery.torn_sha256, NULL), 0);
		}
		assert_int_equal(bx_audit_record_encode(&rec, &line, &len,
		    NULL), 0);
		fprintf(fp, "%s\n", line);
		free(prev);
		prev = line;
		plen = len;
	}
	free(prev);
	assert_int_equal(fclose(fp), 0);
}

/* rh_log_check's verdict on recs: 0, or -1 with why. */
static int
log_verdict(const struct rec *recs, size_t n, char *why, size_t size)
{
	struct rh_home h;
	struct rh_log log;
	int rc;

	write_log(&h, recs, n);
	assert_int_equal(rh_log_read(h.dir, &log), 0);
	rc = rh_log_check(&log, why, size);
	rh_log_free(&log);
	rh_home_remove(&h);
	return rc;
}

static void
expect_found(const struct rec *recs, size_t n, const char *text)
{
	char why[512] = "";

	if (log_verdict(recs, n, why, sizeof(why)) != -1)
		fail_msg("not found: %s", text);
	if (strstr(why, text) == NULL)
		fail_msg("found \"%s\", expected \"%s\"", why, text);
}

static void
test_sound_log_passes(void **state)
{
	const struct rec recs[] = {
		{ 'D', 0, ALLOWED, 0, 0, "c1" },
		{ 'R', 1, 0, 0, 0, "c1" },
		{ 'D', 2, ASK, 0, 0, "c2" },
		{ 'A', 3, ALLOWED, 0, 2, "c2" },
		{ 'R', 4, 0, 0, 2, "c2" },
		{ 'D', 5, DENIED, BX_DENY_NO_GRANT, 0, "c3" },
		/* A line brokerd never acknowledged, and its Recovery. */
		{ 'D', 6, ALLOWED, 0, 0, "c4" },
		{ 'X', 6, 0, 0, 0, NULL },
		{ 'D', 7, ALLOWED, 0, 0, "c5" },
	};
	char why[512];

	(void)state;
	if (log_verdict(recs, 9, why, sizeof(why)) == -1)
		fail_msg("a sound log was refused: %s", why);
}

static void
test_broken_logs_are_found(void **state)
{
	const struct rec gap[] = {
		{ 'D', 0, DENIED, BX_DENY_NO_GRANT, 0, "c1" },
		{ 'D', 2, DENIED, BX_DENY_NO_GRANT, 0, "c2" },
	};
	const struct rec denied_ran[] = {
		{ 'D', 0, DENIED, BX_DENY_NO_GRANT, 0, "c1" },
		{ 'R', 1, 0, 0, 0, "c1" },
	};
	const struct rec ask_ran[] = {
		{ 'D', 0, ASK, 0, 0, "c1" },
		{ 'R', 1, 0, 0, 0, "c1" },
	};
	const struct rec refused_ran[] = {
		{ 'D', 0, ASK, 0, 0, "c1" },
		{ 'A', 1, DENIED, BX_DENY_APPROVAL_REFUSED, 0, "c1" },
		{ 'R', 2, 0, 0, 0, "c1" },
	};
	const struct rec twice[] = {
		{ 'D', 0, ALLOWED, 0, 0, "c1" },
		{ 'R', 1, 0, 0, 0, "c1" },
		{ 'R', 2, 0, 0, 0, "c1" },
	};
	const struct rec other_call[] = {
		{ 'D', 0, ALLOWED, 0, 0, "c1" },
		{ 'R', 1, 0, 0, 0, "c2" },
	};
	const struct rec approval_not_ask[] = {
		{ 'D', 0, ALLOWED, 0, 0, "c1" },
		{ 'A', 1, ALLOWED, 0, 0, "c1" },
	};

	(void)state;
	expect_found(gap, 2, "a gap");
	expect_found(denied_ran, 2, "ran without");
	expect_found(ask_ran, 2, "ran without");
	expect_found(refused_ran, 3, "ran without");
	expect_found(twice, 3, "ran twice");
	expect_found(other_call, 2, "another call");
	expect_found(approval_not_ask, 2, "not ask");
}

/* rh_answers_check on one seen call against recs. */
static int
answers_verdict(const struct rec *recs, size_t n, const struct rh_seen *s,
    char *why, size_t size)
{
	struct rh_home h;
	struct rh_log log;
	int rc;

	write_log(&h, recs, n);
	assert_int_equal(rh_log_read(h.dir, &log), 0);
	rc = rh_answers_check(&log, s, 1, why, size);
	rh_log_free(&log);
	rh_home_remove(&h);
	return rc;
}

static struct rh_seen
seen(const char *call)
{
	struct rh_seen s;

	memset(&s, 0, sizeof(s));
	snprintf(s.s_session, sizeof(s.s_session), "s");
	snprintf(s.s_call, sizeof(s.s_call), "%s", call);
	return s;
}

static void
test_answers_without_records_are_found(void **state)
{
	const struct rec denied[] = {
		{ 'D', 0, DENIED, BX_DENY_NO_GRANT, 0, "c1" },
	};
	const struct rec allowed[] = {
		{ 'D', 0, ALLOWED, 0, 0, "c1" },
		{ 'R', 1, 0, 0, 0, "c1" },
	};
	struct rh_seen s;
	char why[512];

	(void)state;
	/* Right: the denial and the failure as recorded. */
	s = seen("c1");
	s.s_final = true;
	s.s_status = BX_STATUS_DENIED;
	s.s_reason = BX_DENY_NO_GRANT;
	assert_int_equal(answers_verdict(denied, 1, &s, why, sizeof(why)), 0);
	s.s_status = BX_STATUS_FAILED;
	assert_int_equal(answers_verdict(allowed, 2, &s, why, sizeof(why)), 0);
	/* Wrong: an answer with no record, or another than recorded. */
	s = seen("c9");
	s.s_final = true;
	s.s_status = BX_STATUS_DENIED;
	s.s_reason = BX_DENY_NO_GRANT;
	assert_int_equal(answers_verdict(denied, 1, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no Decision"));
	s = seen("c1");
	s.s_final = true;
	s.s_status = BX_STATUS_DENIED;
	s.s_reason = BX_DENY_DENIED_BY_GRANT;
	assert_int_equal(answers_verdict(denied, 1, &s, why, sizeof(why)), -1);
	s.s_status = BX_STATUS_FAILED;
	assert_int_equal(answers_verdict(denied, 1, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "no Result"));
	s.s_status = BX_STATUS_DENIED;
	s.s_reason = BX_DENY_AUDIT_UNAVAILABLE;
	assert_int_equal(answers_verdict(allowed, 2, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "audit_unavailable"));
	s = seen("c1");
	s.s_pending = true;
	s.s_approval = 0;
	assert_int_equal(answers_verdict(allowed, 2, &s, why, sizeof(why)), -1);
	assert_non_null(strstr(why, "pending"));
	s = seen("c1");
	s.s_pending = true;
	s.s_refused = true;
	assert_int_equal(answers_verdict(denied, 1, &s, why, sizeof(why)), -1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sound_log_passes),
		cmocka_unit_test(test_broken_logs_are_found),
		cmocka_unit_test(test_answers_without_records_are_found),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
