/*
 * test-peercred.c: src/proto/peercred.h. A rule's uids (each once, at most
 * BX_PEER_RULE_MAX), the peer's uid from SO_PEERCRED (the test's own over a
 * socketpair, and as root a child's that setresuid()s to another uid
 * before it connects), the refusal's words, a descriptor that is not a
 * socket, and the seen set printing each uid once up to its bound.
 */
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/peercred.h"
#include "proto/unixsock.h"

#define OTHER_UID	4242

static void
test_rule(void **state)
{
	struct bx_peer_rule rule;
	struct bx_error err;
	uid_t i;

	(void)state;
	bx_peer_rule_init(&rule, "x.sock");
	assert_false(bx_peer_rule_allows(&rule, 0));
	assert_int_equal(bx_peer_rule_add(&rule, 1000, &err), 0);
	assert_int_equal(bx_peer_rule_add(&rule, 1000, &err), 0);
	assert_int_equal(rule.pr_nuid, 1);
	assert_true(bx_peer_rule_allows(&rule, 1000));
	assert_false(bx_peer_rule_allows(&rule, 0));
	for (i = 1; i < BX_PEER_RULE_MAX; i++)
		assert_int_equal(bx_peer_rule_add(&rule, i, &err), 0);
	assert_int_equal(bx_peer_rule_add(&rule, 77, &err), -1);
	assert_non_null(strstr(err.msg, "x.sock can serve at most"));
	assert_false(bx_peer_rule_allows(&rule, 77));
}

static void
test_own_uid_over_a_socketpair(void **state)
{
	struct bx_peer_rule rule;
	struct bx_error err;
	uid_t uid = 1;
	int sv[2];

	(void)state;
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv), 0);
	assert_int_equal(bx_peer_uid(sv[0], &uid, &err), 0);
	assert_int_equal(uid, geteuid());

	bx_peer_rule_init(&rule, "admin.sock");
	assert_int_equal(bx_peer_rule_add(&rule, geteuid(), &err), 0);
	assert_int_equal(bx_peer_check(sv[0], &rule, &uid, &err), 0);
	assert_int_equal(uid, geteuid());

	/* A rule without the test's uid refuses it, and says so in full. */
	bx_peer_rule_init(&rule, "admin.sock");
	assert_int_equal(bx_peer_rule_add(&rule, 12345, &err), 0);
	assert_int_equal(bx_peer_rule_add(&rule, 4343, &err), 0);
	assert_int_equal(bx_peer_rule_add(&rule, 12346, &err), 0);
	assert_int_equal(bx_peer_check(sv[0], &rule, &uid, &err), -1);
	assert_int_equal(uid, geteuid());
	assert_true(strncmp(err.msg, "refused a connection on admin.sock from "
	    "uid ", 40) == 0);
	assert_non_null(strstr(err.msg, ": admin.sock serves only uids 12345, "
	    "4343 and 12346; see docs/runbook.md#socket-forbidden"));
	close(sv[0]);
	close(sv[1]);
}

static void
test_not_a_socket(void **state)
{
	struct bx_peer_rule rule;
	struct bx_error err;
	uid_t uid = 1;
	int p[2];

	(void)state;
	assert_int_equal(pipe(p), 0);
	assert_int_equal(bx_peer_uid(p[0], &uid, &err), -1);
	assert_int_equal(uid, 1);
	assert_non_null(strstr(err.msg, "SO_PEERCRED"));
	bx_peer_rule_init(&rule, "loop.sock");
	assert_int_equal(bx_peer_rule_add(&rule, geteuid(), &err), 0);
	assert_int_equal(bx_peer_check(p[0], &rule, &uid, &err), -1);
	assert_int_equal(uid, BX_PEER_UID_UNKNOWN);
	assert_non_null(strstr(err.msg, "refused a connection on loop.sock: "
	    "the kernel would not say whose it is"));
	assert_non_null(strstr(err.msg, BX_PEER_RUNBOOK));
	close(p[0]);
	close(p[1]);
}

/* As root: a child that becomes OTHER_UID before connecting is seen so. */
static void
test_another_uid(void **state)
{
	struct bx_unix_file made;
	struct bx_error err;
	char dir[256], path[300];
	uid_t uid = 0;
	pid_t pid;
	int lfd, cfd, status;

	(void)state;
	if (geteuid() != 0)
		skip();
	snprintf(dir, sizeof(dir), "%s/bx-peercred-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/s/x.sock", dir);
	assert_int_equal(bx_unix_listen(path, 4, 0, &lfd, &made, &err), 0);
	/* The modes opened by hand: only the uid tells the two apart. */
	snprintf(path, sizeof(path), "%s/s", dir);
	assert_int_equal(chmod(dir, 0711), 0);
	assert_int_equal(chmod(path, 0711), 0);
	snprintf(path, sizeof(path), "%s/s/x.sock", dir);
	assert_int_equal(chmod(path, 0777), 0);
	assert_true((pid = fork()) >= 0);
	if (pid == 0) {
		if (setresgid(OTHER_UID, OTHER_UID, OTHER_UID) == -1 ||
		    setresuid(OTHER_UID, OTHER_UID, OTHER_UID) == -1 ||
		    bx_unix_connect(path, 0, &cfd, &err) == -1)
			_exit(1);
		_exit(0);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* The child is gone; its queued connection still says who it was. */
	assert_true((cfd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0);
	assert_int_equal(bx_peer_uid(cfd, &uid, &err), 0);
	assert_int_equal(uid, OTHER_UID);
	close(cfd);
	close(lfd);
	bx_unix_remove(path, &made);
	snprintf(path, sizeof(path), "%s/s", dir);
	rmdir(path);
	rmdir(dir);
}

static void
test_seen_once_and_bounded(void **state)
{
	struct bx_peer_seen seen;
	uid_t i;

	(void)state;
	memset(&seen, 0, sizeof(seen));
	assert_true(bx_peer_seen_first(&seen, 1234));
	assert_false(bx_peer_seen_first(&seen, 1234));
	for (i = 1; i < BX_PEER_SEEN_MAX; i++)
		assert_true(bx_peer_seen_first(&seen, 5000 + i));
	/* Full: a new uid is no longer printed, and the old ones still not. */
	assert_false(bx_peer_seen_first(&seen, 9999));
	assert_false(bx_peer_seen_first(&seen, 9999));
	assert_false(bx_peer_seen_first(&seen, 1234));
	assert_int_equal(seen.ps_nuid, BX_PEER_SEEN_MAX);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rule),
		cmocka_unit_test(test_own_uid_over_a_socketpair),
		cmocka_unit_test(test_not_a_socket),
		cmocka_unit_test(test_another_uid),
		cmocka_unit_test(test_seen_once_and_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
