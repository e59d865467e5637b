/*
 * test-log-follow.c: bxctl log --follow, run as the real binary, against
 * a log still being written: a torn line's "\n" and the Recovery record
 * after it read in two pieces while the test holds the audit lock as
 * brokerd does (no false break), a line that fails waiting only until
 * the lock is let go, and a real break reported at once.
 *
 * Nothing here sleeps to let bxctl catch up: the test counts bxctl's
 * opens of the day's file (inotify), so it knows a later look has read
 * what it wrote, and reads bxctl's output for what must appear.
 */
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "auditlog.h"
#include "proto/sha256.h"
#include "run.h"

/* Generous: bxctl should answer at once, on a loaded machine too. */
#define WAIT_MS		30000
#define DAY_FILE	"2025-09-18.jsonl"
#define TORN		"{\"seq\":1,\"time\":\"2025"

struct env {
	char		*dir;
	struct alog	 log;
	int		 lock;		/* audit/.lock, held as brokerd does */
	int		 inotify;	/* IN_OPEN in audit/ */
	pid_t		 pid;		/* bxctl log --follow */
	int		 out;		/* its stdout */
	char		 buf[65536];
	size_t		 len;
};

static int
setup(void **state)
{
	struct env *e = calloc(1, sizeof(*e));
	char path[4096 + 16];

	assert_non_null(e);
	e->dir = run_tempdir();
	alog_init(&e->log, e->dir);
	setenv("TZ", "UTC", 1);
	unsetenv("COLUMNS");
	snprintf(path, sizeof(path), "%s/.lock", e->log.dir);
	e->lock = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	assert_true(e->lock != -1);
	assert_int_equal(flock(e->lock, LOCK_EX | LOCK_NB), 0);
	e->inotify = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	assert_true(e->inotify != -1);
	assert_true(inotify_add_watch(e->inotify, e->log.dir, IN_OPEN) != -1);
	e->pid = -1;
	*state = e;
	return 0;
}

static int
teardown(void **state)
{
	struct env *e = *state;

	if (e->pid != -1) {
		kill(e->pid, SIGKILL);
		waitpid(e->pid, NULL, 0);
		close(e->out);
	}
	if (e->lock != -1)
		close(e->lock);
	close(e->inotify);
	run_rmdir(e->dir);
	free(e);
	return 0;
}

static void
start_follow(struct env *e)
{
	char path[4096];
	int out[2];

	snprintf(path, sizeof(path), "%s/src/bxctl/bxctl",
	    getenv("BX_BUILD_ROOT"));
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	e->pid = fork();
	assert_true(e->pid != -1);
	if (e->pid == 0) {
		dup2(out[1], 1);
		execl(path, "bxctl", "log", "--follow", "--home", e->dir,
		    (char *)NULL);
		_exit(127);
	}
	close(out[1]);
	e->out = out[0];
}

static int64_t
now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (int64_t)t.tv_sec * 1000 + t.tv_nsec / 1000000;
}

/* Reads what bxctl printed so far; false once it ended. */
static bool
read_out(struct env *e)
{
	ssize_t n;

	n = read(e->out, e->buf + e->len, sizeof(e->buf) - e->len - 1);
	if (n <= 0)
		return false;
	e->len += (size_t)n;
	e->buf[e->len] = '\0';
	return true;
}

/* Until bxctl has printed want, or fail after WAIT_MS. */
static void
await(struct env *e, const char *want)
{
	struct pollfd p = { e->out, POLLIN, 0 };
	int64_t until = now_ms() + WAIT_MS;

	while (strstr(e->buf, want) == NULL) {
		if (now_ms() > until)
			fail_msg("--follow never printed \"%s\"; it printed:\n"
			    "%s", want, e->buf);
		if (poll(&p, 1, 1000) == 1 && !read_out(e))
			fail_msg("--follow ended; it printed:\n%s", e->buf);
	}
}

/* Drops the opens seen so far. */
static void
drain_opens(struct env *e)
{
	char ev[4096];

	while (read(e->inotify, ev, sizeof(ev)) > 0)
		continue;
}

/* How many of the events in ev (n bytes) open the day's file. */
static int
count_opens(const char *ev, ssize_t n)
{
	const struct inotify_event *ie;
	ssize_t off;
	int k = 0;

	for (off = 0; off < n; off += (ssize_t)sizeof(*ie) + ie->len) {
		ie = (const struct inotify_event *)(const void *)(ev + off);
		if (ie->len > 0 && strcmp(ie->name, DAY_FILE) == 0)
			k++;
	}
	return k;
}

