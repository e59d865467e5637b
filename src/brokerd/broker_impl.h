/*
 * broker_impl.h: what broker.c shares with broker_record.c and nothing else
 * includes: the broker itself and one call in progress.
 *
 * Ownership: a struct call lives on broker_call's stack; it borrows the
 * broker, the request and the peer, and owns c_d (freed by broker_call).
 */
#ifndef BROKERD_BROKER_IMPL_H
#define BROKERD_BROKER_IMPL_H

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "brokerd/broker.h"
#include "proto/sha256.h"

struct broker {
	struct broker_config	 b_cfg;
	pthread_mutex_t		 b_lock;	/* guards the two below */
	bool			 b_reported;
	struct bx_hash		 b_problems;	/* fingerprint last printed */
};

/* One call in progress. */
struct call {
	struct broker			*c_b;
	const struct bx_tool_request	*c_req;
	const struct broker_peer	*c_peer;
	struct state_hold		 c_hold;
	struct state_value		 c_st;		/* when (re)decided */
	struct decision			*c_d;		/* the first decision */
	uint64_t			 c_seq;		/* its record's seq */
};

/*
 * The Decision record of c->c_d, its seq kept in c->c_seq. Fails (-1,
 * logged) when the record cannot be written: then nothing may run.
 */
int	broker_record_decision(struct call *);
/* The Approval record; on failure *outcome becomes audit_unavailable. */
void	broker_record_approval(struct call *, enum bx_answer answer,
	    const char *reason, struct bx_outcome *outcome);
/*
 * The Result record of sent, what loopd is about to be told, with the
 * session's taint after it. Fails (-1, logged): then sent is not sent.
 */
int	broker_record_result(struct call *, const struct decision *,
	    bool failed, const struct run_result *, const char *sent,
	    enum bx_class taint_after);

#endif
