/*
 * secret.c: a secret's file, its pipe into the jail, and its reading
 * there (secret.h). The mode is checked on the open descriptor, so the
 * file checked is the file read.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/readfile.h"
#include "proto/writefile.h"
#include "jailrun/secret.h"

void
secret_free(char *secret)
{
	if (secret == NULL)
		return;
	explicit_bzero(secret, strlen(secret));
	free(secret);
}

/*
 * The secret is buf up to one final newline: visible ASCII only. where
 * names it: its setting and file, or the pipe.
 */
static int
check_secret(const struct secret_kind *k, const char *where, char *buf,
    size_t len, struct bx_error *err)
{
	size_t i;

	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '\r')
		buf[--len] = '\0';
	if (len == 0)
		return bx_fail(err, "%s is empty; %s", where, k->sk_runbook);
	for (i = 0; i < len; i++)
		if (buf[i] < '!' || buf[i] > '~')
			return bx_fail(err, "%s must hold the %s alone, on one "
			    "line of printable ASCII without spaces (byte %zu "
			    "is not); %s", where, k->sk_noun, i + 1,
			    k->sk_runbook);
	return 0;
}

int
secret_load(const struct secret_kind *k, const char *path, char **ret,
    struct bx_error *err)
{
	char where[BX_ERROR_MAX];
	enum bx_readfile_why why;
	struct stat st;
	size_t size, len = 0;
	char *buf = NULL;
	int fd = -1, r = -1;

	snprintf(where, sizeof(where), "%s %s", k->sk_setting, path);
	if (bx_readfile_open(AT_FDCWD, path, path, 0, SECRET_FILE_MAX, &fd,
	    &size, &why, err) == -1) {
		if (why == BX_READFILE_DIRECTORY)
			return bx_fail(err, "%s is a directory, not a file "
			    "holding the %s; %s", where, k->sk_noun,
			    k->sk_runbook);
		return bx_error_prefix(err, "%s", k->sk_setting);
	}
	if (fstat(fd, &st) == -1) {
		bx_fail(err, "%s: %s", where, strerror(errno));
		goto out;
	}
	/* Another's file could be swapped under us by them, and read by them. */
	if (st.st_uid != geteuid()) {
		bx_fail(err, "%s belongs to uid %u, not to you (uid %u): "
		    "only a file of your own is trusted with the %s (chown "
		    "%u %s); %s", where, (unsigned)st.st_uid,
		    (unsigned)geteuid(), k->sk_noun, (unsigned)geteuid(), path,
		    k->sk_runbook);
		goto out;
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		bx_fail(err, "%s has mode %04o: only its owner may read it "
		    "(chmod 600 %s); %s", where, (unsigned)(st.st_mode & 07777),
		    path, k->sk_runbook);
		goto out;
	}
	if (bx_readfile_fd(fd, path, SECRET_FILE_MAX, &buf, &len, &why,
	    err) == -1)
		goto out;
	if (check_secret(k, where, buf, len, err) == -1)
		goto out;
	*ret = buf;
	buf = NULL;
	r = 0;
out:
	/* All of it: a NUL inside would stop secret_free's strlen short. */
	if (buf != NULL)
		explicit_bzero(buf, len);
	free(buf);
	close(fd);
	return r;
}

/* The pipe holds the whole secret: it is far below a pipe's capacity. */
int
secret_pass(const char *secret, int *ret_fd, struct bx_error *err)
{
	int fds[2];

	if (pipe2(fds, O_CLOEXEC) == -1)
		return bx_fail(err, "pipe: %s", strerror(errno));
	if (bx_write_all(fds[1], secret, strlen(secret)) == -1) {
		bx_fail(err, "cannot pass the secret into the jail: %s",
		    strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return -1;
	}
	close(fds[1]);
	*ret_fd = fds[0];
	return 0;
}

int
secret_read_fd(const struct secret_kind *k, int fd, char **ret,
    struct bx_error *err)
{
	char where[BX_ERROR_MAX], *buf;
	size_t len = 0;
	ssize_t n;

	if ((buf = calloc(1, SECRET_FILE_MAX + 1)) == NULL)
		return bx_fail(err, "out of memory");
	while (len < SECRET_FILE_MAX) {
		n = read(fd, buf + len, SECRET_FILE_MAX - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	snprintf(where, sizeof(where), "%s from %s", k->sk_what, k->sk_from);
	if (len == 0 || len == SECRET_FILE_MAX ||
	    check_secret(k, where, buf, len, err) == -1) {
		if (len == 0 || len == SECRET_FILE_MAX)
			bx_fail(err, "%s did not come whole from %s",
			    k->sk_what, k->sk_from);
		explicit_bzero(buf, len);
		free(buf);
		return -1;
	}
	*ret = buf;
	return 0;
}
