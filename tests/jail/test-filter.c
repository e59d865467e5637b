/*
 * test-filter.c: the sandbox's and the jail's filter (src/jail/filter.h),
 * installed in a forked child as bwrap installs it (no-new-privileges,
 * then the filter).
 * The child runs the checks and exits with the number of the first that
 * failed, so the parent can say which.
 */
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "jail/filter.h"

#define LEN(a)	(sizeof(a) / sizeof((a)[0]))

/* Whether the call returned -1 with errno want. */
static bool
refused(long rc, int want)
{
	return rc == -1 && errno == want;
}

static bool
check_unshare(void)
{
	return refused(unshare(CLONE_NEWUSER), EPERM);
}

static bool
check_mount(void)
{
	return refused(mount("none", "/mnt", "tmpfs", 0, NULL), EPERM);
}

static bool
check_keyctl(void)
{
	/* KEYCTL_GET_KEYRING_ID of the session keyring; allowed it works. */
	return refused(syscall(SYS_keyctl, 0, -3, 0), EPERM);
}

static bool
check_ptrace(void)
{
	return refused(ptrace(PTRACE_TRACEME, 0, NULL, NULL), EPERM);
}

/* A size of 0 makes an unfiltered clone3 EINVAL, never a child. */
static bool
check_clone3(void)
{
	return refused(syscall(SYS_clone3, NULL, 0), ENOSYS);
}

/* A namespace flag in clone's flags is refused; a child that got made ends. */
static bool
check_clone_newns(void)
{
	long rc = syscall(SYS_clone, CLONE_NEWNS | SIGCHLD, 0, 0, 0, 0);

	if (rc == 0)
		_exit(0);
	if (rc > 0)
		waitpid((pid_t)rc, NULL, 0);
	return refused(rc, EPERM);
}

/* Only PER_LINUX and the query pass; the values next to them do not. */
static bool
check_personality(void)
{
	static const unsigned long denied[] = {
		PER_LINUX32, READ_IMPLIES_EXEC, ADDR_NO_RANDOMIZE, 1,
		0x7fffffff, 0x80000000, 0xfffffffe,
	};
	size_t i;

	if (personality(0xffffffff) == -1 || personality(PER_LINUX) == -1)
		return false;
	for (i = 0; i < LEN(denied); i++)
		if (!refused(personality(denied[i]), EPERM))
			return false;
	return true;
}

static bool
check_fork(void)
{
	int status;
	pid_t pid;

	if ((pid = fork()) == 0)
		_exit(getpid() > 1 ? 7 : 8);
	return pid > 0 && waitpid(pid, &status, 0) == pid &&
	    WIFEXITED(status) && WEXITSTATUS(status) == 7;
}

static bool
check_getpid(void)
{
	return getpid() > 1;
}

static bool (*const checks[])(void) = {
	check_unshare, check_mount, check_keyctl, check_ptrace, check_clone3,
	check_clone_newns, check_personality, check_fork, check_getpid,
};

/* More calls denied whatever their arguments (zeros here). */
static const long denied[] = {
	SYS_umount2, SYS_setns, SYS_bpf, SYS_chroot, SYS_pivot_root,
	SYS_delete_module, SYS_perf_event_open, SYS_userfaultfd, SYS_fsopen,
	SYS_open_tree, SYS_add_key, SYS_request_key, SYS_process_vm_readv,
	SYS_acct, SYS_syslog, SYS_swapoff, SYS_name_to_handle_at,
	SYS_io_uring_setup, SYS_io_uring_enter, SYS_io_uring_register,
};

static const char *const names[] = {
	"unshare(CLONE_NEWUSER) is EPERM", "mount is EPERM",
	"keyctl is EPERM", "ptrace(PTRACE_TRACEME) is EPERM",
	"clone3 is ENOSYS", "clone(CLONE_NEWNS) is EPERM",
	"personality: only PER_LINUX and the query work",
	"fork works", "getpid works",
};

static void
test_filter_denies_and_allows(void **state)
{
	struct sock_fprog prog;
	struct bx_error err;
	void *bpf = NULL;
	size_t len = 0, i;
	int status;
	pid_t pid;

	(void)state;
	if (seccomp_program(&bpf, &len, &err) == -1)
		fail_msg("seccomp_program: %s", err.msg);
	assert_true(len > 0 && len % sizeof(struct sock_filter) == 0);
	prog.len = (unsigned short)(len / sizeof(struct sock_filter));
	prog.filter = bpf;
	if ((pid = fork()) == 0) {
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
		    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == -1)
			_exit(100);
		for (i = 0; i < LEN(checks); i++)
			if (!checks[i]())
				_exit(1 + (int)i);
		for (i = 0; i < LEN(denied); i++)
			if (!refused(syscall(denied[i], 0, 0, 0, 0, 0, 0),
			    EPERM))
				_exit(50 + (int)i);
		_exit(0);
	}
	free(bpf);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	if (!WIFEXITED(status))
		fail_msg("the child died of signal %d", WTERMSIG(status));
	if (WEXITSTATUS(status) == 100)
		fail_msg("the filter could not be installed");
	if (WEXITSTATUS(status) >= 50)
		fail_msg("system call %ld is not EPERM",
		    denied[WEXITSTATUS(status) - 50]);
	if (WEXITSTATUS(status) != 0)
		fail_msg("check failed: %s", names[WEXITSTATUS(status) - 1]);
}

/* Without the filter the same calls pass, so the test sees the filter. */
static void
test_checks_pass_unfiltered(void **state)
{
	int status;
	pid_t pid;

	(void)state;
	if ((pid = fork()) == 0)
		_exit(check_clone3() || check_keyctl() || check_unshare() ? 1 : 0);
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_filter_denies_and_allows),
		cmocka_unit_test(test_checks_pass_unfiltered),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
