/*
 * secretvalue.c: a secret's value from the terminal or standard input
 * (secretvalue.h).
 */
#include <errno.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "bxctl/secrets/secretvalue.h"

/*
 * A terminal in canonical mode holds a line of at most this many bytes
 * before its newline (Linux's N_TTY_BUF_SIZE less one), and drops what is
 * typed past it: a line this long may have been cut.
 */
#define TTY_LINE_MAX	4095

/* What the signal handler puts back: set only while echo is off. */
static struct termios	saved_mode;
static volatile sig_atomic_t tty_fd = -1;

static const int restore_signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
#define NSIGNALS	(sizeof(restore_signals) / sizeof(restore_signals[0]))

/*
 * The terminal's mode back, then the signal again with its default
 * action: bxctl ends as it would have, leaving the terminal as it was.
 */
static void
on_signal(int sig)
{
	int saved = errno;

	if (tty_fd != -1) {
		(void)tcsetattr(tty_fd, TCSANOW, &saved_mode);
		(void)write(STDERR_FILENO, "\n", 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
	errno = saved;
}

/* Standard input to its end: at most SECRET_VALUE_MAX + 2 bytes. */
static int
read_stdin(char *buf, size_t *ret_len, struct bx_error *err)
{
	size_t len = 0, cap = SECRET_VALUE_MAX + 2;
	ssize_t n;

	while (len < cap) {
		n = read(STDIN_FILENO, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return bx_fail(err, "cannot read the value from standard "
			    "input: %s", strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == cap)
		return bx_fail(err, "the value on standard input is longer "
		    "than a secret's value may be (%d bytes at most)",
		    SECRET_VALUE_MAX);
	if (len > 0 && buf[len - 1] == '\n')
		len--;
	*ret_len = len;
	return 0;
}

/* One line typed at the terminal fd, echo already off. */
static int
read_line(int fd, char *buf, size_t *ret_len, struct bx_error *err)
{
	size_t len = 0, cap = SECRET_VALUE_MAX + 2;
	ssize_t n;

	for (;;) {
		n = read(fd, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return bx_fail(err, "cannot read the value from the "
			    "terminal: %s", strerror(errno));
		if (n == 0) {
			if (len == 0)
				return bx_fail(err, "no value was typed (end "
				    "of input); nothing was written");
			break;
		}
		len += (size_t)n;
		if (buf[len - 1] == '\n') {
			len--;
			break;
		}
		if (len == cap) {
			/* The rest must not reach the shell as commands. */
			(void)tcflush(fd, TCIFLUSH);
			return bx_fail(err, "the value typed is longer than a "
			    "secret's value may be (%d bytes at most)",
			    SECRET_VALUE_MAX);
		}
	}
	if (len >= TTY_LINE_MAX)
		return bx_fail(err, "a value of %d bytes or more cannot be "
		    "typed at a terminal, which cuts its lines there; give it "
		    "on standard input instead", TTY_LINE_MAX);
	*ret_len = len;
	return 0;
}

/* Echo off, the prompt, one line, the mode put back whatever happens. */
static int
read_tty(int fd, const char *prompt, char *buf, size_t *ret_len,
    struct bx_error *err)
{
	struct sigaction sa, old[NSIGNALS], old_tstp;
	struct termios quiet;
	size_t i;
	int rc;

	if (tcgetattr(fd, &saved_mode) == -1)
		return bx_fail(err, "cannot read the terminal's mode: %s",
		    strerror(errno));
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < NSIGNALS; i++)
		sigaction(restore_signals[i], &sa, &old[i]);
	sa.sa_handler = SIG_IGN;
	sigaction(SIGTSTP, &sa, &old_tstp);
	quiet = saved_mode;
	quiet.c_lflag &= ~(tcflag_t)(ECHO | ECHOE | ECHOK);
	/* The newline still shows, so the next line starts below. */
	quiet.c_lflag |= ECHONL | ICANON;
	tty_fd = fd;
	/* TCSAFLUSH: what was typed ahead, and echoed, is not the value. */
	if (tcsetattr(fd, TCSAFLUSH, &quiet) == -1) {
		rc = bx_fail(err, "cannot turn the terminal's echo off: %s",
		    strerror(errno));
		goto out;
	}
	fputs(prompt, stderr);
	fflush(stderr);
	rc = read_line(fd, buf, ret_len, err);
out:
	(void)tcsetattr(fd, TCSANOW, &saved_mode);
	tty_fd = -1;
	for (i = 0; i < NSIGNALS; i++)
		sigaction(restore_signals[i], &old[i], NULL);
	sigaction(SIGTSTP, &old_tstp, NULL);
	explicit_bzero(&quiet, sizeof(quiet));
	return rc;
}

int
secretvalue_read(const char *prompt, char *buf, size_t *ret_len,
    struct bx_error *err)
{
	size_t len;
	int rc;

	if (isatty(STDIN_FILENO))
		rc = read_tty(STDIN_FILENO, prompt, buf, &len, err);
	else
		rc = read_stdin(buf, &len, err);
	if (rc == -1)
		return -1;
	buf[len] = '\0';
	if (len == 0)
		return bx_fail(err, "the value is empty; nothing was written");
	if (memchr(buf, '\0', len) != NULL)
		return bx_fail(err, "the value holds a NUL; a value is "
		    "printable ASCII only");
	*ret_len = len;
	return 0;
}
