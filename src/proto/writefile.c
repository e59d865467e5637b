/*
 * writefile.c: a whole buffer written, a directory synced (see
 * writefile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "proto/writefile.h"

int
bx_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	ssize_t n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
bx_fsync_dir(const char *dir)
{
	int fd, rc, saved;

	if ((fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	rc = fsync(fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

/* Fails with errno as it is, for bx_mkdir_private. */
static int
mkdir_failed(const char *dir, struct bx_error *err)
{
	int saved = errno;

	if (saved == ENOTDIR)
		bx_fail(err, "%s is not a directory", dir);
	else
		bx_fail(err, "cannot create %s: %s", dir, strerror(saved));
	errno = saved;
	return -1;
}

int
bx_mkdir_private(const char *dir, struct bx_error *err)
{
	struct stat st;

	if (mkdir(dir, 0700) == 0)
		return 0;
	if (errno != EEXIST || stat(dir, &st) == -1)
		return mkdir_failed(dir, err);
	if (!S_ISDIR(st.st_mode)) {
		errno = ENOTDIR;
		return mkdir_failed(dir, err);
	}
	return 0;
}

int
bx_mkdir_parents(const char *path, struct bx_error *err)
{
	char dir[PATH_MAX], *p;

	if ((size_t)snprintf(dir, sizeof(dir), "%s", path) >= sizeof(dir))
		return bx_fail(err, "%s: the path is too long", path);
	if ((p = strrchr(dir, '/')) == NULL || p == dir)
		return 0;
	*p = '\0';
	for (p = strchr(dir + 1, '/'); p != NULL; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (bx_mkdir_private(dir, err) == -1)
			return -1;
		*p = '/';
	}
	return bx_mkdir_private(dir, err);
}
