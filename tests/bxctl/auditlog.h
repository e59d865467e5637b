/*
 * auditlog.h: audit logs written record by record for bxctl's tests, with
 * the real encoder and hash, so bxctl reads what brokerd writes: a home's
 * audit/ with calls of every shape, a new day's file, raw bytes for
 * damage. Times start at 2025-09-18T10:00:00.000Z and go up a second a
 * record.
 *
 * Failures abort the test (a test helper). Nothing is allocated that
 * outlives a call.
 */
#ifndef BXCTL_TEST_AUDITLOG_H
#define BXCTL_TEST_AUDITLOG_H

#include <stdint.h>

#include "proto/audit_record.h"

#define ALOG_T0		1758189600000LL	/* 2025-09-18T10:00:00.000Z */
#define ALOG_DAY_MS	86400000LL

struct alog {
	char		 dir[4096];	/* <home>/audit */
	uint64_t	 seq;
	struct bx_hash	 prev;
	int64_t		 time;
};

/* Makes <home>/audit and starts a log at seq 0. */
void		alog_init(struct alog *, const char *home);
/* Appends ev as the next record, in the file of its time's day. */
uint64_t	alog_event(struct alog *, const struct bx_audit_event *ev);
/*
 * ev as the next record's line, "\n" included, in *ret (malloc'd, the
 * caller's), without writing it: for a test that writes it in pieces
 * (alog_raw). Returns its seq.
 */
uint64_t	alog_line(struct alog *, const struct bx_audit_event *ev,
		    char **ret, size_t *ret_len);
/* Appends bytes as they are to the current day's file. */
void		alog_raw(struct alog *, const char *bytes, size_t len);

/* A Decision; grant NULL for none. Returns its seq. */
uint64_t	alog_decision(struct alog *, const char *session,
		    const char *call, const char *tool, const char *arguments,
		    enum bx_outcome_kind, enum bx_deny, const char *grant);
/* An Approval of decision, with the re-decision outcome, by bxctl. */
uint64_t	alog_approval(struct alog *, const char *session,
		    const char *call, uint64_t decision, enum bx_answer,
		    const char *reason, enum bx_outcome_kind, enum bx_deny);
/* The same, answered in Mattermost by the user by, in the post post. */
uint64_t	alog_approval_from(struct alog *, const char *session,
		    const char *call, uint64_t decision, enum bx_answer,
		    const char *reason, enum bx_outcome_kind, enum bx_deny,
		    const char *by, const char *post);
/* A Result of decision. */
uint64_t	alog_result(struct alog *, const char *session,
		    const char *call, uint64_t decision, enum bx_result_status,
		    uint64_t bytes, enum bx_class class, enum bx_class after);

#endif
