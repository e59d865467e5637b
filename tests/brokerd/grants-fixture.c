/* grants-fixture.c: temporary grant directories for the tests. */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "grants-fixture.h"

char *
fixture_dir(void)
{
	const char *tmp = getenv("TMPDIR");
	char *dir;

	if (tmp == NULL || tmp[0] == '\0')
		tmp = "/tmp";
	if (asprintf(&dir, "%s/bx-grants-XXXXXX", tmp) == -1)
		fail_msg("out of memory");
	if (mkdtemp(dir) == NULL)
		fail_msg("mkdtemp %s: %s", dir, strerror(errno));
	return dir;
}

void
fixture_write(const char *dir, const char *name, const char *buf, size_t len)
{
	char *path;
	ssize_t n;
	int fd;

	if (asprintf(&path, "%s/%s", dir, name) == -1)
		fail_msg("out of memory");
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd == -1)
		fail_msg("open %s: %s", path, strerror(errno));
	while (len > 0) {
		n = write(fd, buf, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			fail_msg("write %s: %s", path, strerror(errno));
		buf += n;
		len -= (size_t)n;
	}
	close(fd);
	free(path);
}

void
fixture_text(const char *dir, const char *name, const char *text)
{
	fixture_write(dir, name, text, strlen(text));
}

void
fixture_grant(const char *dir, const char *id, const char *tool,
    const char *mode, const char *max_taint, const char *expires,
    const char *constraints)
{
	char *name, *text;

	if (asprintf(&name, "%s.toml", id) == -1 ||
	    asprintf(&text, "tool = \"%s\"\nmode = \"%s\"\n"
	    "max_taint = \"%s\"\nresult_class = \"private\"\n"
	    "expires = \"%s\"\n\n[constraints]\n%s\n", tool, mode, max_taint,
	    expires, constraints) == -1)
		fail_msg("out of memory");
	fixture_text(dir, name, text);
	free(name);
	free(text);
}

void
fixture_unlink(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) == -1)
		fail_msg("out of memory");
	if (unlink(path) == -1)
		fail_msg("unlink %s: %s", path, strerror(errno));
	free(path);
}

static int
remove_one(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)type;
	(void)f;
	return remove(path);
}

void
fixture_remove(const char *dir)
{
	if (nftw(dir, remove_one, 16, FTW_DEPTH | FTW_PHYS) == -1)
		fail_msg("removing %s: %s", dir, strerror(errno));
}
