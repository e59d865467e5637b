/*
 * spawn.c: bxtool started on pipes and its output collected (see spawn.h).
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "spawn.h"

#define NOBODY		65534
#define ARGS_MAX	32

const char *
spawn_bxtool(void)
{
	static char path[4096];
	const char *root = getenv("BX_BUILD_ROOT");

	assert_non_null(root);
	snprintf(path, sizeof(path), "%s/src/bxtool/bxtool", root);
	return path;
}

/* What bxtool inherits, set in the child just before exec. */
static void
child_settings(int flags)
{
	sigset_t usr1;

	/* The test ignores it; bxtool must do so itself. */
	signal(SIGPIPE, SIG_DFL);
	if (flags & SPAWN_IGNORE_SIGNALS) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		sigemptyset(&usr1);
		sigaddset(&usr1, SIGUSR1);
		sigprocmask(SIG_BLOCK, &usr1, NULL);
	}
	if ((flags & SPAWN_LEAK_FD) &&
	    dup2(STDERR_FILENO, SPAWN_LEAKED_FD) == -1)
		_exit(SPAWN_CANNOT_EXEC);
	if ((flags & SPAWN_NOBODY) && geteuid() == 0 &&
	    (setgroups(0, NULL) == -1 || setgid(NOBODY) == -1 ||
	    setuid(NOBODY) == -1))
		_exit(SPAWN_CANNOT_EXEC);
}

static void
child(int in[2], int out[2], int err[2], const char *const args[], int flags)
{
	const char *argv[ARGS_MAX];
	size_t i;

	argv[0] = spawn_bxtool();
	for (i = 0; args[i] != NULL && i + 2 < ARGS_MAX; i++)
		argv[i + 1] = args[i];
	argv[i + 1] = NULL;
	if (dup2(in[0], 0) == -1 || dup2(out[1], 1) == -1 ||
	    dup2(err[1], 2) == -1)
		_exit(SPAWN_CANNOT_EXEC);
	child_settings(flags);
	execv(argv[0], (char *const *)argv);
	dprintf(2, "spawn: cannot exec %s: %s\n", argv[0], strerror(errno));
	_exit(SPAWN_CANNOT_EXEC);
}

void
spawn_start(struct spawn *s, const char *const args[], const char *input,
    size_t inlen, int flags)
{
	int in[2], out[2], err[2];

	memset(s, 0, sizeof(*s));
	assert_non_null(s->s_stdout = malloc(SPAWN_OUT_MAX + 1));
	assert_non_null(s->s_stderr = malloc(SPAWN_ERR_MAX + 1));
	signal(SIGPIPE, SIG_IGN);
	assert_int_equal(pipe2(in, O_CLOEXEC), 0);
	assert_int_equal(pipe2(out, O_CLOEXEC), 0);
	assert_int_equal(pipe2(err, O_CLOEXEC), 0);
	/* Before the fork, so that bxtool can never write into them. */
	if (flags & SPAWN_NO_READER) {
		close(out[0]);
		out[0] = -1;
	}
	if (flags & SPAWN_NO_STATUS_READER) {
		close(err[0]);
		err[0] = -1;
	}
	assert_true((s->s_pid = fork()) != -1);
	if (s->s_pid == 0)
		child(in, out, err, args, flags);
	close(in[0]);
	close(out[1]);
	close(err[1]);
	s->s_in = in[1];
	s->s_out = out[0];
	s->s_err = err[0];
	s->s_input = input;
	s->s_inlen = inlen;
	s->s_hold = (flags & SPAWN_HOLD_STDIN) != 0;
	assert_int_equal(fcntl(s->s_in, F_SETFL, O_NONBLOCK), 0);
	if (inlen == 0 && !(flags & SPAWN_HOLD_STDIN)) {
		close(s->s_in);
		s->s_in = -1;
	}
}

/* Reads what fd has into buf; closes it at its end. */
static void
take(int *fd, char *buf, size_t *len, size_t max)
{
	ssize_t n;

	assert_true(*len < max);
	n = read(*fd, buf + *len, max - *len);
	if (n == -1 && errno == EINTR)
		return;
	assert_true(n != -1);
	if (n == 0) {
		close(*fd);
		*fd = -1;
	}
	*len += (size_t)n;
	buf[*len] = '\0';
}

static void
give(struct spawn *s)
{
	ssize_t n;

	n = write(s->s_in, s->s_input, s->s_inlen);
	if (n == -1 && (errno == EINTR || errno == EAGAIN))
		return;
	if (n == -1) {
		/* bxtool stopped reading: it refused the content. */
		assert_int_equal(errno, EPIPE);
		s->s_inlen = 0;
	} else {
		s->s_input += n;
		s->s_inlen -= (size_t)n;
	}
	if (s->s_inlen == 0 && !s->s_hold) {
		close(s->s_in);
		s->s_in = -1;
	}
}

static void
pump(struct spawn *s, int until_stdout)
{
	struct pollfd p[3];

	while (s->s_err != -1 || (until_stdout && s->s_out != -1)) {
		p[0].fd = s->s_out;
		p[1].fd = s->s_err;
		p[2].fd = s->s_inlen > 0 ? s->s_in : -1;
		p[0].events = p[1].events = POLLIN;
		p[2].events = POLLOUT;
		if (poll(p, 3, -1) == -1) {
			assert_int_equal(errno, EINTR);
			continue;
		}
		if (p[0].revents != 0)
			take(&s->s_out, s->s_stdout, &s->s_outlen,
			    SPAWN_OUT_MAX);
		if (p[1].revents != 0)
			take(&s->s_err, s->s_stderr, &s->s_errlen,
			    SPAWN_ERR_MAX);
		if (p[2].revents != 0)
			give(s);
	}
}

void
spawn_wait(struct spawn *s)
{
	pump(s, 0);
	while (waitpid(s->s_pid, &s->s_status, 0) == -1)
		assert_int_equal(errno, EINTR);
}

void
spawn_drain(struct spawn *s)
{
	pump(s, 1);
}

void
spawn_free(struct spawn *s)
{
	if (s->s_in != -1)
		close(s->s_in);
	if (s->s_out != -1)
		close(s->s_out);
	if (s->s_err != -1)
		close(s->s_err);
	free(s->s_stdout);
	free(s->s_stderr);
	s->s_stdout = s->s_stderr = NULL;
}

void
spawn_run(struct spawn *s, const char *const args[], const char *input,
    size_t inlen, int flags)
{
	spawn_start(s, args, input, inlen, flags);
	spawn_wait(s);
	spawn_drain(s);
}

int
spawn_exit_code(const struct spawn *s)
{
	return WIFEXITED(s->s_status) ? WEXITSTATUS(s->s_status) : -1;
}
