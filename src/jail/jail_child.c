/*
 * jail_child.c: the child's life from the fork to the exec (jail.h). It
 * waits until the caller has written its id maps, builds its root
 * (jail_mounts.c), then gives up, in this order, everything it could use
 * against the caller: supplementary groups, the capability bounding set,
 * the ids, every capability, the ambient set; then no_new_privs, death
 * with the caller, the descriptors it was not given, and last the filter.
 * Any failure is written to the report pipe and ends the child: a jail
 * half built never runs the program.
 */
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/capability.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "jail/jail_impl.h"

/* The first descriptor the program may not inherit. */
#define PASSED_FD	3

static _Noreturn void
fail(const struct jail_child *jc, const char *why)
{
	size_t len = strlen(why);
	ssize_t n;

	while (len > 0) {
		n = write(jc->jc_report, why, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		why += n;
		len -= (size_t)n;
	}
	_exit(1);
}

static _Noreturn void
fail_errno(const struct jail_child *jc, const char *step)
{
	char why[JAIL_WHY_MAX];

	snprintf(why, sizeof(why), "%s: %s", step, strerror(errno));
	fail(jc, why);
}

/* Blocks until the caller says the maps are there; EOF: it gave up. */
static void
wait_for_maps(const struct jail_child *jc)
{
	char go;
	ssize_t n;

	do
		n = read(jc->jc_go, &go, 1);
	while (n == -1 && errno == EINTR);
	if (n != 1)
		_exit(1);
	close(jc->jc_go);
}

static void
drop_ids(const struct jail_child *jc)
{
	const struct bx_jail_id *id = &jc->jc_spec->js_id;
	int cap;

	if (setgroups(0, NULL) == -1)
		fail_errno(jc, "drop the supplementary groups");
	for (cap = 0; prctl(PR_CAPBSET_DROP, cap, 0, 0, 0) == 0; cap++)
		;
	if (errno != EINVAL)
		fail_errno(jc, "drop the capability bounding set");
	if (setresgid(id->ji_gid, id->ji_gid, id->ji_gid) == -1)
		fail_errno(jc, "set the jail's gid");
	if (setresuid(id->ji_uid, id->ji_uid, id->ji_uid) == -1)
		fail_errno(jc, "set the jail's uid");
}

/* A uid change from one that is not 0 keeps capabilities: clear them. */
static void
drop_caps(const struct jail_child *jc)
{
	struct __user_cap_header_struct hdr;
	struct __user_cap_data_struct data[2];

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capset, &hdr, data) == -1)
		fail_errno(jc, "clear the capabilities");
	if (prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0) == -1)
		fail_errno(jc, "clear the ambient capabilities");
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		fail_errno(jc, "set no_new_privs");
}

/*
 * A uid change clears the parent-death signal, so it is set after it. The
 * caller may have died before: then the report pipe has no reader.
 */
static void
die_with_caller(const struct jail_child *jc)
{
	struct pollfd pfd = { jc->jc_report, POLLOUT, 0 };

	if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
		fail_errno(jc, "set the parent-death signal");
	if (poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR))
		_exit(1);
}

/* Moves *fd above the passed descriptor's number, if it is not already. */
static void
lift(struct jail_child *jc, int *fd)
{
	int up;

	if (*fd > PASSED_FD)
		return;
	if ((up = fcntl(*fd, F_DUPFD_CLOEXEC, PASSED_FD + 1)) == -1)
		fail_errno(jc, "move a descriptor");
	*fd = up;
}

/* Only 0, 1, 2 and the passed descriptor reach the program. */
static void
pass_fds(struct jail_child *jc)
{
	int fd = jc->jc_spec->js_pass_fd, first = PASSED_FD;

	lift(jc, &jc->jc_report);
	lift(jc, &jc->jc_exec_fd);
	if (fd >= 0) {
		if (fd == PASSED_FD ? fcntl(fd, F_SETFD, 0) == -1 :
		    dup2(fd, PASSED_FD) == -1)
			fail_errno(jc, "pass the descriptor");
		first = PASSED_FD + 1;
	}
	if (close_range((unsigned)first, ~0U, CLOSE_RANGE_CLOEXEC) == -1)
		fail_errno(jc, "close the other descriptors at exec");
}

/* The program starts with no signal blocked or ignored by the caller. */
static void
reset_signals(void)
{
	sigset_t none;
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

_Noreturn void
jail_child_main(struct jail_child *jc)
{
	char why[JAIL_WHY_MAX];
	mode_t mask;

	reset_signals();
	wait_for_maps(jc);
	/* The root's directories must be passable whatever the umask. */
	mask = umask(022);
	if (jail_mounts(jc->jc_spec, why) == -1)
		fail(jc, why);
	umask(mask);
	if (sethostname(JAIL_HOSTNAME, strlen(JAIL_HOSTNAME)) == -1)
		fail_errno(jc, "set the host name");
	drop_ids(jc);
	drop_caps(jc);
	die_with_caller(jc);
	pass_fds(jc);
	if (prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &jc->jc_filter, 0,
	    0) == -1)
		fail_errno(jc, "install the system-call filter");
	fexecve(jc->jc_exec_fd, jc->jc_argv, jc->jc_envp);
	fail_errno(jc, "exec the program");
}
