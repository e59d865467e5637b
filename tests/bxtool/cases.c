/*
 * cases.c: the temporary directory and helpers test-bxtool.c's cases
 * share (see cases.h).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "cases.h"

#define CASE_DIR_TEMPLATE	"/tmp/test-bxtool.XXXXXX"
#define FINAL_MAX		(CASE_PATH_MAX + 128)

char case_dir[sizeof(CASE_DIR_TEMPLATE)];

int
case_setup(void **state)
{
	(void)state;
	alarm(CASE_ALARM);
	snprintf(case_dir, sizeof(case_dir), "%s", CASE_DIR_TEMPLATE);
	return mkdtemp(case_dir) == NULL ? -1 : 0;
}

int
case_teardown(void **state)
{
	char cmd[sizeof(case_dir) + 16];

	(void)state;
	alarm(0);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", case_dir);
	return system(cmd) == 0 ? 0 : -1;
}

char *
at(char *path, const char *name)
{
	int n;

	n = snprintf(path, CASE_PATH_MAX, "%s/%s", case_dir, name);
	assert_true(n > 0 && n < CASE_PATH_MAX);
	return path;
}

void
make_file(const char *path, const void *bytes, size_t len, mode_t mode)
{
	int fd;

	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
	assert_true(fd != -1);
	assert_int_equal(write(fd, bytes, len), len);
	assert_int_equal(fchmod(fd, mode), 0);
	assert_int_equal(close(fd), 0);
}

char *
read_back(const char *path, size_t *ret_len)
{
	struct stat st;
	char *buf;
	int fd;

	assert_true((fd = open(path, O_RDONLY | O_CLOEXEC)) != -1);
	assert_int_equal(fstat(fd, &st), 0);
	assert_non_null(buf = malloc((size_t)st.st_size + 1));
	assert_int_equal(read(fd, buf, (size_t)st.st_size + 1), st.st_size);
	buf[st.st_size] = '\0';
	close(fd);
	*ret_len = (size_t)st.st_size;
	return buf;
}

int
has_temporary(const char *dir)
{
	struct dirent *de;
	DIR *d;
	int found = 0;

	assert_non_null(d = opendir(dir));
	while ((de = readdir(d)) != NULL)
		if (strstr(de->d_name, ".bxtool-") != NULL)
			found = 1;
	closedir(d);
	return found;
}

void
expect_bytes(const struct spawn *s, int code, const char *want,
    size_t wantlen, const char *final)
{
	char lines[FINAL_MAX];

	snprintf(lines, sizeof(lines), "bxtool: started\n\nbxtool: %s\n", final);
	assert_string_equal(s->s_stderr, lines);
	assert_int_equal(s->s_outlen, wantlen);
	assert_memory_equal(s->s_stdout, want, wantlen);
	assert_int_equal(spawn_exit_code(s), code);
}
