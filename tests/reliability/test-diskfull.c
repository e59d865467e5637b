/*
 * test-diskfull.c: the audit directory on a small tmpfs that fills up under
 * the real brokerd. When it is full, calls are denied with
 * audit_unavailable and nothing runs; when space is freed, brokerd goes on
 * by itself with a chain that verifies.
 *
 *	reserved	brokerd's own way: space is reserved ahead with
 *			fallocate, so a full disk fails the next record
 *			cleanly before a byte is written; a restart on the
 *			full disk starts and keeps denying
 *	torn		a file system without fallocate (strace makes every
 *			fallocate fail with EOPNOTSUPP): the record that
 *			meets the full disk is torn for real; once space is
 *			freed the torn line gets its Recovery record; a
 *			restart without space refuses to start, with space
 *			it recovers by itself
 *
 * Mounting needs root (or CAP_SYS_ADMIN); without it, or without strace,
 * the test says why and exits 77 (skipped). The tmpfs is unmounted and the
 * home removed after every case, failed or not.
 */
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "harness.h"

/* Small, so it fills in a few hundred calls; larger than one reservation. */
#define DISKFULL_SIZE		"size=1m,mode=0700"
/* Calls before the disk must have filled (each record is ~3 KiB). */
#define DISKFULL_CALLS_MAX	2000
/* A long path, so that each record takes room. */
#define DISKFULL_PATH_LEN	3000
#define DISKFULL_OUT_MAX	65536
#define DISKFULL_SEEN_MAX	(DISKFULL_CALLS_MAX + 64)

struct disk {
	struct rh_home	 d_home;
	bool		 d_mounted;
	char		 d_fill[PATH_MAX];
	struct rh_seen	*d_seen;
	size_t		 d_nseen;
	char		 d_args[DISKFULL_PATH_LEN + 128];	/* allowed */
	char		 d_ask_args[DISKFULL_PATH_LEN + 128];
};

/* Arguments with a long path under grant, valid: components of 100 bytes. */
static void
long_args(char *buf, size_t size, const char *grant)
{
	size_t n;

	n = (size_t)snprintf(buf, size, "{\"path\":\"%s", grant);
	while (n < DISKFULL_PATH_LEN) {
		buf[n++] = '/';
		memset(buf + n, 'a', 99);
		n += 99;
	}
	snprintf(buf + n, size - n, "\"}");
}

static int
setup(void **state)
{
	struct disk *d;

	if ((d = calloc(1, sizeof(*d))) == NULL ||
	    (d->d_seen = calloc(DISKFULL_SEEN_MAX, sizeof(*d->d_seen))) ==
	    NULL || rh_home_make(&d->d_home, 60000) == -1)
		return -1;
	if (mkdir(d->d_home.audit, 0700) == -1 || mount("tmpfs",
	    d->d_home.audit, "tmpfs", MS_NOSUID | MS_NODEV, DISKFULL_SIZE) ==
	    -1)
		return -1;
	d->d_mounted = true;
	snprintf(d->d_fill, sizeof(d->d_fill), "%s/.fill", d->d_home.audit);
	long_args(d->d_args, sizeof(d->d_args), "/docs");
	long_args(d->d_ask_args, sizeof(d->d_ask_args), "/notes");
	*state = d;
	return 0;
}

static int
teardown(void **state)
{
	struct disk *d = *state;

	if (d->d_home.pid > 0)
		rh_kill(&d->d_home, SIGKILL);
	if (d->d_mounted && umount2(d->d_home.audit, MNT_DETACH) == -1)
		fprintf(stderr, "diskfull: cannot unmount %s: %s\n",
		    d->d_home.audit, strerror(errno));
	rh_home_remove(&d->d_home);
	free(d->d_seen);
	free(d);
	return 0;
}

/* Fills the file system with .fill until it is full. */
static void
fill(struct disk *d)
{
	static const char block[4096];
	ssize_t n;
	int fd;

	assert_true((fd = open(d->d_fill, O_WRONLY | O_CREAT | O_APPEND |
	    O_CLOEXEC, 0600)) >= 0);
	while ((n = write(fd, block, sizeof(block))) > 0)
		continue;
	assert_int_equal(errno, ENOSPC);
	/* A last partial block, so that not a byte is left. */
	while (write(fd, block, 1) == 1)
		continue;
	close(fd);
}

