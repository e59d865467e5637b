/*
 * ptyrun.h: build/bxctl in a pseudo-terminal, as an owner runs it: stdin,
 * stdout and stderr are the terminal, TERM is xterm, HOME is the test's
 * directory (for the chat history). The test reads what the terminal
 * shows until a text appears (or fails after PTY_TIMEOUT_MS, naming the
 * text and showing what came), and types bytes, Ctrl-C included.
 *
 * Ownership: pty_start() fills the caller's struct; pty_finish() waits
 * for bxctl; pty_free() frees the output. Failures abort the test.
 */
#ifndef BXCTL_TEST_PTY_H
#define BXCTL_TEST_PTY_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Generous: nothing waits this long unless something is wrong. */
#define PTY_TIMEOUT_MS	30000

struct pty {
	pid_t	 p_pid;
	int	 p_master;
	char	*p_out;		/* everything shown so far, NUL-terminated */
	size_t	 p_len;
	size_t	 p_seen;	/* where the next pty_expect() looks from */
};

/* args without argv[0], NULL-terminated; home is BOXMAKER_HOME and HOME. */
void	pty_start(struct pty *, const char *const *args, const char *home);
/*
 * Reads until text appears at or after p_seen; returns its offset and
 * moves p_seen past it.
 */
size_t	pty_expect(struct pty *, const char *text);
/*
 * pty_expect(), then waits until the line editor holds the terminal (it
 * is no longer in canonical mode): keys typed before would be taken by
 * the terminal's own line discipline, echoed by it, and a Ctrl-D lost.
 */
void	pty_prompt(struct pty *, const char *text);
/*
 * Waits until the terminal's echo is on (on true) or off, reading what
 * it shows meanwhile; fails after PTY_TIMEOUT_MS saying which it waited
 * for. A program that reads a password turns it off before its prompt
 * is complete, and must turn it back on however it ends.
 */
void	pty_wait_echo(struct pty *, bool on);
/* Whether text appears anywhere in what was shown so far. */
bool	pty_shown(const struct pty *, const char *text);
void	pty_type(struct pty *, const char *bytes);
/* Reads to the end, waits for bxctl; its exit status (128 + signal). */
int	pty_finish(struct pty *);
void	pty_free(struct pty *);

#endif
