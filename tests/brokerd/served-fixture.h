/*
 * served-fixture.h: a whole broker (broker-fixture.h) served on its three
 * sockets under its home, in-process on a thread of its own, for the
 * tests that talk to brokerd as its clients do (test-serve-peer.c, and
 * bxbridge's test-bridge.c); and the ask calls those tests answer: one
 * call of an ask grant, pending, and its end.
 *
 * Every function fails the running cmocka test instead of returning an
 * error. served_start allocates, served_stop stops the server and frees
 * it, the broker fixture with it.
 */
#ifndef TESTS_BROKERD_SERVED_FIXTURE_H
#define TESTS_BROKERD_SERVED_FIXTURE_H

#include <sys/types.h>

#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>

#include "broker-fixture.h"
#include "brokerd/serve.h"

struct served {
	struct bfix	*f;
	struct serve	*s;
	pthread_t	 thread;
	char		 broker[4096];
	char		 admin[4096];
	char		 bridge[4096];
	int		 rc;
};

/*
 * f's broker served; loopd's and the bridge's jail uids are loop_uid and
 * bridge_uid when jailed is true (else each socket serves brokerd's own
 * uid only).
 */
struct served	*served_start(struct bfix *f, bool jailed, uid_t loop_uid,
		    uid_t bridge_uid);
void		 served_stop(struct served *);

/* One ask call, pending. */
struct asked {
	struct bpeer	 p;
	struct bcall	*call;
	uint64_t	 id;
};

/* A call of tool with args on its own thread, which must be pending. */
void	asked_start(struct bfix *, struct asked *, const char *call,
	    const char *tool, const char *args);
/* The call ends with its final frame of status st. */
void	asked_done(struct asked *, enum bx_status st);

/*
 * How many Approval records the log holds for decision id; the last one's
 * answer, by, post and reason ("(null)" for null) into 64-byte buffers.
 */
size_t	approvals_of(struct bfix *, uint64_t id, enum bx_answer *answer,
	    char *by, char *post, char *reason);
/* There is exactly one Approval record for id, and it says so. */
void	expect_record(struct bfix *, uint64_t id, enum bx_answer want_answer,
	    const char *want_by, const char *want_post,
	    const char *want_reason);

#endif
