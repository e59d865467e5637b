/*
 * test-audit-group.c: the audit writer's group commit (audit_group.c).
 * A seam holds the first fdatasync until other appenders have written
 * their lines, so what is shared is fixed by the test, not by timing:
 *
 *	- every record is covered by a sync that began after its line was
 *	  written and returned 0 before its append returned, and the records
 *	  written during one sync share the next one;
 *	- a failed sync fails every record it covered, none is acknowledged,
 *	  the writer stops (no retry), and a restart finds a log that verifies;
 *	- a failed sync of one record still rolls it back and recovers it.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "audit-helpers.h"
#include "proto/audit_record.h"

#define NOW		1758239000000LL		/* 2025-09-18T23:43:20.000Z */
#define DAY		"2025-09-18.jsonl"
/* Appenders that write while the first sync is held. */
#define OTHERS		7
#define RECORDS		(OTHERS + 1)
#define MAX_SYNCS	16

/*
 * The seam: the real calls through th_io, each write and sync stamped with
 * an event number; the first fdatasync waits until released.
 */
struct gate {
	struct th_io	 th;		/* first: its ctx is the gate too */
	ssize_t		(*th_write)(void *, int, const void *, size_t);
	int		(*th_fdatasync)(void *, int);
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;
	bool		 holding;	/* hold the first sync */
	bool		 held;		/* it is waiting */
	bool		 released;
	int		 fail_second;	/* errno for the second sync */
	int		 nwrites;
	int		 write_event[RECORDS];	/* by seq */
	int		 nsyncs;
	int		 sync_start[MAX_SYNCS], sync_end[MAX_SYNCS];
	int		 sync_rc[MAX_SYNCS];
	atomic_int	 events;
};

struct appender {
	struct gate		*g;
	struct audit		*a;
	int			 rc;
	uint64_t		 seq;
	int			 returned;	/* event after the append returned */
	struct bx_error		 err;
};

static ssize_t
gate_write(void *ctx, int fd, const void *buf, size_t len)
{
	struct gate *g = ctx;
	ssize_t n;
	int ev;

	n = g->th_write(ctx, fd, buf, len);
	ev = atomic_fetch_add(&g->events, 1);
	pthread_mutex_lock(&g->mu);
	if (n == (ssize_t)len && g->nwrites < RECORDS)
		g->write_event[g->nwrites] = ev;
	g->nwrites++;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
	return n;
}

static int
gate_fdatasync(void *ctx, int fd)
{
	struct gate *g = ctx;
	int i, rc, e = 0;

	pthread_mutex_lock(&g->mu);
	i = g->nsyncs++;
	assert_true(i < MAX_SYNCS);
	g->sync_start[i] = atomic_fetch_add(&g->events, 1);
	if (i == 0 && g->holding) {
		g->held = true;
		pthread_cond_broadcast(&g->cv);
		while (!g->released)
			pthread_cond_wait(&g->cv, &g->mu);
	}
	pthread_mutex_unlock(&g->mu);
	if (i == 1 && g->fail_second != 0) {
		e = g->fail_second;
		rc = -1;
	} else
		rc = g->th_fdatasync(ctx, fd);
	pthread_mutex_lock(&g->mu);
	g->sync_rc[i] = rc;
	g->sync_end[i] = atomic_fetch_add(&g->events, 1);
	pthread_mutex_unlock(&g->mu);
	if (rc == -1 && e != 0)
		errno = e;
	return rc;
}

static void
gate_init(struct gate *g)
{
	memset(g, 0, sizeof(*g));
	th_io_init(&g->th);
	g->th_write = g->th.io.write;
	g->th_fdatasync = g->th.io.fdatasync;
	g->th.io.write = gate_write;
	g->th.io.fdatasync = gate_fdatasync;
	pthread_mutex_init(&g->mu, NULL);
	pthread_cond_init(&g->cv, NULL);
	g->holding = true;
}

static void
gate_wait(struct gate *g, bool *flag, int writes)
{
	pthread_mutex_lock(&g->mu);
	while ((flag != NULL && !*flag) || g->nwrites < writes)
		pthread_cond_wait(&g->cv, &g->mu);
	pthread_mutex_unlock(&g->mu);
}

static void
gate_release(struct gate *g)
{
	pthread_mutex_lock(&g->mu);
	g->released = true;
	pthread_cond_broadcast(&g->cv);
	pthread_mutex_unlock(&g->mu);
}

static void *
append_one(void *p)
{
	struct appender *ap = p;
	struct bx_audit_event ev = th_decision(false);

	ap->rc = audit_append(ap->a, &ev, &ap->seq, &ap->err);
	ap->returned = atomic_fetch_add(&ap->g->events, 1);
	return NULL;
}

struct env {
	char		*home;
	struct th_clock	 clock;
	struct gate	 gate;
	struct audit	*a;
	struct appender	 ap[RECORDS];
	pthread_t	 th[RECORDS];
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->home = th_home();
	th_clock_init(&e->clock, NOW);
	gate_init(&e->gate);
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	th_done(e->a, e->home);
	free(e);
	return 0;
}