static void
free_space(struct disk *d)
{
	assert_int_equal(unlink(d->d_fill), 0);
}

enum answer { ANSWER_RAN, ANSWER_UNAVAILABLE, ANSWER_UNRECORDED, ANSWER_OTHER };

/* One allowed call with the long path; what it was answered. */
static enum answer
call(struct disk *d, const char *args)
{
	struct rh_seen *s = &d->d_seen[d->d_nseen];
	struct rh_answer a;
	struct rh_call c;

	assert_true(d->d_nseen < DISKFULL_SEEN_MAX);
	memset(s, 0, sizeof(*s));
	snprintf(s->s_session, sizeof(s->s_session), "disk");
	snprintf(s->s_call, sizeof(s->s_call), "d%zu", d->d_nseen++);
	assert_int_equal(rh_call_start(&c, d->d_home.broker, s->s_session,
	    s->s_call, args != NULL ? args : d->d_args), 0);
	if (rh_call_next(&c, RH_WAIT_MS, &a) == RH_PENDING) {
		s->s_pending = true;
		s->s_approval = a.a_approval;
		rh_call_next(&c, 0, &a);
	}
	rh_call_close(&c);
	if (a.a_got != RH_FINAL) {
		printf("diskfull: %s: no final answer (%s)\n", s->s_call,
		    a.a_got == RH_ERROR ? a.a_message : "none");
		return ANSWER_OTHER;
	}
	s->s_final = true;
	s->s_status = a.a_status;
	s->s_reason = a.a_reason;
	s->s_unrecorded = a.a_status == BX_STATUS_FAILED &&
	    strcmp(a.a_message, BROKER_UNRECORDED) == 0;
	if (s->s_unrecorded)
		return ANSWER_UNRECORDED;
	if (a.a_status == BX_STATUS_DENIED &&
	    a.a_reason == BX_DENY_AUDIT_UNAVAILABLE)
		return ANSWER_UNAVAILABLE;
	if (a.a_status == BX_STATUS_FAILED &&
	    strcmp(a.a_message, RUNNER_REFUSE_MESSAGE) == 0)
		return ANSWER_RAN;
	printf("diskfull: %s: answered %s %s\n", s->s_call,
	    bx_status_name(a.a_status), a.a_status == BX_STATUS_DENIED ?
	    bx_deny_name(a.a_reason) : a.a_message);
	return ANSWER_OTHER;
}

/* Calls until the disk is full: the first audit_unavailable. */
static size_t
call_until_full(struct disk *d)
{
	enum answer ans;
	size_t n;

	for (n = 0; n < DISKFULL_CALLS_MAX; n++) {
		ans = call(d, NULL);
		if (ans == ANSWER_UNAVAILABLE)
			return n;
		if (ans == ANSWER_OTHER)
			fail_msg("call %zu on a filling disk: an answer that is "
			    "neither a run nor a failure to record", n);
	}
	fail_msg("%d calls and the disk never filled", DISKFULL_CALLS_MAX);
	return 0;
}

/* While full: every call denied, nothing runs, not even an ask. */
static void
denied_while_full(struct disk *d)
{
	int i;

	for (i = 0; i < 5; i++)
		assert_int_equal(call(d, NULL), ANSWER_UNAVAILABLE);
	/* An ask is denied before any pending frame: no Decision, no ask. */
	assert_int_equal(call(d, d->d_ask_args), ANSWER_UNAVAILABLE);
	assert_false(d->d_seen[d->d_nseen - 1].s_pending);
}

/* The log verifies and keeps every promise; its recoveries. */
static size_t
check_log(struct disk *d)
{
	char out[DISKFULL_OUT_MAX], why[512];
	struct rh_log log;
	size_t recoveries;
	int rc;

	rc = rh_verify(d->d_home.dir, out, sizeof(out));
	if (rc != 0 || strncmp(out, "audit: ok", 9) != 0)
		fail_msg("bxctl audit verify exited %d: %s", rc, out);
	assert_int_equal(rh_log_read(d->d_home.dir, &log), 0);
	if (rh_log_check(&log, why, sizeof(why)) == -1 ||
	    rh_answers_check(&log, d->d_seen, d->d_nseen, why,
	    sizeof(why)) == -1)
		fail_msg("%s", why);
	recoveries = log.l_recoveries;
	rh_log_free(&log);
	return recoveries;
}

