/*
 * session_log.c: reading and appending session logs. Each step's lines go
 * out in a single write followed by fsync, so a crash leaves at most a
 * torn last line, which the next load reports rather than replays.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/json.h"
#include "loopd/session_log.h"
#include "proto/readfile.h"
#include "proto/writefile.h"

#define SESSION_LOG_RUNBOOK	"see docs/runbook.md#session-log-damaged"

/* The log's path into buf (PATH_MAX bytes); -1 if it would not fit. */
static int
log_path(const char *home, const char *id, char *buf, struct bx_error *err)
{
	int n = snprintf(buf, PATH_MAX, "%s/sessions/%s.jsonl", home, id);

	if (n < 0 || n >= PATH_MAX)
		return bx_fail(err, "the home (%zu bytes) is too long for the "
		    "session log of %s", strlen(home), id);
	return 0;
}

/* A path too long for a log is "absent": loading it then says why. */
bool
session_log_exists(const char *home, const char *id)
{
	char path[PATH_MAX];
	struct stat st;

	if (log_path(home, id, path, NULL) == -1)
		return false;
	return lstat(path, &st) == 0;
}

static int
damaged(struct bx_error *err, const char *path, size_t line, const char *why)
{
	if (line == 0)
		return bx_fail(err, "the session log %s cannot be read (%s): "
		    "this session is stopped, others go on; "
		    SESSION_LOG_RUNBOOK, path, why);
	return bx_fail(err, "the session log %s is damaged at line %zu (%s): "
	    "this session is stopped, others go on; " SESSION_LOG_RUNBOOK,
	    path, line, why);
}

static int
check_message(const json_t *msg, struct bx_error *err)
{
	const char *role;

	if (bx_json_string(msg, "role", &role, err) == -1)
		return -1;
	if (strcmp(role, "user") != 0 && strcmp(role, "assistant") != 0 &&
	    strcmp(role, "tool") != 0)
		return bx_fail(err, "role \"%s\" is not user, assistant or tool",
		    role);
	return 0;
}

static int
parse_lines(const char *path, const char *buf, size_t len, json_t *out,
    struct bx_error *err)
{
	struct bx_error why;
	const char *p = buf, *nl;
	size_t line = 0;
	json_t *msg;

	while (p < buf + len) {
		line++;
		nl = memchr(p, '\n', (size_t)(buf + len - p));
		if (nl == NULL)
			return damaged(err, path, line, "the last line has no "
			    "newline: loopd stopped while writing it");
		if (bx_json_parse(p, (size_t)(nl - p), &msg, &why) == -1)
			return damaged(err, path, line, why.msg);
		if (check_message(msg, &why) == -1) {
			json_decref(msg);
			return damaged(err, path, line, why.msg);
		}
		if (json_array_append_new(out, msg) == -1)
			return damaged(err, path, line, "out of memory");
		p = nl + 1;
	}
	return 0;
}

/*
 * The whole log at path: 0, 1 when there is none (a session with no
 * history), or -1.
 */
static int
read_file(const char *path, char **ret, size_t *ret_len,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	struct bx_error rf;

	if (bx_readfile(path, SESSION_LOG_MAX, ret, ret_len, &why, &rf) == 0)
		return 0;
	switch (why) {
	case BX_READFILE_TOO_LARGE:
		return bx_fail(err, "the session log %s is larger than %d bytes:"
		    " start a new session", path, SESSION_LOG_MAX);
	case BX_READFILE_NOMEM:
		return bx_fail(err, "%s: out of memory", path);
	case BX_READFILE_DIRECTORY:
	case BX_READFILE_NOT_REGULAR:
		return damaged(err, path, 0, "it is not a regular file");
	case BX_READFILE_OPEN:
		if (errno == ENOENT)
			return 1;
		/* FALLTHROUGH */
	default:
		return damaged(err, path, 0, strerror(errno));
	}
}

int
session_log_load(const char *home, const char *id, json_t **ret,
    struct bx_error *err)
{
	char path[PATH_MAX], *buf = NULL;
	json_t *out;
	size_t len = 0;
	int rc, r = -1;

