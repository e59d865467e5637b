/*
 * audit.c: the audit writer at run time (audit.h): one record per line,
 * a new file per UTC date, and the repair of whatever a failed write or
 * sync left behind. audit_append and its group commit, which lets one
 * fdatasync cover the records of several appenders, are in audit_group.c;
 * the records the writer writes itself are each synced here before it goes
 * on. The durability rules it
 * follows are in shared/notes/audit-durability.md: a short write is a
 * failure and is never continued into the same line, a failed sync is
 * never retried, and before the next record the file's tail is read back
 * instead of assumed.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "brokerd/audit_impl.h"
#include "proto/audit_files.h"
#include "proto/chain.h"
#include "proto/clock.h"
#include "proto/sha256.h"

#define UNAVAILABLE	"see docs/runbook.md#audit-unavailable"

static ssize_t
sys_write(void *ctx, int fd, const void *buf, size_t len)
{
	(void)ctx;
	return write(fd, buf, len);
}

static int
sys_fdatasync(void *ctx, int fd)
{
	(void)ctx;
	return fdatasync(fd);
}

static int
sys_fsync(void *ctx, int fd)
{
	(void)ctx;
	return fsync(fd);
}

/* Allocates without growing the file, so no NULs ever appear at its end. */
static int
sys_fallocate(void *ctx, int fd, off_t off, off_t len)
{
	(void)ctx;
	return fallocate(fd, FALLOC_FL_KEEP_SIZE, off, len);
}

static int64_t
sys_now(void *ctx)
{
	(void)ctx;
	return bx_clock_wall_ms();
}

const struct audit_io audit_io_system = {
	sys_write, sys_fdatasync, sys_fsync, sys_fallocate, NULL,
};

const struct audit_clock audit_clock_system = { sys_now, NULL };

int64_t
audit_now(const struct audit *a)
{
	return a->a_clock->now_ms(a->a_clock->ctx);
}

void
audit_notice_add(struct audit *a, const char *fmt, ...)
{
	va_list ap;

	if (a->a_nnotices == AUDIT_NOTICES_MAX)
		return;
	va_start(ap, fmt);
	vsnprintf(a->a_notices[a->a_nnotices++], BX_ERROR_MAX, fmt, ap);
	va_end(ap);
}

size_t
audit_notice_count(const struct audit *a)
{
	return a->a_nnotices;
}

const char *
audit_notice(const struct audit *a, size_t i)
{
	return i < a->a_nnotices ? a->a_notices[i] : NULL;
}

int
audit_use_file(struct audit *a, const char *name, struct bx_error *err)
{
	struct stat st;
	int fd;

	fd = openat(a->a_dirfd, name, O_RDWR | O_APPEND | O_CLOEXEC |
	    O_NOFOLLOW);
	if (fd == -1)
		return bx_fail(err, "audit: cannot open %s/%s: %s; "
		    UNAVAILABLE, a->a_dir, name, strerror(errno));
	if (fstat(fd, &st) == -1) {
		bx_fail(err, "audit: cannot stat %s/%s: %s; " UNAVAILABLE,
		    a->a_dir, name, strerror(errno));
		close(fd);
		return -1;
	}
	if (a->a_fd != -1)
		close(a->a_fd);
	a->a_fd = fd;
	snprintf(a->a_name, sizeof(a->a_name), "%s", name);
	a->a_good = st.st_size;
	a->a_reserved = 0;
	return 0;
}

/*
 * Keeps room for this line and a Recovery after it. Running out of space
 * here fails the record before anything is written. A repair (must is
 * false) goes ahead anyway: it writes into the room kept before.
 */
