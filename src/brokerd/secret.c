/*
 * secret.c: finding and reading one secret file, checking where it lives
 * (the directory's and the file's type, owner and mode), and what a read
 * secret answers (see secret.h). The decoding of its TOML is
 * secret_decode.c's.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/secret_impl.h"
#include "proto/base64.h"
#include "proto/readfile.h"
#include "proto/wipe.h"

/* Where a secret is: the paths for messages, the directory once open. */
struct place {
	const struct secret_sink *p_sink;
	char	 p_dir[4096];		/* <config_dir>/secrets */
	char	 p_file[4096];		/* <dir>/<name>.toml */
	char	 p_entry[BX_ID_MAX + 6];	/* <name>.toml */
};

/* Reports a problem; -1 when the sink ran out of memory, else 1. */
static int
report(const struct place *pl, const char *file, struct bx_error *err,
    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int
report(const struct place *pl, const char *file, struct bx_error *err,
    const char *fmt, ...)
{
	char text[BX_ERROR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (pl->p_sink->ss_problem(pl->p_sink->ss_ctx, file, 0, text) == -1)
		return bx_fail(err, "%s: out of memory", file);
	return 1;
}

/*
 * Owner and mode of an open file or directory against what a secret's
 * must be. Returns 0 when they are right, else as report().
 */
static int
check_owner_mode(const struct place *pl, int fd, const char *shown,
    const char *what, mode_t want, struct bx_error *err)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		return report(pl, shown, err, "the %s cannot be examined: %s",
		    what, strerror(errno));
	if (st.st_uid != geteuid())
		return report(pl, shown, err, "the %s is owned by uid %lu, not "
		    "by brokerd's uid %lu; it is not used", what,
		    (unsigned long)st.st_uid, (unsigned long)geteuid());
	if ((st.st_mode & 07777) != want)
		return report(pl, shown, err, "the %s has mode %04o, not %04o; "
		    "it is not used (chmod %04o %s)", what,
		    (unsigned)(st.st_mode & 07777), (unsigned)want,
		    (unsigned)want, shown);
	return 0;
}

/*
 * Opens the secrets directory under config_dir into *ret_fd, refusing a
 * symbolic link, what is not a directory, and a wrong owner or mode.
 * Returns 0, or as report().
 */
static int
open_dir(const struct place *pl, const char *config_dir, int *ret_fd,
    struct bx_error *err)
{
	struct stat st;
	int cfd, dfd, saved, rc;

	if ((cfd = open(config_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return report(pl, config_dir, err, "the directory of "
		    "brokerd.toml cannot be opened: %s", strerror(errno));
	dfd = openat(cfd, SECRET_DIR, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	saved = errno;
	if (dfd == -1 && saved == ENOENT)
		rc = report(pl, pl->p_file, err, "there is no secrets "
		    "directory, so no secret file");
	else if (dfd == -1 && (saved == ELOOP || saved == ENOTDIR) &&
	    fstatat(cfd, SECRET_DIR, &st, AT_SYMLINK_NOFOLLOW) == 0)
		rc = report(pl, pl->p_dir, err, "the secrets directory is %s; "
		    "it must be a directory of mode %04o", S_ISLNK(st.st_mode) ?
		    "a symbolic link" : "not a directory", SECRET_DIR_MODE);
	else if (dfd == -1)
		rc = report(pl, pl->p_dir, err, "the secrets directory cannot "
		    "be opened: %s", strerror(saved));
	else
		rc = check_owner_mode(pl, dfd, pl->p_dir, "secrets directory",
		    SECRET_DIR_MODE, err);
	close(cfd);
	if (rc != 0) {
		if (dfd != -1)
			close(dfd);
		return rc;
	}
	*ret_fd = dfd;
	return 0;
}

/* A readfile failure as a problem, in words the owner can act on. */
static int
open_problem(const struct place *pl, int dfd, enum bx_readfile_why why,
    int saved, struct bx_error *err)
{
	struct stat st;

	if (why == BX_READFILE_NOMEM)
		return bx_fail(err, "%s: out of memory", pl->p_file);
	if (why == BX_READFILE_OPEN && saved == ENOENT)
		return report(pl, pl->p_file, err, "there is no such secret "
		    "file");
	if (why == BX_READFILE_OPEN && saved == ELOOP &&
	    fstatat(dfd, pl->p_entry, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISLNK(st.st_mode))
		return report(pl, pl->p_file, err, "the secret file is a "
		    "symbolic link; it must be a regular file of mode %04o",
		    SECRET_FILE_MODE);
	if (why == BX_READFILE_TOO_LARGE)
		return report(pl, pl->p_file, err, "the secret file is larger "
		    "than %d bytes", SECRET_FILE_MAX);
	if (why == BX_READFILE_DIRECTORY || why == BX_READFILE_NOT_REGULAR)
		return report(pl, pl->p_file, err, "the secret file is not a "
		    "regular file");
	return report(pl, pl->p_file, err, "the secret file cannot be read: "
	    "%s", strerror(saved));
}

/*
 * Reads the secret file of the open directory dfd into *ret_buf, refusing
 * a symbolic link, what is not a regular file, and a wrong owner or mode.
 * Returns 0, or as report().
 */
static int
read_file(const struct place *pl, int dfd, char **ret_buf, size_t *ret_len,
    struct bx_error *err)
{
	enum bx_readfile_why why = 0;
	struct bx_error rf;
	size_t size;
	int fd, rc;

	if (bx_readfile_open(dfd, pl->p_entry, pl->p_file, O_NOFOLLOW,
	    SECRET_FILE_MAX, &fd, &size, &why, &rf) == -1)
		return open_problem(pl, dfd, why, errno, err);
	if ((rc = check_owner_mode(pl, fd, pl->p_file, "secret file",
	    SECRET_FILE_MODE, err)) != 0) {
		close(fd);
		return rc;
	}
	rc = bx_readfile_fd(fd, pl->p_file, SECRET_FILE_MAX, ret_buf, ret_len,
	    &why, &rf);
	if (rc == -1)
		rc = open_problem(pl, dfd, why, errno, err);
	close(fd);
	return rc;
}

/* What is sent, built once: "Bearer v", "v", or "Basic " base64(u:v). */
static int
make_header_value(struct secret *s, struct bx_error *err)
{
	size_t ulen, plain_len, len;
	char *plain, *out;

	if (s->s_kind == SECRET_BEARER || s->s_kind == SECRET_HEADER) {
		len = s->s_value_len + (s->s_kind == SECRET_BEARER ? 7 : 0);
		if ((out = malloc(len + 1)) == NULL)
			return bx_fail(err, "out of memory");
		snprintf(out, len + 1, "%s%s", s->s_kind == SECRET_BEARER ?
		    "Bearer " : "", s->s_value);
	} else {
		ulen = strlen(s->s_user);
		plain_len = ulen + 1 + s->s_value_len;
		if ((plain = malloc(plain_len + 1)) == NULL)
			return bx_fail(err, "out of memory");
		len = 6 + BX_BASE64_LEN(plain_len);
		if ((out = malloc(len + 1)) == NULL) {
			free(plain);
			return bx_fail(err, "out of memory");
		}
		snprintf(plain, plain_len + 1, "%s:%s", s->s_user, s->s_value);
		memcpy(out, "Basic ", 6);
		bx_base64_encode(plain, plain_len, out + 6);
		bx_wipe_free(plain, plain_len);
	}
	s->s_header_value = out;
	s->s_header_value_len = len;
	return 0;
}

/* Fills the paths of pl; a name that is not a secret name is a problem. */
static int
place_init(struct place *pl, const struct secret_sink *sink,
    const char *config_dir, const char *name, struct bx_error *err)
{
	struct bx_error nerr;
	size_t clen = strlen(config_dir);
	const char *sep = clen > 0 && config_dir[clen - 1] == '/' ? "" : "/";

	memset(pl, 0, sizeof(*pl));
	pl->p_sink = sink;
	if ((size_t)snprintf(pl->p_dir, sizeof(pl->p_dir), "%s%s%s",
	    config_dir, sep, SECRET_DIR) >= sizeof(pl->p_dir))
		return report(pl, config_dir, err, "the path of the secrets "
		    "directory is too long");
	if (bx_secret_name_check(name, &nerr) == -1)
		return report(pl, pl->p_dir, err, "\"%s\" is not a secret "
		    "name: %s", name, nerr.msg);
	snprintf(pl->p_entry, sizeof(pl->p_entry), "%s.toml", name);
	if ((size_t)snprintf(pl->p_file, sizeof(pl->p_file), "%s/%s",
	    pl->p_dir, pl->p_entry) >= sizeof(pl->p_file))
		return report(pl, pl->p_dir, err, "the path of the secret "
		    "file is too long");
	return 0;
}

/*
 * The secret of len bytes of buf, read from file, into *ret: decoded, and
 * what is sent built. Returns as secret_read().
 */
static int
build(const char *file, const char *name, const char *buf, size_t len,
    const struct secret_sink *sink, struct secret **ret,
    struct bx_error *err)
{
	struct secret *s;
	int problems = 0, rc;

	if ((s = calloc(1, sizeof(*s))) == NULL)
		return bx_fail(err, "out of memory");
	memcpy(s->s_name, name, strlen(name) + 1);
	if ((s->s_file = strdup(file)) == NULL) {
		rc = bx_fail(err, "out of memory");
		goto out;
	}
	if ((rc = secret_decode(file, buf, len, sink, s, &problems,
	    err)) == -1)
		goto out;
	if (problems > 0) {
		rc = 1;
		goto out;
	}
	if ((rc = make_header_value(s, err)) == -1)
		goto out;
	*ret = s;
	s = NULL;
out:
	secret_free(s);
	return rc;
}

int
secret_read(const char *config_dir, const char *name,
    const struct secret_sink *sink, struct secret **ret,
    struct bx_error *err)
{
	struct place pl;
	char *buf = NULL;
	size_t len = 0;
	int dfd = -1, rc;

	if ((rc = place_init(&pl, sink, config_dir, name, err)) != 0)
		return rc;
	if ((rc = open_dir(&pl, config_dir, &dfd, err)) != 0)
		return rc;
	rc = read_file(&pl, dfd, &buf, &len, err);
	close(dfd);
	if (rc != 0)
		return rc;
	rc = build(pl.p_file, name, buf, len, sink, ret, err);
	bx_wipe_free(buf, len);
	return rc;
}

int
secret_parse(const char *file, const char *name, const char *buf,
    size_t len, const struct secret_sink *sink, struct secret **ret,
    struct bx_error *err)
{
	struct place pl = { .p_sink = sink };
	struct bx_error nerr;

	if (bx_secret_name_check(name, &nerr) == -1)
		return report(&pl, file, err, "\"%s\" is not a secret name: %s",
		    name, nerr.msg);
	if (len > SECRET_FILE_MAX)
		return report(&pl, file, err, "the secret file is larger than "
		    "%d bytes", SECRET_FILE_MAX);
	return build(file, name, buf, len, sink, ret, err);
}

int
secret_dir_check(const char *config_dir, const struct secret_sink *sink,
    struct bx_error *err)
{
	struct place pl;
	int dfd, rc;

	/* Any name will do: only the directory is looked at. */
	if ((rc = place_init(&pl, sink, config_dir, "x", err)) != 0)
		return rc;
	snprintf(pl.p_file, sizeof(pl.p_file), "%s", pl.p_dir);
	if ((rc = open_dir(&pl, config_dir, &dfd, err)) != 0)
		return rc;
	close(dfd);
	return 0;
}

/* Keeps the first problem and counts the rest, for secret_load(). */
struct first_problem {
	char	fp_text[BX_ERROR_MAX];
	int	fp_count;
};

static int
keep_first(void *ctx, const char *file, int64_t line, const char *problem)
{
	struct first_problem *fp = ctx;

	if (fp->fp_count++ > 0)
		return 0;
	if (line > 0)
		snprintf(fp->fp_text, sizeof(fp->fp_text), "%s:%lld: %s", file,
		    (long long)line, problem);
	else
		snprintf(fp->fp_text, sizeof(fp->fp_text), "%s: %s", file,
		    problem);
	return 0;
}

int
secret_load(const char *config_dir, const char *name, struct secret **ret,
    struct bx_error *err)
{
	struct first_problem fp = { .fp_count = 0 };
	struct secret_sink sink = { keep_first, &fp };
	int rc;

	if ((rc = secret_read(config_dir, name, &sink, ret, err)) != 1)
		return rc;
	if (fp.fp_count == 1)
		return bx_fail(err, "%s", fp.fp_text);
	return bx_fail(err, "%s (and %d more problem%s)", fp.fp_text,
	    fp.fp_count - 1, fp.fp_count == 2 ? "" : "s");
}

void
secret_free(struct secret *s)
{
	if (s == NULL)
		return;
	bx_wipe_free(s->s_value, s->s_value_len);
	bx_wipe_free(s->s_header_value, s->s_header_value_len);
	if (s->s_user != NULL)
		bx_wipe_free(s->s_user, strlen(s->s_user));
	free(s->s_header);
	free(s->s_hosts);
	free(s->s_file);
	explicit_bzero(s, sizeof(*s));
	free(s);
}

const char *
secret_name(const struct secret *s)
{
	return s->s_name;
}

const char *
secret_file(const struct secret *s)
{
	return s->s_file;
}

enum secret_kind
secret_kind(const struct secret *s)
{
	return s->s_kind;
}

size_t
secret_nhosts(const struct secret *s)
{
	return s->s_nhosts;
}

const char *
secret_host(const struct secret *s, size_t i)
{
	return i < s->s_nhosts ? s->s_hosts[i] : NULL;
}

bool
secret_has_host(const struct secret *s, const char *host)
{
	size_t i;

	for (i = 0; i < s->s_nhosts; i++)
		if (strcmp(s->s_hosts[i], host) == 0)
			return true;
	return false;
}

int64_t
secret_hosts_line(const struct secret *s)
{
	return s->s_hosts_line;
}

const char *
secret_header_name(const struct secret *s)
{
	return s->s_kind == SECRET_HEADER ? s->s_header : "Authorization";
}

const char *
secret_header_value(const struct secret *s)
{
	return s->s_header_value;
}

const char *
secret_value(const struct secret *s)
{
	return s->s_value;
}
