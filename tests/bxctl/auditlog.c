/*
 * auditlog.c: audit logs for bxctl's tests (auditlog.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auditlog.h"
#include "proto/sha256.h"

static void
die(const char *what)
{
	fprintf(stderr, "auditlog: %s: %s\n", what, strerror(errno));
	abort();
}

void
alog_init(struct alog *l, const char *home)
{
	memset(l, 0, sizeof(*l));
	snprintf(l->dir, sizeof(l->dir), "%s/audit", home);
	if (mkdir(l->dir, 0700) == -1 && errno != EEXIST)
		die(l->dir);
	l->time = ALOG_T0;
}

/* Appends bytes to the file of day ms. */
static void
append(const struct alog *l, int64_t ms, const char *bytes, size_t len)
{
	char date[11], path[4096 + 32];
	FILE *fp;

	bx_time_date(ms, date);
	snprintf(path, sizeof(path), "%s/%s.jsonl", l->dir, date);
	if ((fp = fopen(path, "ab")) == NULL ||
	    fwrite(bytes, 1, len, fp) != len || fclose(fp) == EOF)
		die(path);
}

void
alog_raw(struct alog *l, const char *bytes, size_t len)
{
	append(l, l->time, bytes, len);
}

uint64_t
alog_line(struct alog *l, const struct bx_audit_event *ev, char **ret,
    size_t *ret_len)
{
	struct bx_audit_record rec = { 0 };
	struct bx_error err;

	rec.seq = l->seq;
	rec.time = l->time;
	rec.prev = l->prev;
	rec.event = *ev;
	if (bx_audit_record_encode_line(&rec, ret, ret_len, &err) == -1 ||
	    bx_sha256(*ret, *ret_len - 1, &l->prev, &err) == -1) {
		fprintf(stderr, "auditlog: %s\n", err.msg);
		abort();
	}
	l->time += 1000;
	return l->seq++;
}

uint64_t
alog_event(struct alog *l, const struct bx_audit_event *ev)
{
	int64_t time = l->time;
	uint64_t seq;
	char *line;
	size_t len;

	seq = alog_line(l, ev, &line, &len);
	append(l, time, line, len);
	free(line);
	return seq;
}

uint64_t
alog_decision(struct alog *l, const char *session, const char *call,
    const char *tool, const char *arguments, enum bx_outcome_kind kind,
    enum bx_deny reason, const char *grant)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_DECISION };

	ev.decision.session = session;
	ev.decision.call = call;
	ev.decision.tool = tool;
	ev.decision.arguments = arguments;
	ev.decision.outcome.kind = kind;
	ev.decision.outcome.reason = reason;
	ev.decision.grant = grant;
	if (grant != NULL) {
		ev.decision.has_grant_sha256 = true;
		ev.decision.grant_sha256 = l->prev;
	}
	ev.decision.taint = BX_CLASS_PRIVATE;
	return alog_event(l, &ev);
}

uint64_t
alog_approval(struct alog *l, const char *session, const char *call,
    uint64_t decision, enum bx_answer answer, const char *reason,
    enum bx_outcome_kind kind, enum bx_deny deny)
{
	return alog_approval_from(l, session, call, decision, answer, reason,
	    kind, deny, answer == BX_ANSWER_EXPIRED ? NULL : "bxctl", NULL);
}

uint64_t
alog_approval_from(struct alog *l, const char *session, const char *call,
    uint64_t decision, enum bx_answer answer, const char *reason,
    enum bx_outcome_kind kind, enum bx_deny deny, const char *by,
    const char *post)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_APPROVAL };

	ev.approval.session = session;
	ev.approval.call = call;
	ev.approval.decision = decision;
	ev.approval.answer = answer;
	ev.approval.by = by;
	ev.approval.post = post;
	ev.approval.reason = reason;
	ev.approval.outcome.kind = kind;
	ev.approval.outcome.reason = deny;
	return alog_event(l, &ev);
}

uint64_t
alog_result(struct alog *l, const char *session, const char *call,
    uint64_t decision, enum bx_result_status status, uint64_t bytes,
    enum bx_class class, enum bx_class after)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RESULT };

	ev.result.session = session;
	ev.result.call = call;
	ev.result.decision = decision;
	ev.result.status = status;
	ev.result.class = class;
	ev.result.bytes = bytes;
	ev.result.sha256 = l->prev;
	ev.result.taint_after = after;
	return alog_event(l, &ev);
}
