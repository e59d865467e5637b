/*
 * cgroup_file.c: one cgroup file read or written, one cgroup directory
 * made (cgroup_file.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/cgroup_file.h"
#include "proto/writefile.h"

int
cgroup_put(const char *dir, const char *name, const char *value,
    struct bx_error *err)
{
	char path[PATH_MAX];
	int fd, rc = 0;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1 ||
	    bx_write_all(fd, value, strlen(value)) == -1)
		rc = bx_fail(err, "%s: cannot write %s: %s", path, value,
		    strerror(errno));
	if (fd != -1)
		close(fd);
	return rc;
}

int
cgroup_read(const char *dir, const char *name, char *buf, size_t size)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	do
		n = read(fd, buf, size - 1);
	while (n == -1 && errno == EINTR);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n == -1 ? -1 : 0;
}

int
cgroup_make_dir(const char *path, bool exist_ok, struct bx_error *err)
{
	if (mkdir(path, 0755) == 0 || (exist_ok && errno == EEXIST))
		return 0;
	return bx_fail(err, "%s: cannot create: %s", path, strerror(errno));
}
