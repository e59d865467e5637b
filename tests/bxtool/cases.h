/*
 * cases.h: what test-bxtool.c's cases share: a fresh temporary directory
 * for each (case_dir), a few file helpers, the one comparison of bxtool's
 * output, and the lists of the write and run cases in their own files.
 */
#ifndef BXT_TEST_CASES_H
#define BXT_TEST_CASES_H

#include <sys/types.h>

#include <stddef.h>

#include "spawn.h"

#define CASE_PATH_MAX	512
/* bxtool's limit for read and write, 1 MiB. */
#define CASE_BIG	(1024 * 1024)
/* Each case, a FIFO's included, ends long before this (meson: 120 s). */
#define CASE_ALARM	60

extern char case_dir[];

/* case_dir/name into path (CASE_PATH_MAX bytes); returns path. */
char	*at(char *path, const char *name);
/* Writes len bytes to path, created or emptied, and gives it mode. */
void	 make_file(const char *path, const void *bytes, size_t len,
	    mode_t mode);
/* The file's whole content, '\0'-ended (heap), and its length. */
char	*read_back(const char *path, size_t *ret_len);
/* Whether dir holds a name that has ".bxtool-" in it. */
int	 has_temporary(const char *dir);
/*
 * Fails the test unless bxtool exited with code and wrote exactly want on
 * stdout and "bxtool: started" and "bxtool: final" on stderr.
 */
void	 expect_bytes(const struct spawn *s, int code, const char *want,
	    size_t wantlen, const char *final);

int	case_setup(void **state);
int	case_teardown(void **state);
#define case_test(f)	cmocka_unit_test_setup_teardown(f, case_setup, \
			    case_teardown)

void	test_write_parents(void **state);
void	test_write_keeps_mode(void **state);
void	test_write_replaces_symlink(void **state);
void	test_write_refused(void **state);
void	test_write_limit(void **state);
void	test_write_no_reader(void **state);
#define CASES_WRITE \
	case_test(test_write_parents), \
	case_test(test_write_keeps_mode), \
	case_test(test_write_replaces_symlink), \
	case_test(test_write_refused), \
	case_test(test_write_limit), \
	case_test(test_write_no_reader)

void	test_run_output(void **state);
void	test_run_signal(void **state);
void	test_run_cwd(void **state);
void	test_run_environment(void **state);
void	test_run_stdin(void **state);
void	test_run_process_state(void **state);
void	test_run_cannot_run(void **state);
void	test_run_background(void **state);
void	test_run_not_dumpable(void **state);
#define CASES_RUN \
	case_test(test_run_output), \
	case_test(test_run_signal), \
	case_test(test_run_cwd), \
	case_test(test_run_environment), \
	case_test(test_run_stdin), \
	case_test(test_run_process_state), \
	case_test(test_run_cannot_run), \
	case_test(test_run_background), \
	case_test(test_run_not_dumpable)

void	test_fetch_without_curl(void **state);
void	test_fetch_secret_to_curl(void **state);
#define CASES_FETCH \
	case_test(test_fetch_without_curl), \
	case_test(test_fetch_secret_to_curl)

#endif
