/*
 * run.c: bxtool run [--cwd DIR] -- PROGRAM ARGS..., the run_command tool
 * (brokerd runs /bin/sh -c COMMAND). The command gets /dev/null for stdin,
 * bxtool's stdout for both stdout and stderr, no other file descriptor,
 * default signal handling and a fixed environment. bxtool waits for it
 * alone: whatever it left running ends with the sandbox's pid namespace
 * when bxtool exits.
 */
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"

/* The exit status of a command that could not be started, as sh has it. */
#define EXIT_CANNOT_RUN	127
/* The first descriptor the command does not get. */
#define FIRST_CLOSED	3
/* Descriptors closed one by one when close_range(2) is missing. */
#define CLOSE_LOOP_MAX	65536
/* The kernel's sigset_t, and room for any layout of its struct sigaction. */
#define KSIGSET_SIZE	((NSIG - 1) / CHAR_BIT)
#define KSIGACTION_WORDS	8

/* Exactly this, so that nothing of brokerd's or the sandbox's leaks in. */
char *const bxt_command_env[] = {
	"PATH=/usr/local/bin:/usr/bin:/bin",
	"HOME=/tmp",
	"LANG=C.UTF-8",
	NULL,
};

static void
close_others(void)
{
	struct rlimit rl;
	rlim_t fd, last = CLOSE_LOOP_MAX;

	if (close_range(FIRST_CLOSED, ~0U, 0) == 0)
		return;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < last)
		last = rl.rlim_cur;
	for (fd = FIRST_CLOSED; fd < last; fd++)
		(void)close((int)fd);
}

/*
 * glibc's sigaction refuses the signals it keeps for itself (32 and 33),
 * yet bxtool may inherit them ignored. The kernel reads a struct of zeros
 * as SIG_DFL with no flags and nothing masked, whatever its layout.
 */
static void
default_reserved(int sig)
{
	unsigned long zeros[KSIGACTION_WORDS];

	memset(zeros, 0, sizeof(zeros));
	(void)syscall(SYS_rt_sigaction, sig, zeros, NULL, KSIGSET_SIZE);
}

/* Every signal back to SIG_DFL and none blocked, whatever bxtool inherited. */
static void
default_signals(void)
{
	struct sigaction sa;
	sigset_t none;
	int sig;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	(void)sigemptyset(&sa.sa_mask);
	for (sig = 1; sig < NSIG; sig++)
		if (sigaction(sig, &sa, NULL) == -1 && errno == EINVAL)
			default_reserved(sig);
	(void)sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
}

void
bxt_child_reset(void)
{
	close_others();
	default_signals();
	(void)setsid();
}

/*
 * The child: what fails here is the command's failure to start, told on
 * its own output as sh would, with sh's status.
 */
static void
child(char *const argv[], int nullfd)
{
	const char *what = NULL;

	if (dup2(nullfd, STDIN_FILENO) == -1)
		what = "cannot set up stdin for";
	else if (dup2(STDOUT_FILENO, STDERR_FILENO) == -1)
		what = "cannot set up stderr for";
	if (what == NULL) {
		bxt_child_reset();
		(void)execve(argv[0], argv, bxt_command_env);
		what = "cannot run";
	}
	(void)dprintf(STDOUT_FILENO, "bxtool: %s %s: %s\n", what, argv[0],
	    strerror(errno));
	_exit(EXIT_CANNOT_RUN);
}

static int
wait_child(pid_t pid, int *ret_status, struct bxt_outcome *out)
{
	while (waitpid(pid, ret_status, 0) == -1) {
		if (errno == EINTR)
			continue;
		bxt_fail(out, "cannot wait for the command: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}

void
bxt_run(const struct bxt_args *args, struct bxt_outcome *out)
{
	pid_t pid;
	int nullfd, status;

	if (chdir(args->a_cwd) == -1) {
		bxt_fail(out, "cannot change to %s: %s", args->a_cwd,
		    strerror(errno));
		return;
	}
	nullfd = open("/dev/null", O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (nullfd == -1) {
		bxt_fail(out, "cannot open /dev/null: %s", strerror(errno));
		return;
	}
	if ((pid = fork()) == -1) {
		bxt_fail(out, "cannot start the command: %s", strerror(errno));
		close(nullfd);
		return;
	}
	if (pid == 0)
		child(args->a_argv, nullfd);
	/* Only the command, and what it starts, holds the output now. */
	close(nullfd);
	close(STDOUT_FILENO);
	if (wait_child(pid, &status, out) == -1)
		return;
	if (WIFSIGNALED(status)) {
		out->o_final = BXT_SIGNAL;
		out->o_code = WTERMSIG(status);
	} else {
		out->o_final = BXT_EXIT;
		out->o_code = WEXITSTATUS(status);
	}
}
