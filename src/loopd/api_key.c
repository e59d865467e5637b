/*
 * api_key.c: reading [model] api_key_file. The mode is checked on the
 * open descriptor, so the file checked is the file read.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/readfile.h"
#include "loopd/api_key.h"

#define API_KEY_RUNBOOK	"see docs/runbook.md#model-refused"

void
api_key_free(char *key)
{
	if (key == NULL)
		return;
	explicit_bzero(key, strlen(key));
	free(key);
}

/* The key is buf up to one final newline: visible ASCII only. */
static int
check_key(const char *path, char *buf, size_t len, struct bx_error *err)
{
	size_t i;

	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	if (len > 0 && buf[len - 1] == '\r')
		buf[--len] = '\0';
	if (len == 0)
		return bx_fail(err, "[model] api_key_file %s is empty; "
		    API_KEY_RUNBOOK, path);
	for (i = 0; i < len; i++)
		if (buf[i] < '!' || buf[i] > '~')
			return bx_fail(err, "[model] api_key_file %s must hold "
			    "the key alone, on one line of printable ASCII "
			    "without spaces (byte %zu is not); "
			    API_KEY_RUNBOOK, path, i + 1);
	return 0;
}

int
api_key_load(const char *path, char **ret, struct bx_error *err)
{
	enum bx_readfile_why why;
	struct stat st;
	size_t size, len = 0;
	char *buf = NULL;
	int fd = -1, r = -1;

	if (bx_readfile_open(AT_FDCWD, path, path, 0, API_KEY_FILE_MAX, &fd,
	    &size, &why, err) == -1) {
		if (why == BX_READFILE_DIRECTORY)
			return bx_fail(err, "[model] api_key_file %s is a "
			    "directory, not a file holding the key; "
			    API_KEY_RUNBOOK, path);
		return bx_error_prefix(err, "[model] api_key_file");
	}
	if (fstat(fd, &st) == -1) {
		bx_fail(err, "[model] api_key_file %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if ((st.st_mode & (S_IRWXG | S_IRWXO)) != 0) {
		bx_fail(err, "[model] api_key_file %s has mode %04o: only its "
		    "owner may read it (chmod 600 %s); " API_KEY_RUNBOOK, path,
		    (unsigned)(st.st_mode & 07777), path);
		goto out;
	}
	if (bx_readfile_fd(fd, path, API_KEY_FILE_MAX, &buf, &len, &why,
	    err) == -1)
		goto out;
	if (check_key(path, buf, len, err) == -1)
		goto out;
	*ret = buf;
	buf = NULL;
	r = 0;
out:
	/* All of it: a NUL inside would stop api_key_free's strlen short. */
	if (buf != NULL)
		explicit_bzero(buf, len);
	free(buf);
	close(fd);
	return r;
}

int
api_key_read_fd(int fd, char **ret, struct bx_error *err)
{
	char *buf;
	size_t len = 0;
	ssize_t n;

	if ((buf = calloc(1, API_KEY_FILE_MAX + 1)) == NULL)
		return bx_fail(err, "out of memory");
	while (len < API_KEY_FILE_MAX) {
		n = read(fd, buf + len, API_KEY_FILE_MAX - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
	}
	if (len == 0 || len == API_KEY_FILE_MAX ||
	    check_key("the launcher's key", buf, len, err) == -1) {
		if (len == 0 || len == API_KEY_FILE_MAX)
			bx_fail(err, "the model's key did not come whole from "
			    "loopd's launcher");
		explicit_bzero(buf, len);
		free(buf);
		return -1;
	}
	*ret = buf;
	return 0;
}