static void
start(struct env *e, int i)
{
	e->ap[i].g = &e->gate;
	e->ap[i].a = e->a;
	assert_int_equal(pthread_create(&e->th[i], NULL, append_one, &e->ap[i]),
	    0);
}

/*
 * One appender leads the first sync and is held in it; OTHERS more write
 * their lines meanwhile; then the first sync is let go.
 */
static void
run_group(struct env *e)
{
	int i;

	th_open_ok(e->home, &e->clock, &e->gate.th, &e->a);
	start(e, 0);
	gate_wait(&e->gate, &e->gate.held, 1);
	for (i = 1; i < RECORDS; i++)
		start(e, i);
	gate_wait(&e->gate, NULL, RECORDS);
	gate_release(&e->gate);
	for (i = 0; i < RECORDS; i++)
		pthread_join(e->th[i], NULL);
}

static void
verify_ok(struct env *e, uint64_t records, size_t recoveries)
{
	struct bx_chain_report *r = th_verify(e->home);

	if (r->failed)
		fail_msg("%s:%llu: %s", r->failure.at.file,
		    (unsigned long long)r->failure.at.line, r->failure.what);
	assert_int_equal(r->records, records);
	assert_int_equal(r->nrecoveries, recoveries);
	assert_false(r->torn);
	bx_chain_report_free(r);
}

/* Whether some sync that returned 0 began after ev and ended before ret. */
static bool
covered(const struct gate *g, int ev, int ret)
{
	int i;

	for (i = 0; i < g->nsyncs; i++)
		if (g->sync_rc[i] == 0 && g->sync_start[i] > ev &&
		    g->sync_end[i] < ret)
			return true;
	return false;
}

static void
test_covered(void **state)
{
	struct env *e = *state;
	bool seen[RECORDS] = { false };
	int i;

	run_group(e);
	for (i = 0; i < RECORDS; i++) {
		if (e->ap[i].rc != 0)
			fail_msg("append %d: %s", i, e->ap[i].err.msg);
		assert_true(e->ap[i].seq < RECORDS);
		assert_false(seen[e->ap[i].seq]);
		seen[e->ap[i].seq] = true;
		if (!covered(&e->gate, e->gate.write_event[e->ap[i].seq],
		    e->ap[i].returned))
			fail_msg("record %llu: no sync covered it before its "
			    "append returned",
			    (unsigned long long)e->ap[i].seq);
	}
	/* The held sync covered the first record; one more covered the rest. */
	assert_int_equal(e->ap[0].seq, 0);
	assert_int_equal(e->gate.nsyncs, 2);
	assert_int_equal(e->gate.th.writes, RECORDS);
	verify_ok(e, RECORDS, 0);
}

static void
test_group_sync_fails(void **state)
{
	struct env *e = *state;
	struct bx_audit_event ev = th_decision(false);
	struct bx_error err;
	uint64_t seq = 999;
	int i;

	e->gate.fail_second = EIO;
	run_group(e);
	assert_int_equal(e->ap[0].rc, 0);
	/* The failed sync covered the other records: none is acknowledged. */
	for (i = 1; i < RECORDS; i++) {
		assert_int_equal(e->ap[i].rc, -1);
		if (strstr(e->ap[i].err.msg, "cannot sync") == NULL ||
		    strstr(e->ap[i].err.msg, "Input/output error") == NULL ||
		    strstr(e->ap[i].err.msg, "records 1 to 7 are in the file "
		    "but none was acknowledged") == NULL ||
		    strstr(e->ap[i].err.msg,
		    "see docs/runbook.md#audit-unavailable") == NULL)
			fail_msg("append %d: \"%s\"", i, e->ap[i].err.msg);
	}
	/* The writer stops; nothing is retried or written any more. */
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), -1);
	assert_int_equal(seq, 999);
	assert_non_null(strstr(err.msg, "restart brokerd"));
	assert_int_equal(e->gate.nsyncs, 2);
	assert_int_equal(e->gate.th.writes, RECORDS);
	/*
	 * A restart checks the log as after a crash: the lines were written
	 * whole, so they chain, and the next record follows them.
	 */
	audit_close(e->a);
	e->a = NULL;
	e->gate.holding = false;
	th_open_ok(e->home, &e->clock, &e->gate.th, &e->a);
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), 0);
	assert_int_equal(seq, RECORDS);
	verify_ok(e, RECORDS + 1, 0);
}

static void
test_single_sync_fails(void **state)
{
	struct env *e = *state;
	struct bx_audit_event ev = th_decision(false);
	struct bx_error err;
	uint64_t seq;

	e->gate.holding = false;
	e->gate.fail_second = EIO;
	th_open_ok(e->home, &e->clock, &e->gate.th, &e->a);
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), 0);
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), -1);
	assert_non_null(strstr(err.msg, "cannot sync"));
	/* One record alone: rolled back, recovered, and the writer goes on. */
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), 0);
	assert_int_equal(seq, 2);
	assert_int_equal(th_lines(e->home, DAY), 4);
	verify_ok(e, 3, 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_covered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_group_sync_fails, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_single_sync_fails, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