	if (log_path(home, id, path, err) == -1)
		return -1;
	if ((out = json_array()) == NULL)
		return bx_fail(err, "out of memory");
	if ((rc = read_file(path, &buf, &len, err)) == -1 ||
	    (rc == 0 && parse_lines(path, buf, len, out, err) == -1))
		goto out;
	*ret = out;
	out = NULL;
	r = 0;
out:
	free(buf);
	json_decref(out);
	return r;
}

/* Opens the log for appending, creating it (and its directory) if need be. */
static int
open_log(const char *home, const char *path, struct bx_error *err)
{
	char dir[PATH_MAX];
	int fd;

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (fd != -1 || errno != ENOENT)
		goto done;
	snprintf(dir, sizeof(dir), "%s/sessions", home);
	if (bx_mkdir_private(dir, err) == -1)
		return -1;
	/*
	 * Group bits: in the jail, sessions/ has a default ACL and the mode's
	 * group bits become the ACL's mask, so the owner's entry reads the
	 * log; without one, loopd's umask 077 leaves 0600.
	 */
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_CLOEXEC |
	    O_NOCTTY, 0660);
	if (fd == -1 && errno == EEXIST)
		fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	else if (fd != -1 && bx_fsync_dir(dir) == -1) {
		bx_fail(err, "fsync %s: %s", dir, strerror(errno));
		close(fd);
		return -1;
	}
done:
	if (fd == -1)
		return bx_fail(err, "%s: %s", path, strerror(errno));
	return fd;
}

/* The lines for messages[from..], concatenated; NULL on failure. */
static char *
render(const json_t *messages, size_t from, size_t *ret_len,
    struct bx_error *err)
{
	char *buf = NULL, *line, *grown;
	size_t len = 0, n, i;

	for (i = from; i < json_array_size(messages); i++) {
		line = bx_json_encode_line(json_array_get(messages, i), &n, err);
		if (line == NULL)
			goto fail;
		if ((grown = realloc(buf, len + n + 1)) == NULL) {
			free(line);
			bx_fail(err, "out of memory");
			goto fail;
		}
		buf = grown;
		memcpy(buf + len, line, n);
		len += n;
		free(line);
	}
	*ret_len = len;
	return buf;
fail:
	free(buf);
	return NULL;
}

/* Appends buf to the open log at path and syncs it. */
static int
write_synced(int fd, const char *path, const char *buf, size_t len,
    struct bx_error *err)
{
	if (bx_write_all(fd, buf, len) == -1)
		return bx_fail(err, "write %s: %s", path, strerror(errno));
	if (fsync(fd) == -1)
		return bx_fail(err, "fsync %s: %s", path, strerror(errno));
	return 0;
}

int
session_log_append(const char *home, const char *id, const json_t *messages,
    size_t from, struct bx_error *err)
{
	char path[PATH_MAX], *buf;
	size_t len;
	int fd, r;

	if (from >= json_array_size(messages))
		return 0;
	if (log_path(home, id, path, err) == -1)
		return -1;
	if ((buf = render(messages, from, &len, err)) == NULL)
		return -1;
	if ((fd = open_log(home, path, err)) == -1) {
		free(buf);
		return -1;
	}
	r = write_synced(fd, path, buf, len, err);
	close(fd);
	free(buf);
	return r;
}

int
session_log_size(const char *home, const char *id, off_t *ret,
    struct bx_error *err)
{
	char path[PATH_MAX];
	struct stat st;

	if (log_path(home, id, path, err) == -1)
		return -1;
	if (lstat(path, &st) == -1) {
		if (errno != ENOENT)
			return damaged(err, path, 0, strerror(errno));
		st.st_size = 0;
	}
	*ret = st.st_size;
	return 0;
}

int
session_log_truncate(const char *home, const char *id, off_t size,
    struct bx_error *err)
{
	char path[PATH_MAX];
	int fd, r = 0;

	if (log_path(home, id, path, err) == -1)
		return -1;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW);
	if (fd == -1 && errno == ENOENT && size == 0)
		return 0;
	if (fd == -1)
		return bx_fail(err, "%s: %s", path, strerror(errno));
	if (ftruncate(fd, size) == -1 || fsync(fd) == -1)
		r = bx_fail(err, "cutting %s back to %lld bytes: %s", path,
		    (long long)size, strerror(errno));
	close(fd);
	return r;
}
