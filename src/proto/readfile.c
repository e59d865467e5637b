/*
 * readfile.c: a whole small file into memory, up to a limit, refusing what
 * is not a regular file (see readfile.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/readfile.h"
#include "proto/wipe.h"

/*
 * The first buffer of a file that says it is empty (/proc's), so that it
 * is read in few calls. Any other file's first buffer is its size and two
 * bytes (the one that notices growth, and the '\0'): a larger one would
 * cost a small file a larger malloc for nothing.
 */
#define READFILE_FIRST	4096

static int
failed(enum bx_readfile_why *why, enum bx_readfile_why what)
{
	if (why != NULL)
		*why = what;
	return -1;
}

/* fstat and the checks, on fd; does not close it. */
static int
check(int fd, const char *shown, size_t max, size_t *ret_size,
    enum bx_readfile_why *why, struct bx_error *err)
{
	struct stat st;
	int saved;

	if (fstat(fd, &st) == -1) {
		saved = errno;
		bx_fail(err, "%s: cannot read: %s", shown, strerror(errno));
		errno = saved;
		return failed(why, BX_READFILE_READ);
	}
	if (S_ISDIR(st.st_mode)) {
		bx_fail(err, "%s is a directory, not a regular file", shown);
		return failed(why, BX_READFILE_DIRECTORY);
	}
	if (!S_ISREG(st.st_mode)) {
		bx_fail(err, "%s is not a regular file", shown);
		return failed(why, BX_READFILE_NOT_REGULAR);
	}
	if (max > 0 && (st.st_size < 0 || (uintmax_t)st.st_size > max)) {
		bx_fail(err, "%s is larger than %zu bytes", shown, max);
		return failed(why, BX_READFILE_TOO_LARGE);
	}
	*ret_size = (size_t)st.st_size;
	return 0;
}

int
bx_readfile_open(int dirfd, const char *name, const char *shown,
    int extra_flags, size_t max, int *ret_fd, size_t *ret_size,
    enum bx_readfile_why *why, struct bx_error *err)
{
	size_t size;
	int fd, saved;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK |
	    extra_flags);
	if (fd == -1) {
		saved = errno;
		bx_fail(err, "%s: cannot open: %s", shown, strerror(errno));
		errno = saved;
		return failed(why, BX_READFILE_OPEN);
	}
	if (check(fd, shown, max, &size, why, err) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	*ret_fd = fd;
	*ret_size = size;
	return 0;
}

/*
 * Grows *buf (len bytes used) to hold at least want bytes and a '\0': the
 * first time just that (the file's size is known), doubling when the file
 * grew. The old buffer is overwritten, not realloc(3)ed: the file may be
 * a secret (brokerd/secret.c), and realloc may free the old copy as it
 * was. Only a file larger than fstat(2) said (/proc's) ever grows.
 */
static int
grow(char **buf, size_t *cap, size_t len, size_t want)
{
	size_t ncap = *cap;
	char *p;

	if (ncap == 0)
		ncap = want > 1 ? want + 1 : READFILE_FIRST;
	while (ncap < want + 1)
		ncap *= 2;
	if (ncap == *cap)
		return 0;
	if ((p = malloc(ncap)) == NULL)
		return -1;
	if (*buf != NULL) {
		memcpy(p, *buf, len);
		bx_wipe_free(*buf, *cap);
	}
	*buf = p;
	*cap = ncap;
	return 0;
}

/* Reads fd, checked and size bytes long when checked, to end of file. */
static int
read_all(int fd, const char *shown, size_t max, size_t size, char **ret_buf,
    size_t *ret_len, enum bx_readfile_why *why, struct bx_error *err)
{
	char *buf = NULL;
	size_t cap = 0, len = 0, want;
	ssize_t n;
	int rc = -1, saved;

	/* One byte past the size (or the limit) notices a file that grew. */
	want = size + 1;
	for (;;) {
		if (max > 0 && want > max + 1)
			want = max + 1;
		if (grow(&buf, &cap, len, want) == -1) {
			bx_fail(err, "%s: out of memory", shown);
			failed(why, BX_READFILE_NOMEM);
			goto out;
		}
		n = read(fd, buf + len, cap - 1 - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			saved = errno;
			bx_fail(err, "%s: cannot read: %s", shown,
			    strerror(errno));
			errno = saved;
			failed(why, BX_READFILE_READ);
			goto out;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (max > 0 && len > max) {
			bx_fail(err, "%s is larger than %zu bytes", shown, max);
			failed(why, BX_READFILE_TOO_LARGE);
			goto out;
		}
		if (len == cap - 1)
			want = cap * 2;
	}
	buf[len] = '\0';
	*ret_buf = buf;
	*ret_len = len;
	buf = NULL;
	rc = 0;
out:
	saved = errno;
	/* What a failed read holds is overwritten, as grow() does. */
	bx_wipe_free(buf, cap);
	errno = saved;
	return rc;
}

int
bx_readfile_fd(int fd, const char *shown, size_t max, char **ret_buf,
    size_t *ret_len, enum bx_readfile_why *why, struct bx_error *err)
{
	size_t size;

	if (check(fd, shown, max, &size, why, err) == -1)
		return -1;
	return read_all(fd, shown, max, size, ret_buf, ret_len, why, err);
}

int
bx_readfile_at(int dirfd, const char *name, const char *shown,
    int extra_flags, size_t max, char **ret_buf, size_t *ret_len,
    enum bx_readfile_why *why, struct bx_error *err)
{
	size_t size;
	int fd, rc, saved;

	if (bx_readfile_open(dirfd, name, shown, extra_flags, max, &fd, &size,
	    why, err) == -1)
		return -1;
	rc = read_all(fd, shown, max, size, ret_buf, ret_len, why, err);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int
bx_readfile(const char *path, size_t max, char **ret_buf, size_t *ret_len,
    enum bx_readfile_why *why, struct bx_error *err)
{
	return bx_readfile_at(AT_FDCWD, path, path, 0, max, ret_buf, ret_len,
	    why, err);
}