static int
reserve(struct audit *a, size_t len, bool must, struct bx_error *err)
{
	off_t want = a->a_good + (off_t)len + AUDIT_RESERVE;

	if (a->a_no_reserve || want <= a->a_reserved)
		return 0;
	if (a->a_io->fallocate(a->a_io->ctx, a->a_fd, a->a_good,
	    want - a->a_good + AUDIT_RESERVE_AHEAD) == -1) {
		if (errno == EOPNOTSUPP || errno == ENOSYS) {
			a->a_no_reserve = true;
			return 0;
		}
		if (!must)
			return 0;
		return bx_fail(err, "audit: cannot reserve space in %s/%s: "
		    "%s; " UNAVAILABLE, a->a_dir, a->a_name, strerror(errno));
	}
	a->a_reserved = want + AUDIT_RESERVE_AHEAD;
	return 0;
}

/* One write, repeated only if a signal interrupted it before any byte. */
static ssize_t
write_once(struct audit *a, const char *buf, size_t len)
{
	ssize_t n;

	do {
		n = a->a_io->write(a->a_io->ctx, a->a_fd, buf, len);
	} while (n == -1 && errno == EINTR);
	return n;
}

static int
write_line(struct audit *a, const char *buf, size_t len, bool must,
    bool sync, struct bx_error *err)
{
	ssize_t n;

	if (reserve(a, len, must, err) == -1)
		return -1;
	if ((n = write_once(a, buf, len)) == -1) {
		a->a_uncertain = true;
		return bx_fail(err, "audit: cannot write to %s/%s: %s; "
		    UNAVAILABLE, a->a_dir, a->a_name, strerror(errno));
	}
	if ((size_t)n != len) {
		a->a_uncertain = true;
		return bx_fail(err, "audit: short write to %s/%s (%zd of %zu "
		    "bytes): the file system may be full; " UNAVAILABLE,
		    a->a_dir, a->a_name, n, len);
	}
	if (sync && a->a_io->fdatasync(a->a_io->ctx, a->a_fd) == -1) {
		a->a_uncertain = true;
		return bx_fail(err, "audit: cannot sync %s/%s: %s; "
		    UNAVAILABLE, a->a_dir, a->a_name, strerror(errno));
	}
	return 0;
}

/*
 * line (len bytes, a NUL after them) with a "\n" put before it. Only a
 * repair leads with one, to end a torn line, so the move is rare.
 */
static char *
lead_with_newline(char *line, size_t *len)
{
	char *p;

	if ((p = realloc(line, *len + 2)) == NULL)
		return NULL;
	memmove(p + 1, p, *len + 1);
	p[0] = '\n';
	(*len)++;
	return p;
}

static int
put_record(struct audit *a, uint64_t seq, int64_t time,
    const struct bx_hash *prev, const struct bx_audit_event *ev,
    bool lead_newline, bool sync, struct bx_error *err)
{
	struct bx_audit_record rec = { 0 };
	struct bx_hash h;
	char *line = NULL, *p;
	size_t len;
	int rv = -1;

	rec.seq = seq;
	rec.time = time;
	rec.prev = *prev;
	rec.event = *ev;
	/* The line comes with its "\n", which the hash leaves out. */
	if (bx_audit_record_encode_line(&rec, &line, &len, err) == -1 ||
	    bx_sha256(line, len - 1, &h, err) == -1) {
		bx_error_prefix(err, "audit: cannot encode the record");
		goto out;
	}
	if (lead_newline) {
		if ((p = lead_with_newline(line, &len)) == NULL) {
			bx_fail(err, "audit: out of memory; " UNAVAILABLE);
			goto out;
		}
		line = p;
	}
	if (write_line(a, line, len, ev->type < BX_AUDIT_RECOVERY, sync,
	    err) == -1)
		goto out;
	a->a_good += (off_t)len;
	a->a_head = h;
	a->a_next_seq = seq + 1;
	rv = 0;
out:
	free(line);
	return rv;
}

int
audit_write_record(struct audit *a, uint64_t seq, int64_t time,
    const struct bx_hash *prev, const struct bx_audit_event *ev,
    bool lead_newline, struct bx_error *err)
{
	return put_record(a, seq, time, prev, ev, lead_newline, true, err);
}

