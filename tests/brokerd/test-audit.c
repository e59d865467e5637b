/*
 * test-audit.c: brokerd's audit writer at run time. The chain across a day
 * boundary with an injected clock, seq across files and restarts, a sync
 * covering every record before its append returns (counted through the
 * seam; test-audit-group.c shows one sync shared by concurrent appenders),
 * the clock going back,
 * the lock refusing a second writer in another process, close-on-exec on
 * every descriptor, several threads appending, and failure injection
 * (write error, short write, sync error) followed by a repair that leaves
 * a log that verifies.
 */
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "audit-helpers.h"
#include "proto/audit_record.h"

#define DAY1_LATE	1758239999000LL		/* 2025-09-18T23:59:59.000Z */
#define DAY2_EARLY	1758240000500LL		/* 2025-09-19T00:00:00.500Z */
#define DAY1		"2025-09-18.jsonl"
#define DAY2		"2025-09-19.jsonl"

struct env {
	char		*home;
	struct th_clock	 clock;
	struct th_io	 io;
	struct audit	*a;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));

	e->home = th_home();
	th_clock_init(&e->clock, DAY1_LATE);
	th_io_init(&e->io);
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

static uint64_t
append_ok(struct env *e)
{
	struct bx_audit_event ev = th_decision(false);
	struct bx_error err;
	uint64_t seq;

	if (audit_append(e->a, &ev, &seq, &err) != 0)
		fail_msg("audit_append: %s", err.msg);
	return seq;
}

