/*
 * admin_console.h: the owner's console on admin.sock (issue 25), beside
 * admin.c's approvals and grant check:
 *
 *	sessions {}		session_list { total, items }
 *	status {}		broker_status { version, runtime, started, now }
 *	list_grants {}		grant_list { grants, problems }
 *	explain { session, tool, arguments }
 *				explanation { ..., candidates, problems }
 *
 * Each answers from what brokerd reads afresh for it: the audit log
 * (verified as it is read), the session state files, the grant files.
 * Nothing is written, no taint is raised, nothing runs: explain decides
 * with policy.c exactly as a call would, and stops there.
 *
 * Ownership: each returns a new message the caller frees (an error frame
 * when brokerd cannot answer, saying why), or NULL when memory runs out,
 * with err saying so.
 */
#ifndef BROKERD_ADMIN_CONSOLE_H
#define BROKERD_ADMIN_CONSOLE_H

#include "brokerd/broker.h"
#include "brokerd/grants.h"
#include "proto/error.h"
#include "proto/message.h"

/* The most sessions one session_list carries: those last called. */
#define SESSION_LIST_MAX	1000
/* The most distinct sessions counted; a log with more is refused. */
#define SESSIONS_MAX		100000

struct bx_msg	*admin_sessions(struct broker *, struct bx_error *);
struct bx_msg	*admin_status(struct broker *, struct bx_error *);
struct bx_msg	*admin_list_grants(struct broker *, struct bx_error *);
/* admin_explain.c */
struct bx_msg	*admin_explain(struct broker *, const struct bx_explain *,
		    struct bx_error *);

/* Adds the problems of set to a grants_report, explanation or grant_list. */
int		 admin_add_problems(struct bx_msg *, const struct grants *set);

#endif
