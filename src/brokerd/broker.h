/*
 * broker.h: one tool request, from decision to answer, in the write order of
 * design section 5:
 *
 *	1. decide; write the Decision record and sync it (else: denied,
 *	   audit_unavailable, and nothing runs);
 *	2. if ask: send the pending frame, wait for the answer, re-decide if
 *	   approved, write the Approval record (else: denied,
 *	   audit_unavailable);
 *	3. if allowed: run; write the session state file; write the Result
 *	   record (hash and size of the content, never the content); then
 *	   answer. If the state or the Result write fails, the answer is failed
 *	   "the result could not be recorded" and the content is not sent.
 *
 * Calls of one session are serialized from decision to Result record
 * (baseline section 6); a call waiting for approval does not hold its
 * session. broker_call does not need a socket: it answers through a
 * struct broker_peer, so a test (or loopd's end-to-end test) can drive it
 * in-process with a recording runtime.
 *
 * Ownership: broker_new allocates the broker and broker_free frees it (NULL
 * is allowed). The broker borrows everything in its config (audit writer,
 * state store, approvals table, runtime, clock, strings): they must outlive
 * it. broker_call may run on many threads at once.
 */
#ifndef BROKERD_BROKER_H
#define BROKERD_BROKER_H

#include <stdbool.h>
#include <stdint.h>

#include "brokerd/approvals.h"
#include "brokerd/audit.h"
#include "brokerd/log.h"
#include "brokerd/runner/runner.h"
#include "brokerd/state.h"
#include "proto/error.h"
#include "proto/message.h"

/* The answer when the run happened but could not be recorded. */
#define BROKER_UNRECORDED	"the result could not be recorded"
/* What a runner that failed without a message is answered and recorded as. */
#define BROKER_RUNNER_FAILED	"the runner failed"
/*
 * Who answered an approval at the terminal, in the Approval record; an
 * answer from Mattermost records its user id and post instead.
 */
#define BROKER_APPROVER		"bxctl"

struct broker_config {
	const char			*grants_dir;
	/* brokerd.toml's directory, where secrets/ is; NULL: no secrets. */
	const char			*config_dir;
	int64_t				 ttl_ms;	/* approvals */
	struct audit			*audit;
	struct state_store		*state;
	struct approvals		*approvals;
	const struct runtime		*runtime;	/* NULL: runner_refusing */
	const struct audit_clock	*clock;		/* NULL: the real clock */
	const struct broker_log		*log;		/* NULL: silent */
	/* For the owner's console (admin_console.c). */
	const char			*home;		/* audit/ is under it */
	const char			*runtime_kind;	/* NULL: "refuse" */
	int64_t				 started;	/* ms; serving since */
};

/*
 * The loopd end of one call. send writes one frame (the pending frame, then
 * the final answer) and returns 0 or -1; gone says whether the peer has
 * closed its connection (NULL: it never does) and is asked while the call
 * waits for approval.
 */
struct broker_peer {
	int	(*send)(void *ctx, const struct bx_msg *, struct bx_error *);
	bool	(*gone)(void *ctx);
	void	*ctx;
	/* A descriptor that polls POLLHUP once the peer closed; NULL: none. */
	int	(*hangup_fd)(void *ctx);
};

struct broker;

struct broker	*broker_new(const struct broker_config *, struct bx_error *);
void		 broker_free(struct broker *);

/*
 * Handles one decoded tool_request. Returns 0 when the final answer was
 * sent; -1 when the peer went away or could not be written to (err says
 * which). Every record it writes is written whatever the peer does.
 */
int	broker_call(struct broker *, const struct bx_tool_request *,
	    const struct broker_peer *, struct bx_error *);

/*
 * broker_call on a broker.sock connection: frames are written to fd within
 * timeout_ms each, and the peer is gone when its end is closed.
 */
int	broker_call_fd(struct broker *, int fd, const struct bx_tool_request *,
	    int timeout_ms, struct bx_error *);

/* For admin.c and serve.c: the parts of the configuration they share. */
const struct broker_config	*broker_config(const struct broker *);
int64_t				 broker_now(const struct broker *);
/* Prints one line through the configured log. */
void				 broker_log(const struct broker *,
				    const char *fmt, ...)
				    __attribute__((format(printf, 2, 3)));

/*
 * Prints each problem of an invalid grant set, once per distinct set of
 * problems (grants_fingerprint), each line ending in GRANTS_RUNBOOK.
 */
void	broker_report_grants(struct broker *, const struct grants *);

#endif
