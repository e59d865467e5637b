/*
 * runner_spawn.c: starting a runtime's process (exec_start, runner_exec.h):
 * its pipes, the fork or clone3 that makes it in the right cgroup, and the
 * child's few system calls before execve. runner_exec.c watches it from
 * there.
 */
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <linux/sched.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/runner_exec.h"
#include "proto/clock.h"

extern char **environ;

char *const exec_no_env[] = { NULL };

/* Closes both ends of a pipe that are still open. */
static void
close_pair(int fds[2])
{
	size_t i;

	for (i = 0; i < 2; i++)
		if (fds[i] != -1)
			close(fds[i]);
}

/*
 * In the child: only async-signal-safe calls until execve. The parent-death
 * signal comes first, then the check that brokerd is still the parent: a
 * brokerd killed between the fork and the prctl sends no signal, and its
 * child must not go on to start a sandbox nobody watches.
 */
static void __attribute__((noreturn))
child(const struct exec_spawn *sp, pid_t parent, int in, int out, int errfd)
{
	struct sigaction sa;
	sigset_t none;
	size_t i;
	int sig;

	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 || getppid() != parent)
		_exit(126);
	if (dup2(in, 0) == -1 || dup2(out, 1) == -1 || dup2(errfd, 2) == -1)
		_exit(126);
	/* dup2 onto itself keeps FD_CLOEXEC: cleared whatever the numbers. */
	for (i = 0; i < 3; i++)
		if (fcntl((int)i, F_SETFD, 0) == -1)
			_exit(126);
	for (i = 0; i < sp->es_nkeep; i++)
		if (fcntl(sp->es_keep_fds[i], F_SETFD, 0) == -1)
			_exit(126);
	for (i = 0; i < sp->es_njoin; i++)
		if (write(sp->es_join_fds[i], "0", 1) != 1)
			_exit(126);
	if (sp->es_cwd != NULL && chdir(sp->es_cwd) == -1)
		_exit(126);
	(void)setsid();
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	for (sig = 1; sig < NSIG; sig++)
		(void)sigaction(sig, &sa, NULL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	execve(sp->es_argv[0], sp->es_argv, sp->es_env != NULL ? sp->es_env :
	    environ);
	_exit(127);
}

/*
 * fork(2), or on cgroup v2 clone3 with the child made in the call's
 * cgroup, which spares the move fork would need. glibc has no clone3
 * wrapper and runs no fork handlers for it; the child needs none, since it
 * makes only system calls until execve.
 */
static pid_t
spawn(const struct exec_spawn *sp)
{
	struct clone_args args;

	if (!sp->es_into_cgroup)
		return fork();
	memset(&args, 0, sizeof(args));
	args.flags = CLONE_INTO_CGROUP;
	args.exit_signal = SIGCHLD;
	args.cgroup = (uint64_t)sp->es_cgroup_dir;
	return (pid_t)syscall(SYS_clone3, &args, sizeof(args));
}

int
exec_start(const struct exec_spawn *sp, struct exec_child *ret,
    struct bx_error *err)
{
	int in[2] = { -1, -1 }, out[2] = { -1, -1 }, er[2] = { -1, -1 };
	struct exec_child c;
	pid_t pid, self = getpid();
	bool listed;

	if ((sp->es_stdin ? pipe2(in, O_CLOEXEC) :
	    (in[0] = open("/dev/null", O_RDONLY | O_CLOEXEC))) == -1 ||
	    pipe2(out, O_CLOEXEC) == -1 || pipe2(er, O_CLOEXEC) == -1) {
		bx_fail(err, "runner: pipe: %s", strerror(errno));
		goto fail;
	}
	/* Held across fork, so the reaper never sees the pid unlisted. */
	exec_live_lock();
	if ((pid = spawn(sp)) == -1) {
		exec_live_unlock();
		bx_fail(err, "runner: %s: %s", sp->es_into_cgroup ?
		    "clone3 into the call's cgroup" : "fork", strerror(errno));
		goto fail;
	}
	if (pid == 0)
		child(sp, self, in[0], out[1], er[1]);
	listed = exec_live_swap(0, pid);
	exec_live_unlock();
	if (!listed) {
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) == -1 && errno == EINTR)
			continue;
		bx_fail(err, "runner: more than %d runtime processes at once",
		    EXEC_MAX_LIVE);
		goto fail;
	}
	memset(&c, 0, sizeof(c));
	c.ec_pid = pid;
	c.ec_started_ms = bx_clock_mono_ms();
	c.ec_pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	c.ec_stdin = in[1];
	c.ec_stdout = out[0];
	c.ec_stderr = er[0];
	c.ec_status = sp->es_status_read;
	close(in[0]);
	close(out[1]);
	close(er[1]);
	if (c.ec_stdin != -1)
		fcntl(c.ec_stdin, F_SETFL, O_NONBLOCK);
	*ret = c;
	return 0;
fail:
	close_pair(in);
	close_pair(out);
	close_pair(er);
	return -1;
}
