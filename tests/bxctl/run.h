/*
 * run.h: running the real build/bxctl for a test: arguments, an
 * environment with BOXMAKER_HOME, bytes on stdin; its exit status and
 * everything it wrote on stdout and stderr, byte for byte.
 *
 * Ownership: run_bxctl() fills the caller's struct run_result, whose out
 * and err buffers are malloc'd and NUL-terminated; run_result_free()
 * frees them. Failures to run at all abort the test.
 */
#ifndef BXCTL_TEST_RUN_H
#define BXCTL_TEST_RUN_H

#include <stddef.h>

struct run_result {
	int	 status;	/* the exit status; 128 + signal if killed */
	char	*out;
	size_t	 outlen;
	char	*err;
	size_t	 errlen;
};

/*
 * Runs bxctl with args (NULL-terminated, without argv[0]) and home as
 * BOXMAKER_HOME (NULL: unset), feeding it input (NULL: none; stdin then
 * reads end of file). Kills it after a generous timeout.
 */
void	run_bxctl(const char *const *args, const char *home, const char *input,
	    struct run_result *);
void	run_result_free(struct run_result *);

/* A new temporary directory for one test (mkdtemp); the caller removes it. */
char	*run_tempdir(void);
/* Removes a directory made by run_tempdir() and everything in it. */
void	run_rmdir(char *dir);

/* The first byte of buf that a terminal would act on, or -1: see the .c. */
long	run_find_control(const char *buf, size_t len);

#endif