static void
append_fails(struct env *e, const char *want)
{
	struct bx_audit_event ev = th_decision(false);
	struct bx_error err;
	uint64_t seq = 999;

	assert_int_equal(audit_append(e->a, &ev, &seq, &err), -1);
	assert_int_equal(seq, 999);
	if (strstr(err.msg, want) == NULL ||
	    strstr(err.msg, "see docs/runbook.md#audit-unavailable") == NULL)
		fail_msg("error \"%s\" lacks \"%s\" or the runbook", err.msg,
		    want);
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

static void
test_day_boundary(void **state)
{
	struct env *e = *state;
	struct stat st;
	char path[4096];
	int i;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	assert_int_equal(audit_notice_count(e->a), 0);
	for (i = 0; i < 3; i++)
		assert_int_equal(append_ok(e), i);
	e->clock.now = DAY2_EARLY;
	for (i = 3; i < 5; i++)
		assert_int_equal(append_ok(e), i);
	assert_int_equal(th_lines(e->home, DAY1), 3);
	assert_int_equal(th_lines(e->home, DAY2), 2);
	snprintf(path, sizeof(path), "%s/audit/%s", e->home, DAY2);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(path, sizeof(path), "%s/audit", e->home);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	verify_ok(e, 5, 0);

	/* After a restart seq and prev go on from the last line. */
	audit_close(e->a);
	e->a = NULL;
	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	assert_int_equal(append_ok(e), 5);
	assert_int_equal(th_lines(e->home, DAY2), 3);
	verify_ok(e, 6, 0);
}

static void
test_sync_counts(void **state)
{
	struct env *e = *state;
	int i;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	assert_int_equal(e->io.fdatasyncs, 0);
	/* audit/ was created: the home that holds it was synced. */
	assert_int_equal(e->io.fsyncs, 1);
	assert_int_equal(e->io.dir_fsyncs, 1);
	/*
	 * One appender at a time: no sync is out when a record is written, so
	 * each append must start and wait for a sync of its own before it
	 * returns, exactly one per record.
	 */
	for (i = 0; i < 10; i++) {
		append_ok(e);
		assert_int_equal(e->io.fdatasyncs, i + 1);
		assert_int_equal(e->io.writes, i + 1);
	}
	/*
	 * The first record created its file: fsync of the file and of the
	 * directory, before the record was written.
	 */
	assert_int_equal(e->io.fsyncs, 3);
	assert_int_equal(e->io.dir_fsyncs, 2);
	assert_int_equal(e->io.writes_at_dir_fsync, 0);
	e->clock.now = DAY2_EARLY;
	append_ok(e);
	assert_int_equal(e->io.fdatasyncs, 11);
	/* Rollover: a final fsync of day 1, then the new file and the dir. */
	assert_int_equal(e->io.fsyncs, 6);
	assert_int_equal(e->io.dir_fsyncs, 3);
	assert_int_equal(e->io.writes_at_dir_fsync, 10);
	/* Space is reserved once, not per record. */
	assert_int_equal(e->io.fallocates, 2);
}

static void
test_clock_back(void **state)
{
	struct env *e = *state;
	struct bx_chain_report *r;

	e->clock.now = DAY2_EARLY;
	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	e->clock.now = DAY1_LATE;
	append_ok(e);
	assert_int_equal(th_lines(e->home, DAY1), -1);
	assert_int_equal(th_lines(e->home, DAY2), 2);
	r = th_verify(e->home);
	assert_false(r->failed);
	assert_int_equal(r->nclock_warnings, 1);
	assert_int_equal(r->clock_warnings[0].line, 2);
	bx_chain_report_free(r);
}

static void
test_lock(void **state)
{
	struct env *e = *state;
	struct audit *other = NULL;
	struct bx_error err;
	int status;
	pid_t pid;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		int rv = th_open(e->home, false, &e->clock, &e->io, &other,
		    &err);

		if (rv == -1 && strstr(err.msg, "brokerd is already running") &&
		    strstr(err.msg, "see docs/runbook.md#"
		    "brokerd-already-running"))
			_exit(0);
		_exit(1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
	/* Once closed, another writer may start. */
	audit_close(e->a);
	e->a = NULL;
	th_open_ok(e->home, &e->clock, &e->io, &e->a);
}

/* Marks in open[] the descriptors open now (below 1024). */
static void
open_fds(bool *open, int max)
{
	struct dirent *de;
	DIR *d;
	int fd;

	memset(open, 0, (size_t)max * sizeof(*open));
	d = opendir("/proc/self/fd");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		fd = atoi(de->d_name);
		if (de->d_name[0] != '.' && fd != dirfd(d) && fd < max)
			open[fd] = true;
	}
	closedir(d);
}

static void
test_cloexec(void **state)
{
	struct env *e = *state;
	bool before[1024], after[1024];
	int fd, flags, checked = 0;

	open_fds(before, 1024);
	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	open_fds(after, 1024);
	for (fd = 0; fd < 1024; fd++) {
		if (!after[fd] || before[fd])
			continue;
		flags = fcntl(fd, F_GETFD);
		assert_true(flags != -1);
		if (!(flags & FD_CLOEXEC))
			fail_msg("descriptor %d is not close-on-exec", fd);
		checked++;
	}
	/* The directory, the lock and the log: nothing else stays open. */
	assert_int_equal(checked, 3);
}

struct thread_arg {
	struct env	*e;
	uint64_t	 seqs[50];
};

static void *
appender(void *p)
{
	struct thread_arg *t = p;
	struct bx_audit_event ev = th_decision(true);
	struct bx_error err;
	int i;

	for (i = 0; i < 50; i++)
		if (audit_append(t->e->a, &ev, &t->seqs[i], &err) != 0)
			t->seqs[i] = UINT64_MAX;
	return NULL;
}

static void
test_threads(void **state)
{
	struct env *e = *state;
	struct thread_arg args[4];
	pthread_t th[4];
	bool seen[200] = { false };
	int i, j;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	for (i = 0; i < 4; i++) {
		args[i].e = e;
		assert_int_equal(pthread_create(&th[i], NULL, appender,
		    &args[i]), 0);
	}
	for (i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	for (i = 0; i < 4; i++)
		for (j = 0; j < 50; j++) {
			assert_true(args[i].seqs[j] < 200);
			assert_false(seen[args[i].seqs[j]]);
			seen[args[i].seqs[j]] = true;
		}
	verify_ok(e, 200, 0);
}

static void
test_write_error(void **state)
{
	struct env *e = *state;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	e->io.fail_write = EIO;
	append_fails(e, "Input/output error");
	/* Nothing reached the file: the same seq is used again. */
	assert_int_equal(append_ok(e), 1);
	assert_int_equal(th_lines(e->home, DAY1), 2);
	verify_ok(e, 2, 0);
}

static void
test_short_write(void **state)
{
	struct env *e = *state;
	struct bx_chain_report *r;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	e->io.short_write = 40;
	e->io.short_pending = true;
	append_fails(e, "short write");
	/* The torn line is on disk, and is not treated as written. */
	r = th_verify(e->home);
	assert_true(r->torn);
	assert_int_equal(r->torn_bytes, 40);
	bx_chain_report_free(r);
	/* The next append ends it, recovers it, then writes its record. */
	assert_int_equal(append_ok(e), 2);
	assert_int_equal(th_lines(e->home, DAY1), 4);
	verify_ok(e, 3, 1);
	r = th_verify(e->home);
	assert_int_equal(r->recoveries[0].line, 2);
	bx_chain_report_free(r);
}

static void
test_short_write_before_newline(void **state)
{
	struct env *e = *state;
	struct bx_audit_record rec = { 0 };
	char *line;
	size_t len;
	struct bx_error err;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	/* A record cut exactly before its "\n" still parses; still torn. */
	rec.event = th_decision(false);
	rec.seq = 1;
	rec.time = e->clock.now;
	assert_int_equal(bx_audit_record_encode(&rec, &line, &len, &err), 0);
	free(line);
	e->io.short_write = len;
	e->io.short_pending = true;
	append_fails(e, "short write");
	assert_int_equal(append_ok(e), 2);
	verify_ok(e, 3, 1);
}

static void
test_fdatasync_error(void **state)
{
	struct env *e = *state;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	e->io.fail_fdatasync = EIO;
	append_fails(e, "cannot sync");
	/*
	 * The whole line may be in the file, but it was never synced: it is
	 * recovered, not adopted, and the next record follows the Recovery.
	 */
	assert_int_equal(append_ok(e), 2);
	assert_int_equal(th_lines(e->home, DAY1), 4);
	verify_ok(e, 3, 1);
	/* The sync after a failure is a new one for new data, never a retry. */
	assert_int_equal(e->io.fdatasyncs, 4);
}

static void
test_failed_repair(void **state)
{
	struct env *e = *state;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	e->io.short_write = 10;
	e->io.short_pending = true;
	append_fails(e, "short write");
	/* The repair's own write fails: nothing is claimed written. */
	e->io.fail_write = ENOSPC;
	append_fails(e, "No space left on device");
	assert_int_equal(append_ok(e), 2);
	verify_ok(e, 3, 1);
}

static void
test_no_space(void **state)
{
	struct env *e = *state;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	append_ok(e);
	/* Without room for the record and a Recovery, nothing is written. */
	e->io.fail_fallocate = ENOSPC;
	e->clock.now = DAY2_EARLY;
	append_fails(e, "cannot reserve space");
	assert_int_equal(th_lines(e->home, DAY2), 0);
	assert_int_equal(append_ok(e), 1);
	verify_ok(e, 2, 0);
}

static void
test_refuses_own_records(void **state)
{
	struct env *e = *state;
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };
	struct bx_error err;
	uint64_t seq;

	th_open_ok(e->home, &e->clock, &e->io, &e->a);
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), -1);
	ev.type = BX_AUDIT_ACCEPTED_BREAK;
	assert_int_equal(audit_append(e->a, &ev, &seq, &err), -1);
	assert_int_equal(e->io.writes, 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_day_boundary, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_sync_counts, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_clock_back, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_lock, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cloexec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_write_error, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_short_write, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_short_write_before_newline,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_fdatasync_error, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_failed_repair, setup,
		    teardown),
		cmocka_unit_test_setup_teardown(test_no_space, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refuses_own_records, setup,
		    teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