/*
 * Until bxctl has opened the day's file three times since the last
 * drain_opens: the second open began after what the test wrote before it
 * (one look at most can straddle the write), and the third only once the
 * look that read it was done. Fails if bxctl ends or prints a break.
 */
static void
await_looks(struct env *e)
{
	struct pollfd p[2] = { { e->inotify, POLLIN, 0 }, { e->out, POLLIN, 0 } };
	int64_t until = now_ms() + WAIT_MS;
	char ev[4096] __attribute__((aligned(8)));
	ssize_t n;
	int opens = 0;

	while (opens < 3) {
		if (now_ms() > until)
			fail_msg("--follow did not look at the log again");
		if (poll(p, 2, 1000) <= 0)
			continue;
		if ((p[1].revents & (POLLIN | POLLHUP)) != 0 && !read_out(e))
			fail_msg("--follow ended; it printed:\n%s", e->buf);
		if (strstr(e->buf, "broken") != NULL)
			fail_msg("--follow cried wolf:\n%s", e->buf);
		if ((n = read(e->inotify, ev, sizeof(ev))) > 0)
			opens += count_opens(ev, n);
	}
}

/* bxctl's exit status, once it has ended on its own. */
static int
await_exit(struct env *e)
{
	int status;

	while (read_out(e))
		continue;
	assert_int_equal(waitpid(e->pid, &status, 0), e->pid);
	e->pid = -1;
	close(e->out);
	assert_true(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* A call, then the first bytes of the next record, torn: brokerd died. */
static void
torn_log(struct env *e)
{
	alog_decision(&e->log, "s1", "c1", "read_file", "{\"n\":1}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	alog_raw(&e->log, TORN, sizeof(TORN) - 1);
}

/*
 * The restarted brokerd's "\n" and Recovery record, read half written:
 * the torn line has its newline and the Recovery not yet its own. No
 * break is reported, and once the rest is in, the recovery is shown. A
 * real break after it is reported at once, lock held or not.
 */
static void
test_recovery_in_two_pieces(void **state)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };
	struct env *e = *state;
	char *line;
	size_t len;

	torn_log(e);
	start_follow(e);
	await(e, "{\"n\":1}");
	ev.recovery.torn_bytes = sizeof(TORN) - 1;
	assert_int_equal(bx_sha256(TORN, sizeof(TORN) - 1,
	    &ev.recovery.torn_sha256, NULL), 0);
	/* The Recovery chains from the last record, as brokerd's does. */
	alog_line(&e->log, &ev, &line, &len);
	drain_opens(e);
	alog_raw(&e->log, "\n", 1);
	alog_raw(&e->log, line, 40);
	await_looks(e);
	alog_raw(&e->log, line + 40, len - 40);
	free(line);
	await(e, "recovered: " DAY_FILE ":2 was a torn line (21 bytes)");
	alog_decision(&e->log, "s1", "c2", "read_file", "{\"n\":2}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	await(e, "{\"n\":2}");
	assert_null(strstr(e->buf, "broken"));
	/* A line that fails, then another: a break, though brokerd runs. */
	alog_raw(&e->log, "garbage\n", 8);
	alog_decision(&e->log, "s1", "c3", "read_file", "{\"n\":3}",
	    BX_OUTCOME_DENIED, BX_DENY_NO_GRANT, NULL);
	await(e, "chain: broken at " DAY_FILE ":5: not an audit record");
	assert_int_equal(await_exit(e), 1);
	assert_null(strstr(e->buf, "{\"n\":3}"));
}

/*
 * The "\n" alone, and brokerd gone before its Recovery: while the lock is
 * held the line waits; once it is let go, the break is reported.
 */
static void
test_brokerd_gone(void **state)
{
	struct env *e = *state;

	torn_log(e);
	start_follow(e);
	await(e, "{\"n\":1}");
	drain_opens(e);
	alog_raw(&e->log, "\n", 1);
	await_looks(e);
	close(e->lock);
	e->lock = -1;
	await(e, "chain: broken at " DAY_FILE ":2: not an audit record");
	assert_int_equal(await_exit(e), 1);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_recovery_in_two_pieces,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_brokerd_gone, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
