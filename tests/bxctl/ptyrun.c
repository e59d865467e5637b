/*
 * ptyrun.c: bxctl in a pseudo-terminal for the tests (ptyrun.h).
 */
#include <sys/ioctl.h>
#include <sys/wait.h>

#include <errno.h>
#include <poll.h>
#include <pty.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "ptyrun.h"

#define PTY_ARGS_MAX	32

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
child(const char *const *args, const char *home)
{
	char path[4096], *argv[PTY_ARGS_MAX + 2];
	const char *root = getenv("BX_BUILD_ROOT");
	size_t i;

	snprintf(path, sizeof(path), "%s/src/bxctl/bxctl", root != NULL ?
	    root : ".");
	argv[0] = "bxctl";
	for (i = 0; args[i] != NULL && i < PTY_ARGS_MAX; i++)
		argv[i + 1] = (char *)args[i];
	argv[i + 1] = NULL;
	setenv("BOXMAKER_HOME", home, 1);
	setenv("HOME", home, 1);
	setenv("TERM", "xterm", 1);
	unsetenv("XDG_STATE_HOME");
	unsetenv("NO_COLOR");
	execv(path, argv);
	dprintf(2, "pty: cannot run %s: %s\n", path, strerror(errno));
	_exit(127);
}

void
pty_start(struct pty *p, const char *const *args, const char *home)
{
	struct winsize ws = { .ws_row = 40, .ws_col = 120 };

	memset(p, 0, sizeof(*p));
	if ((p->p_out = calloc(1, 1)) == NULL)
		abort();
	p->p_pid = forkpty(&p->p_master, NULL, NULL, &ws);
	if (p->p_pid == -1)
		fail_msg("forkpty: %s", strerror(errno));
	if (p->p_pid == 0)
		child(args, home);
}

/* Reads what is there within ms; false at the end (bxctl closed it). */
static bool
read_some(struct pty *p, int ms)
{
	struct pollfd pfd = { .fd = p->p_master, .events = POLLIN };
	char buf[4096];
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return true;
	if ((n = read(p->p_master, buf, sizeof(buf))) <= 0)
		return false;	/* EIO: the terminal's last user left */
	if ((p->p_out = realloc(p->p_out, p->p_len + (size_t)n + 1)) == NULL)
		abort();
	memcpy(p->p_out + p->p_len, buf, (size_t)n);
	p->p_len += (size_t)n;
	p->p_out[p->p_len] = '\0';
	return true;
}

size_t
pty_expect(struct pty *p, const char *text)
{
	long long until = now_ms() + PTY_TIMEOUT_MS;
	const char *at;
	bool open = true;

	for (;;) {
		/* The output may hold NULs: none is expected, strstr is it. */
		if ((at = strstr(p->p_out + p->p_seen, text)) != NULL) {
			p->p_seen = (size_t)(at - p->p_out) + strlen(text);
			return (size_t)(at - p->p_out);
		}
		if (!open || now_ms() > until)
			fail_msg("waited %d ms for \"%s\" on the terminal; it "
			    "showed: \"%s\"", PTY_TIMEOUT_MS, text,
			    p->p_out + p->p_seen);
		open = read_some(p, 100);
	}
}

void
pty_prompt(struct pty *p, const char *text)
{
	long long until = now_ms() + PTY_TIMEOUT_MS;
	struct termios t;

	pty_expect(p, text);
	/* On Linux the master reads the terminal's modes. */
	for (;;) {
		if (tcgetattr(p->p_master, &t) == -1)
			fail_msg("tcgetattr: %s", strerror(errno));
		if ((t.c_lflag & ICANON) == 0)
			return;
		if (now_ms() > until)
			fail_msg("waited %d ms for the line editor after \"%s\"",
			    PTY_TIMEOUT_MS, text);
		(void)read_some(p, 10);
	}
}

void
pty_wait_echo(struct pty *p, bool on)
{
	long long until = now_ms() + PTY_TIMEOUT_MS;
	struct termios t;

	for (;;) {
		if (tcgetattr(p->p_master, &t) == -1)
			fail_msg("tcgetattr: %s", strerror(errno));
		if (((t.c_lflag & ECHO) != 0) == on)
			return;
		if (now_ms() > until)
			fail_msg("waited %d ms for the terminal's echo to be "
			    "%s; it showed: \"%s\"", PTY_TIMEOUT_MS, on ?
			    "on" : "off", p->p_out);
		(void)read_some(p, 10);
	}
}

bool
pty_shown(const struct pty *p, const char *text)
{
	return strstr(p->p_out, text) != NULL;
}

void
pty_type(struct pty *p, const char *bytes)
{
	size_t len = strlen(bytes);

	assert_int_equal(write(p->p_master, bytes, len), (ssize_t)len);
}

int
pty_finish(struct pty *p)
{
	long long until = now_ms() + PTY_TIMEOUT_MS;
	struct pollfd pfd;
	int status;
	pid_t r;

	while ((r = waitpid(p->p_pid, &status, WNOHANG)) == 0) {
		if (now_ms() > until) {
			kill(p->p_pid, SIGKILL);
			waitpid(p->p_pid, &status, 0);
			fail_msg("bxctl did not exit within %d ms; it showed: "
			    "\"%s\"", PTY_TIMEOUT_MS, p->p_out);
		}
		(void)read_some(p, 100);
	}
	/* What bxctl wrote before it ended. */
	for (;;) {
		pfd.fd = p->p_master;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, 0) <= 0 || !read_some(p, 0))
			break;
	}
	close(p->p_master);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

void
pty_free(struct pty *p)
{
	free(p->p_out);
	p->p_out = NULL;
}