static void
test_reserved(void **state)
{
	struct disk *d = *state;
	size_t n;
	int status;

	assert_int_equal(rh_start(&d->d_home, NULL), 0);
	assert_int_equal(call(d, NULL), ANSWER_RAN);
	fill(d);
	n = call_until_full(d);
	denied_while_full(d);
	assert_int_equal(check_log(d), 0);
	free_space(d);
	assert_int_equal(call(d, NULL), ANSWER_RAN);
	assert_int_equal(check_log(d), 0);
	printf("diskfull: reserved: full after %zu calls; denied "
	    "audit_unavailable while full; went on once freed, no torn line\n",
	    n);

	/* A restart on a full disk: nothing torn, so it starts, and denies. */
	fill(d);
	status = rh_kill(&d->d_home, SIGKILL);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(rh_start(&d->d_home, NULL), 0);
	denied_while_full(d);
	free_space(d);
	assert_int_equal(call(d, NULL), ANSWER_RAN);
	assert_int_equal(check_log(d), 0);
	status = rh_kill(&d->d_home, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("diskfull: reserved: restarted on the full disk, denied, went "
	    "on once freed\n");
}

static void
test_torn(void **state)
{
	struct disk *d = *state;
	const char *args[] = { "-o", "/dev/null", "-e", "trace=fallocate",
	    "-e", "inject=fallocate:error=EOPNOTSUPP", NULL };
	size_t n;
	pid_t sp;
	int status;

	assert_int_equal(rh_start(&d->d_home, NULL), 0);
	assert_true((sp = rh_strace_attach(&d->d_home, args)) > 0);
	assert_int_equal(call(d, NULL), ANSWER_RAN);
	fill(d);
	n = call_until_full(d);
	if (!rh_log_torn(d->d_home.dir))
		fail_msg("the full disk left no torn line");
	denied_while_full(d);

	/* Space freed: the next call repairs the torn line and goes on. */
	free_space(d);
	assert_int_equal(call(d, NULL), ANSWER_RAN);
	assert_int_equal(check_log(d), 1);

	/* Torn again, then killed: without space it cannot recover, so it
	 * refuses to start; with space it recovers by itself. */
	fill(d);
	call_until_full(d);
	if (!rh_log_torn(d->d_home.dir))
		fail_msg("the full disk left no torn line");
	status = rh_kill(&d->d_home, SIGKILL);
	assert_true(WIFSIGNALED(status));
	rh_strace_wait(sp);
	assert_int_equal(rh_start(&d->d_home, NULL), -1);
	assert_true(rh_errs_contain(&d->d_home, "cannot recover the torn"));
	free_space(d);
	assert_int_equal(rh_start(&d->d_home, NULL), 0);
	assert_true(rh_errs_contain(&d->d_home, "recovered a torn final line"));
	assert_int_equal(call(d, NULL), ANSWER_RAN);
	assert_int_equal(check_log(d), 2);
	status = rh_kill(&d->d_home, SIGTERM);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("diskfull: torn: full after %zu calls, the line torn, denied "
	    "audit_unavailable; once freed, a Recovery record and calls went "
	    "on; torn again and killed, a restart without space refused to "
	    "start, with space it recovered\n", n);
}

/* Whether this process may mount a tmpfs; why not in why. */
static bool
can_mount(char *why, size_t size)
{
	char dir[] = "/tmp/diskfull-probe-XXXXXX";
	bool ok;

	if (mkdtemp(dir) == NULL) {
		snprintf(why, size, "mkdtemp: %s", strerror(errno));
		return false;
	}
	ok = mount("tmpfs", dir, "tmpfs", 0, "size=64k") == 0;
	if (!ok)
		snprintf(why, size, "mount -t tmpfs: %s", strerror(errno));
	else
		umount2(dir, MNT_DETACH);
	rmdir(dir);
	return ok;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_reserved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn, setup, teardown),
	};
	char why[256];

	if (!can_mount(why, sizeof(why))) {
		printf("test-diskfull: skipped: this process may not mount a "
		    "tmpfs (%s); run as root\n", why);
		return 77;
	}
	if (system("strace -V >/dev/null 2>&1") != 0) {
		printf("test-diskfull: skipped: strace is not installed "
		    "(scripts/install-deps.sh installs it)\n");
		return 77;
	}
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
