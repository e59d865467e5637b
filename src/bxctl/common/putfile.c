/*
 * putfile.c: files put in place and taken away for the owner (putfile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/common/putfile.h"
#include "proto/writefile.h"

/* The whole of buf in a new temporary file in dir, synced; its name in tmp. */
static int
write_temporary(const char *dir, const char *entry, const char *buf,
    size_t len, char *tmp, struct bx_error *err)
{
	int fd, saved;

	if ((size_t)snprintf(tmp, PATH_MAX, "%s/.%s.XXXXXX", dir, entry) >=
	    PATH_MAX)
		return bx_fail(err, "%s: the path is too long", dir);
	/* mkostemp makes it 0600 whatever the umask. */
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1)
		return bx_fail(err, "cannot create a file in %s: %s", dir,
		    strerror(errno));
	if (bx_write_all(fd, buf, len) == -1 || fsync(fd) == -1) {
		saved = errno;
		close(fd);
		unlink(tmp);
		return bx_fail(err, "cannot write %s: %s", tmp,
		    strerror(saved));
	}
	if (close(fd) == -1) {
		saved = errno;
		unlink(tmp);
		return bx_fail(err, "cannot write %s: %s", tmp,
		    strerror(saved));
	}
	return 0;
}

int
putfile_rename_noreplace(const char *from, const char *to)
{
	if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
		return 0;
	if (errno != EINVAL && errno != ENOSYS)
		return -1;
	if (link(from, to) == -1)
		return -1;
	(void)unlink(from);
	return 0;
}

int
putfile_put(const char *dir, const char *entry, const char *buf, size_t len,
    bool replace, struct bx_error *err)
{
	char file[PATH_MAX], tmp[PATH_MAX];
	int saved;

	if ((size_t)snprintf(file, sizeof(file), "%s/%s", dir, entry) >=
	    sizeof(file))
		return bx_fail(err, "%s: the path is too long", dir);
	if (write_temporary(dir, entry, buf, len, tmp, err) == -1)
		return -1;
	if ((replace ? rename(tmp, file) :
	    putfile_rename_noreplace(tmp, file)) == -1) {
		saved = errno;
		unlink(tmp);
		if (saved == EEXIST)
			return bx_fail(err, "%s already exists; nothing was "
			    "replaced", file);
		return bx_fail(err, "cannot put %s in place: %s", file,
		    strerror(saved));
	}
	if (bx_fsync_dir(dir) == -1) {
		saved = errno;
		if (replace)
			return bx_fail(err, "%s was replaced, but %s cannot be "
			    "synced, so a crash may bring the old file back: "
			    "%s", file, dir, strerror(saved));
		/* Not known to last: taken back, so failure means absent. */
		unlink(file);
		return bx_fail(err, "cannot sync %s: %s", dir,
		    strerror(saved));
	}
	return 0;
}

int
putfile_remove(const char *dir, const char *entry, const char *what,
    struct bx_error *err)
{
	char file[PATH_MAX];
	struct stat st;

	if ((size_t)snprintf(file, sizeof(file), "%s/%s", dir, entry) >=
	    sizeof(file))
		return bx_fail(err, "%s: the path is too long", dir);
	if (lstat(file, &st) == -1) {
		if (errno == ENOENT)
			return bx_fail(err, "there is no %s (no %s)", what,
			    file);
		return bx_fail(err, "%s: %s", file, strerror(errno));
	}
	if (!S_ISREG(st.st_mode))
		return bx_fail(err, "%s is not a regular file; it was not "
		    "removed", file);
	if (unlink(file) == -1)
		return bx_fail(err, "cannot remove %s: %s", file,
		    strerror(errno));
	if (bx_fsync_dir(dir) == -1)
		return bx_fail(err, "removed %s, but cannot sync %s: %s", file,
		    dir, strerror(errno));
	return 0;
}
