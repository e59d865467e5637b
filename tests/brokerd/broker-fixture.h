/*
 * broker-fixture.h: a whole broker in one process for the serving modules'
 * tests: a temporary home and grants directory, the real audit writer with
 * a settable clock and a write seam that fails on demand, the state store
 * with a writer that fails on demand, the approvals table, the recording
 * runtime, and a peer that keeps every frame the broker sends.
 *
 * Every function fails the running cmocka test instead of returning an
 * error. bfix_new allocates the fixture and bfix_free frees it and removes
 * its directories. Frames and records handed out belong to the fixture or
 * the peer unless a comment says otherwise.
 */
#ifndef TESTS_BROKERD_BROKER_FIXTURE_H
#define TESTS_BROKERD_BROKER_FIXTURE_H

#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/admin.h"
#include "brokerd/broker.h"
#include "proto/audit_record.h"
#include "recording.h"

#define BFIX_LATER	"2027-01-01T00:00:00.000Z"
#define BFIX_MAX_FRAMES	8
#define BFIX_MAX_LOG	64

struct bfix {
	char			*home;
	char			*grants;
	struct audit		*audit;
	struct state_store	*state;
	struct approvals	*approvals;
	struct recording	 rec;
	struct runtime		 rt;
	struct broker		*broker;
	struct audit_clock	 clock;
	struct audit_io		 io;
	struct state_writer	 sw;
	struct broker_log	 log;
	pthread_mutex_t		 lock;		/* guards what follows */
	int64_t			 now;
	bool			 audit_fail;	/* every write fails */
	int			 audit_fail_after;	/* -1, or writes that succeed */
	bool			 state_fail;
	int			 state_writes;
	int			 state_failures;	/* writes failed so far */
	int			 audit_failures;
	char			*lines[BFIX_MAX_LOG];
	size_t			 nlines;
};

/* loopd's end of one call, in-process. */
struct bpeer {
	pthread_mutex_t		 lock;
	pthread_cond_t		 changed;
	char			*frames[BFIX_MAX_FRAMES];	/* encoded */
	size_t			 nframes;
	bool			 gone;
	int			 rc;		/* broker_call's, once done */
	bool			 done;
};

/* A new broker; ttl_ms for approvals; runtime NULL: the recording one. */
struct bfix	*bfix_new(int64_t ttl_ms, const struct runtime *runtime);
void		 bfix_free(struct bfix *);

void		 bfix_set_now(struct bfix *, int64_t ms);
int64_t		 bfix_now(struct bfix *);
/* Writes grants/<id>.toml from the fields given. */
void		 bfix_grant(struct bfix *, const char *id, const char *tool,
		    const char *mode, const char *max_taint,
		    const char *result_class, bool untrusted,
		    const char *constraints);
void		 bfix_ungrant(struct bfix *, const char *id);
/* Whether some logged line contains text. */
bool		 bfix_logged(struct bfix *, const char *text);
/* How many logged lines contain text. */
size_t		 bfix_log_count(struct bfix *, const char *text);

void		 bpeer_init(struct bpeer *);
void		 bpeer_free(struct bpeer *);
/* Frame i, decoded; the caller frees it with bx_msg_free. */
struct bx_msg	*bpeer_frame(struct bpeer *, size_t i);
/* Waits (generously) until n frames have arrived. */
void		 bpeer_wait(struct bpeer *, size_t n);
void		 bpeer_set_gone(struct bpeer *);
/* Whether any frame contains text. */
bool		 bpeer_saw(struct bpeer *, const char *text);

/* One call, run to its end on this thread. */
int		 bfix_call(struct bfix *, struct bpeer *, const char *session,
		    const char *call, const char *tool, const char *args);
/* One call on its own thread; bfix_join waits for it. */
struct bcall	*bfix_call_async(struct bfix *, struct bpeer *,
		    const char *session, const char *call, const char *tool,
		    const char *args);
void		 bfix_join(struct bcall *);

/* An admin request, answered in-process; the caller frees the answer. */
struct bx_msg	*bfix_admin(struct bfix *, struct bx_msg *req);

/*
 * Every record in the audit log, in order, decoded into *ret (allocated;
 * free with bfix_records_free). Fails the test if the chain does not verify.
 */
size_t		 bfix_records(struct bfix *, struct bx_audit_record **ret);
void		 bfix_records_free(struct bx_audit_record *, size_t);
/* The chain verifier's report on the log; free with bx_chain_report_free. */
struct bx_chain_report	*bfix_verify(struct bfix *);
/* Whether text appears anywhere in the audit files. */
bool		 bfix_audit_contains(struct bfix *, const char *text);
/* The session's state as the store reads it. */
struct state_value	 bfix_state(struct bfix *, const char *session);

#endif