int
audit_write_unsynced(struct audit *a, uint64_t seq, int64_t time,
    const struct bx_hash *prev, const struct bx_audit_event *ev,
    struct bx_error *err)
{
	return put_record(a, seq, time, prev, ev, false, false, err);
}

static int
broken(struct audit *a, struct bx_error *err, const char *fmt, const char *what)
{
	char msg[BX_ERROR_MAX];

	snprintf(msg, sizeof(msg), fmt, what);
	a->a_broken = true;
	return bx_fail(err, "audit: %s/%s: %s; restart brokerd to check the "
	    "log; " UNAVAILABLE, a->a_dir, a->a_name, msg);
}

/* Reads the bytes [a_good, size) of the current file into *ret. */
static int
read_tail(struct audit *a, off_t size, char **ret, struct bx_error *err)
{
	size_t len = (size_t)(size - a->a_good), got = 0;
	ssize_t n;
	char *buf;

	if ((buf = malloc(len)) == NULL)
		return bx_fail(err, "audit: out of memory; " UNAVAILABLE);
	while (got < len) {
		n = pread(a->a_fd, buf + got, len - got, a->a_good + (off_t)got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			free(buf);
			return bx_fail(err, "audit: cannot read back %s/%s: %s; "
			    UNAVAILABLE, a->a_dir, a->a_name,
			    n == 0 ? "it shrank" : strerror(errno));
		}
		got += (size_t)n;
	}
	*ret = buf;
	return 0;
}

/*
 * Bytes past the last synced record that are one line: the record whose
 * write or sync failed, whole or torn. It was never acknowledged, so it is
 * recovered, not adopted: "\n" if it has none, then a Recovery record.
 */
static int
recover_line(struct audit *a, const char *buf, size_t len, off_t size,
    struct bx_error *err)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };
	bool newline = len > 0 && buf[len - 1] == '\n';
	off_t good = a->a_good;

	ev.recovery.torn_bytes = newline ? len - 1 : len;
	if (bx_sha256(buf, ev.recovery.torn_bytes, &ev.recovery.torn_sha256,
	    err) == -1)
		return -1;
	a->a_good = size;
	if (audit_write_record(a, a->a_next_seq, audit_now(a), &a->a_head,
	    &ev, !newline, err) == -1) {
		a->a_good = good;
		return -1;
	}
	return 0;
}

/*
 * More than one line past the last synced record: an earlier repair got
 * some way. Adopt what verifies, recover a torn end, give up otherwise.
 */
static int
adopt_lines(struct audit *a, const char *buf, size_t len, off_t size,
    struct bx_error *err)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };
	struct bx_chain_report *r;
	struct bx_chain *c;
	off_t good = a->a_good;
	int rv;

	if ((c = bx_chain_resume(a->a_next_seq, &a->a_head)) == NULL)
		return bx_fail(err, "audit: out of memory; " UNAVAILABLE);
	bx_audit_feed(c, a->a_name, buf, len);
	if (bx_chain_finish(c, &r, err) == -1)
		return -1;
	if (r->failed) {
		rv = broken(a, err, "the bytes after the last synced record "
		    "do not verify (%s)", r->failure.what);
		bx_chain_report_free(r);
		return rv;
	}
	a->a_good = size;
	if (!r->torn) {
		a->a_head = r->head;
		a->a_next_seq = r->next_seq;
		bx_chain_report_free(r);
		return 0;
	}
	ev.recovery.torn_bytes = r->torn_bytes;
	ev.recovery.torn_sha256 = r->torn_sha256;
	rv = audit_write_record(a, r->torn_seq, audit_now(a), &r->torn_prev,
	    &ev, true, err);
	if (rv == -1)
		a->a_good = good;
	bx_chain_report_free(r);
	return rv;
}

