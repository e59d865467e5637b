/*
 * bridge_file.c: the bridge's state directory's files, written atomically
 * and read back (bridge_file.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxbridge/bridge_file.h"
#include "proto/readfile.h"
#include "proto/writefile.h"

int
bridge_file_write(const char *dir, const char *name, const json_t *json,
    mode_t mode, struct bx_error *err)
{
	char path[PATH_MAX], tmp[PATH_MAX];
	char *text = NULL;
	int fd = -1, n, rc = -1;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return bx_fail(err, "the path %s/%s is too long", dir, name);
	n = snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", dir, name);
	if (n < 0 || (size_t)n >= sizeof(tmp))
		return bx_fail(err, "the path %s/.%s.tmp is too long", dir,
		    name);
	if ((text = json_dumps(json, JSON_COMPACT)) == NULL)
		return bx_fail(err, "out of memory writing %s", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    mode);
	if (fd == -1) {
		bx_fail(err, "cannot create %s: %s", tmp, strerror(errno));
		goto out;
	}
	/* The mode asked for, whatever the umask took away. */
	if (fchmod(fd, mode) == -1 ||
	    bx_write_all(fd, text, strlen(text)) == -1 ||
	    bx_write_all(fd, "\n", 1) == -1 || fsync(fd) == -1) {
		bx_fail(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	if (close(fd) == -1) {
		fd = -1;
		bx_fail(err, "cannot write %s: %s", tmp, strerror(errno));
		goto out;
	}
	fd = -1;
	if (rename(tmp, path) == -1) {
		bx_fail(err, "cannot rename %s to %s: %s", tmp, path,
		    strerror(errno));
		goto out;
	}
	if (bx_fsync_dir(dir) == -1) {
		bx_fail(err, "cannot sync the directory %s: %s", dir,
		    strerror(errno));
		goto out;
	}
	rc = 0;
out:
	if (fd != -1) {
		close(fd);
		unlink(tmp);
	}
	free(text);
	return rc;
}

int
bridge_file_read(const char *dir, const char *name, json_t **ret,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	json_error_t jerr;
	char path[PATH_MAX];
	char *buf = NULL;
	size_t len;
	json_t *json;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return bx_fail(err, "the path %s/%s is too long", dir, name);
	if (bx_readfile(path, BRIDGE_FILE_MAX, &buf, &len, &why, err) == -1) {
		if (why == BX_READFILE_OPEN && errno == ENOENT) {
			*ret = NULL;
			return 1;
		}
		return -1;
	}
	json = json_loadb(buf, len, JSON_REJECT_DUPLICATES, &jerr);
	free(buf);
	if (json == NULL)
		return bx_fail(err, "%s, line %d: not JSON: %s", path,
		    jerr.line, jerr.text);
	*ret = json;
	return 0;
}
