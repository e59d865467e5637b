/*
 * audit_files.c: listing, mapping and feeding the audit files (see
 * audit_files.h). Files are mapped whole so that each line is hashed where
 * it lies, without copying.
 */
#include <sys/mman.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/audit_files.h"
#include "proto/readfile.h"
#include "proto/types.h"

static bool
has_suffix(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n > m && strcmp(s + n - m, suffix) == 0;
}

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void
bx_audit_names_free(char **names, size_t n)
{
	size_t i;

	if (names == NULL)
		return;
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
}

/* Adds name to the list, checking that it is a regular file. */
static int
add_name(int dirfd, const char *name, char ***names, size_t *n, size_t *cap,
    struct bx_error *err)
{
	struct stat st;
	char **grown;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return bx_fail(err, "audit: cannot stat %s: %s", name,
		    strerror(errno));
	if (!S_ISREG(st.st_mode))
		return bx_fail(err, "audit: %s is not a regular file", name);
	if (*n == BX_AUDIT_FILES_MAX)
		return bx_fail(err, "audit: more than %d files", BX_AUDIT_FILES_MAX);
	if (*n == *cap) {
		*cap = *cap == 0 ? 64 : *cap * 2;
		if ((grown = reallocarray(*names, *cap, sizeof(*grown))) == NULL)
			return bx_fail(err, "audit: out of memory");
		*names = grown;
	}
	if (((*names)[*n] = strdup(name)) == NULL)
		return bx_fail(err, "audit: out of memory");
	(*n)++;
	return 0;
}

int
bx_audit_list(int dirfd, char ***ret_names, size_t *ret_n,
    struct bx_error *err)
{
	char **names = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	DIR *dir;
	int fd, rv = -1;

	if ((fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return bx_fail(err, "audit: cannot open the directory: %s",
		    strerror(errno));
	if ((dir = fdopendir(fd)) == NULL) {
		close(fd);
		return bx_fail(err, "audit: cannot read the directory: %s",
		    strerror(errno));
	}
	for (;;) {
		errno = 0;
		if ((de = readdir(dir)) == NULL)
			break;
		if (de->d_name[0] == '.' || !has_suffix(de->d_name, ".jsonl"))
			continue;
		if (add_name(dirfd, de->d_name, &names, &n, &cap, err) == -1)
			goto out;
	}
	if (errno != 0) {
		bx_fail(err, "audit: cannot read the directory: %s",
		    strerror(errno));
		goto out;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), by_name);
	*ret_names = names;
	*ret_n = n;
	names = NULL;
	rv = 0;
out:
	bx_audit_names_free(names, n);
	closedir(dir);
	return rv;
}

bool
bx_audit_name_is_date(const char *name)
{
	char buf[BX_TIME_LEN + 1];
	int64_t ms;

	if (strlen(name) != 16 || strcmp(name + 10, ".jsonl") != 0)
		return false;
	memcpy(buf, name, 10);
	memcpy(buf + 10, "T00:00:00.000Z", 15);
	return bx_time_parse(buf, &ms, NULL) == 0;
}

int
bx_audit_map(int dirfd, const char *name, const char **ret_buf,
    size_t *ret_len, struct bx_error *err)
{
	struct bx_error rf;
	size_t size;
	void *p;
	int fd;

	/* Mapped, not read: a day's file may be large and is only scanned. */
	if (bx_readfile_open(dirfd, name, name, O_NOFOLLOW, 0, &fd, &size,
	    NULL, &rf) == -1)
		return bx_fail(err, "audit: %s", rf.msg);
	if (size == 0) {
		close(fd);
		*ret_buf = NULL;
		*ret_len = 0;
		return 0;
	}
	p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return bx_fail(err, "audit: cannot map %s: %s", name,
		    strerror(errno));
	(void)madvise(p, size, MADV_SEQUENTIAL);
	*ret_buf = p;
	*ret_len = size;
	return 0;
}

void
bx_audit_unmap(const char *buf, size_t len)
{
	if (buf != NULL && len > 0)
		munmap((void *)(uintptr_t)buf, len);
}

size_t
bx_audit_feed_lines(struct bx_chain *c, const char *buf, size_t len,
    bool whole)
{
	const char *p = buf, *end = buf + len, *nl;

	while (p < end) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL) {
			if (!whole)
				break;
			bx_chain_line(c, p, (size_t)(end - p), true, false);
			return len;
		}
		bx_chain_line(c, p, (size_t)(nl - p), whole && nl + 1 == end,
		    true);
		p = nl + 1;
	}
	return (size_t)(p - buf);
}

void
bx_audit_feed(struct bx_chain *c, const char *name, const char *buf,
    size_t len)
{
	bx_chain_file(c, name);
	bx_audit_feed_lines(c, buf, len, true);
}