int
audit_repair(struct audit *a, struct bx_error *err)
{
	const char *nl;
	struct stat st;
	size_t len;
	char *buf = NULL;
	int rv;

	if (fstat(a->a_fd, &st) == -1)
		return bx_fail(err, "audit: cannot stat %s/%s: %s; "
		    UNAVAILABLE, a->a_dir, a->a_name, strerror(errno));
	if (st.st_size == a->a_good) {
		a->a_uncertain = false;
		return 0;
	}
	if (st.st_size < a->a_good)
		return broken(a, err, "%s", "the file is shorter than what "
		    "brokerd wrote to it");
	if (st.st_size - a->a_good > AUDIT_TAIL_MAX)
		return broken(a, err, "%s", "too many bytes after the last "
		    "synced record");
	if (read_tail(a, st.st_size, &buf, err) == -1)
		return -1;
	len = (size_t)(st.st_size - a->a_good);
	nl = memchr(buf, '\n', len);
	if (nl == NULL || nl == buf + len - 1)
		rv = recover_line(a, buf, len, st.st_size, err);
	else
		rv = adopt_lines(a, buf, len, st.st_size, err);
	free(buf);
	if (rv == 0)
		a->a_uncertain = false;
	return rv;
}

/*
 * Starts the file for date: the previous one gets a final fsync, the new
 * one is created exclusively, 0600, and it and the directory are synced
 * before any record goes in. If those syncs fail the writer stops: the
 * file now exists, and whether its name is durable is unknown.
 */
static int
new_file(struct audit *a, const char *date, struct bx_error *err)
{
	char name[BX_AUDIT_FILE_MAX + 1];
	int fd;

	snprintf(name, sizeof(name), "%s.jsonl", date);
	if (a->a_fd != -1 && a->a_io->fsync(a->a_io->ctx, a->a_fd) == -1)
		return bx_fail(err, "audit: cannot sync %s/%s before starting "
		    "%s: %s; " UNAVAILABLE, a->a_dir, a->a_name, name,
		    strerror(errno));
	fd = openat(a->a_dirfd, name, O_RDWR | O_APPEND | O_CREAT | O_EXCL |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd == -1)
		return bx_fail(err, "audit: cannot create %s/%s: %s; "
		    UNAVAILABLE, a->a_dir, name, strerror(errno));
	if (a->a_fd != -1)
		close(a->a_fd);
	a->a_fd = fd;
	snprintf(a->a_name, sizeof(a->a_name), "%s", name);
	a->a_good = 0;
	a->a_reserved = 0;
	if (fchmod(fd, 0600) == -1 ||
	    a->a_io->fsync(a->a_io->ctx, fd) == -1 ||
	    a->a_io->fsync(a->a_io->ctx, a->a_dirfd) == -1)
		return broken(a, err, "cannot sync the new file and its "
		    "directory: %s", strerror(errno));
	return 0;
}

bool
audit_file_current(const struct audit *a, int64_t now)
{
	char date[11];

	if (a->a_fd == -1 || now < BX_TIME_MIN_MS || now > BX_TIME_MAX_MS)
		return false;
	bx_time_date(now, date);
	/* Dates compare as strings; a clock gone back stays on the newest. */
	return strncmp(date, a->a_name, 10) <= 0;
}

int
audit_file_for(struct audit *a, int64_t now, struct bx_error *err)
{
	char date[11];

	if (now < BX_TIME_MIN_MS || now > BX_TIME_MAX_MS)
		return bx_fail(err, "audit: the clock is out of range; "
		    UNAVAILABLE);
	if (audit_file_current(a, now))
		return 0;
	bx_time_date(now, date);
	return new_file(a, date, err);
}

void
audit_close(struct audit *a)
{
	if (a == NULL)
		return;
	if (a->a_fd != -1)
		close(a->a_fd);
	if (a->a_lockfd != -1)
		close(a->a_lockfd);
	if (a->a_dirfd != -1)
		close(a->a_dirfd);
	pthread_cond_destroy(&a->a_settled_cv);
	pthread_mutex_destroy(&a->a_mu);
	free(a);
}
