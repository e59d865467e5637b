/*
 * spawn.h: the harness test-bxtool.c runs bxtool through. bxtool runs
 * directly on the host, its stdin, stdout and stderr on pipes of the
 * test's, and every byte of its stdout and stderr is kept for an exact
 * comparison.
 *
 * The buffers are the harness's (heap); spawn_free releases them.
 */
#ifndef BXT_TEST_SPAWN_H
#define BXT_TEST_SPAWN_H

#include <sys/types.h>

#include <stddef.h>

/* More than the largest read bxtool may return. */
#define SPAWN_OUT_MAX	(2 * 1024 * 1024)
/* More than the two status lines bxtool writes, or its usage text. */
#define SPAWN_ERR_MAX	(64 * 1024)
/* The exit status of a child that could not exec bxtool (as nobody). */
#define SPAWN_CANNOT_EXEC	126
/* The descriptor SPAWN_LEAK_FD leaves open, without close-on-exec. */
#define SPAWN_LEAKED_FD	7

enum spawn_flag {
	SPAWN_NOBODY = 1 << 0,		/* as uid and gid 65534, if root */
	SPAWN_IGNORE_SIGNALS = 1 << 1,	/* SIGINT, SIGTERM ignored, SIGUSR1
					   blocked when bxtool starts */
	SPAWN_LEAK_FD = 1 << 2,		/* SPAWN_LEAKED_FD open */
	SPAWN_HOLD_STDIN = 1 << 3,	/* stdin written, but not closed */
	SPAWN_NO_READER = 1 << 4,	/* stdout's read end closed at once */
	SPAWN_NO_STATUS_READER = 1 << 5, /* and stderr's */
};

struct spawn {
	pid_t	 s_pid;
	int	 s_in;			/* write end, or -1 */
	int	 s_out;			/* read ends, or -1 at their end */
	int	 s_err;
	const char *s_input;
	size_t	 s_inlen;
	int	 s_hold;		/* SPAWN_HOLD_STDIN */
	char	*s_stdout;		/* '\0'-ended */
	size_t	 s_outlen;
	char	*s_stderr;		/* '\0'-ended */
	size_t	 s_errlen;
	int	 s_status;		/* waitpid's */
};

/* The path of the bxtool under test (BX_BUILD_ROOT). */
const char *spawn_bxtool(void);

/*
 * Starts bxtool with args (NULL-ended, without argv[0]) and input on its
 * stdin; fails the test if it cannot.
 */
void	spawn_start(struct spawn *s, const char *const args[],
	    const char *input, size_t inlen, int flags);
/* Reads stdout and stderr until stderr ends, then waits for bxtool. */
void	spawn_wait(struct spawn *s);
/* Reads stdout to its end. */
void	spawn_drain(struct spawn *s);
void	spawn_free(struct spawn *s);

/* spawn_start, spawn_wait and spawn_drain. */
void	spawn_run(struct spawn *s, const char *const args[],
	    const char *input, size_t inlen, int flags);
/* bxtool's exit status, or -1 if it did not exit. */
int	spawn_exit_code(const struct spawn *s);

#endif
