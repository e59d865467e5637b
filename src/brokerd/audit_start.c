/*
 * audit_start.c: audit_open, the startup steps of design section 5: take
 * the lock, verify the newest file resumed from the last line of the one
 * before, recover a torn tail, and stop on a failure unless the owner
 * accepts it. Nothing is truncated, rewritten or deleted.
 */
#include <sys/file.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/audit_impl.h"
#include "proto/audit_files.h"
#include "proto/chain.h"
#include "proto/clock.h"
#include "proto/sha256.h"

#define BROKEN		"see docs/runbook.md#audit-chain-broken"
/*
 * How long a start waits for the lock: a brokerd killed a moment ago may
 * have children that still share its lock between their fork and exec
 * (they die with it, but not at once).
 */
#define AUDIT_LOCK_WAIT_MS	2000
#define AUDIT_LOCK_POLL_MS	20

static int
take_lock(struct audit *a, struct bx_error *err)
{
	int64_t until;
	int rc;

	a->a_lockfd = openat(a->a_dirfd, ".lock", O_RDWR | O_CREAT |
	    O_CLOEXEC | O_NOFOLLOW, 0600);
	if (a->a_lockfd == -1)
		return bx_fail(err, "audit: cannot open %s/.lock: %s; see "
		    "docs/runbook.md#audit-unavailable", a->a_dir,
		    strerror(errno));
	until = bx_clock_mono_ms() + AUDIT_LOCK_WAIT_MS;
	while ((rc = flock(a->a_lockfd, LOCK_EX | LOCK_NB)) == -1 &&
	    errno == EWOULDBLOCK && bx_clock_mono_ms() < until)
		bx_clock_sleep_ms(AUDIT_LOCK_POLL_MS);
	if (rc == 0)
		return 0;
	if (errno == EWOULDBLOCK)
		return bx_fail(err, "audit: brokerd is already running (%s/.lock "
		    "is held by another process); see "
		    "docs/runbook.md#brokerd-already-running", a->a_dir);
	return bx_fail(err, "audit: cannot lock %s/.lock: %s; see "
	    "docs/runbook.md#brokerd-already-running", a->a_dir,
	    strerror(errno));
}

/*
 * The resume point in file name: its last line, if it ends in "\n" and
 * parses. Returns 1 if found, 0 if the file is empty, -1 if its last line
 * is no good (then the file must be verified too).
 */
static int
last_line(struct audit *a, const char *name, uint64_t *ret_seq,
    struct bx_hash *ret_hash, struct bx_error *err)
{
	struct bx_audit_summary s;
	const char *buf, *start, *end;
	size_t len;
	int rv = -1;

	if (bx_audit_map(a->a_dirfd, name, &buf, &len, err) == -1)
		return -2;
	if (len == 0)
		return 0;
	if (buf[len - 1] == '\n') {
		end = buf + len - 1;
		start = memrchr(buf, '\n', (size_t)(end - buf));
		start = start == NULL ? buf : start + 1;
		if (bx_audit_record_scan(start, (size_t)(end - start), &s,
		    NULL) == 0 && bx_sha256(start, (size_t)(end - start),
		    ret_hash, err) == 0) {
			*ret_seq = s.seq + 1;
			rv = 1;
		}
	}
	bx_audit_unmap(buf, len);
	return rv;
}

/*
 * Verifies the newest file, resumed from the last line of the nearest
 * earlier file that has one that parses; files whose last line does not
 * are verified too, so a failure in them has a file and line.
 */
static int
verify(struct audit *a, char **names, size_t n, struct bx_chain_report **ret,
    struct bx_error *err)
{
	struct bx_chain *c = NULL;
	struct bx_hash prev;
	const char *buf;
	size_t first = n - 1, i, len;
	uint64_t seq;
	int found;

	for (i = n - 1; i > 0 && c == NULL; i--) {
		found = last_line(a, names[i - 1], &seq, &prev, err);
		if (found == -2)
			return -1;
		if (found == 1)
			c = bx_chain_resume(seq, &prev);
		else if (found == -1)
			first = i - 1;
		if (found == 1 && c == NULL)
			return bx_fail(err, "audit: out of memory");
	}
	if (c == NULL && (c = bx_chain_new()) == NULL)
		return bx_fail(err, "audit: out of memory");
	for (i = first; i < n; i++) {
		if (bx_audit_map(a->a_dirfd, names[i], &buf, &len, err) == -1) {
			bx_chain_free(c);
			return -1;
		}
		bx_audit_feed(c, names[i], buf, len);
		bx_audit_unmap(buf, len);
	}
	return bx_chain_finish(c, ret, err);
}

/* Replaces *r with a fresh report, after the startup wrote to the log. */
static int
reverify(struct audit *a, char **names, size_t n,
    struct bx_chain_report **r, struct bx_error *err)
{
	bx_chain_report_free(*r);
	*r = NULL;
	return verify(a, names, n, r, err);
}

/* Step 3: "\n" after the torn bytes, then a Recovery record. */
static int
recover_torn(struct audit *a, const struct bx_chain_report *r,
    struct bx_error *err)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_RECOVERY };

	ev.recovery.torn_bytes = r->torn_bytes;
	ev.recovery.torn_sha256 = r->torn_sha256;
	if (audit_write_record(a, r->torn_seq, audit_now(a), &r->torn_prev,
	    &ev, true, err) == -1)
		return bx_error_prefix(err, "audit: cannot recover the torn "
		    "final line %s:%llu", r->torn_tail.file,
		    (unsigned long long)r->torn_tail.line);
	audit_notice_add(a, "audit: recovered a torn final line (%s:%llu, "
	    "%llu bytes); see docs/runbook.md#audit-recovered",
	    r->torn_tail.file, (unsigned long long)r->torn_tail.line,
	    (unsigned long long)r->torn_bytes);
	return 0;
}

/* Step 4 with --accept-break: an AcceptedBreak naming the failure. */
static int
accept_break(struct audit *a, const struct bx_chain_report *r,
    struct bx_error *err)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_ACCEPTED_BREAK };
	char hex[BX_HASH_HEX_LEN + 1];

	ev.accepted_break.file = r->failure.at.file;
	ev.accepted_break.line = r->failure.at.line;
	ev.accepted_break.last_good = r->break_last_good;
	if (audit_write_record(a, r->break_seq, audit_now(a), &r->break_prev,
	    &ev, false, err) == -1)
		return bx_error_prefix(err, "audit: cannot write the accepted "
		    "break");
	bx_hash_format(&r->break_last_good, hex);
	audit_notice_add(a, "audit: accepted the break at %s:%llu (%s); last "
	    "good line %s; the chain goes on at seq %llu in %s",
	    r->failure.at.file, (unsigned long long)r->failure.at.line,
	    r->failure.what, hex, (unsigned long long)r->break_seq + 1,
	    a->a_name);
	return 0;
}

static const struct bx_hash zero_hash;

/*
 * Creates audit/ (0700) if it is missing, and then syncs the home that
 * holds it, as for a new daily file: without that its name may not survive
 * a crash, and neither would the first file in it.
 */
static int
make_dir(struct audit *a, const char *home, struct bx_error *err)
{
	int fd, rc;

	if (mkdir(a->a_dir, 0700) == 0) {
		if ((fd = open(home, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
			return bx_fail(err, "audit: cannot open %s: %s; see "
			    "docs/runbook.md#audit-unavailable", home,
			    strerror(errno));
		rc = a->a_io->fsync(a->a_io->ctx, fd);
		close(fd);
		if (rc == -1)
			return bx_fail(err, "audit: cannot sync %s after "
			    "creating %s: %s; see "
			    "docs/runbook.md#audit-unavailable", home,
			    a->a_dir, strerror(errno));
		return 0;
	}
	if (errno != EEXIST)
		return bx_fail(err, "audit: cannot create %s: %s; see "
		    "docs/runbook.md#audit-unavailable", a->a_dir,
		    strerror(errno));
	return 0;
}

/* Steps 2 to 5 on a directory with at least one file. */
static int
check_files(struct audit *a, char **names, size_t n, bool accept,
    struct bx_error *err)
{
	struct bx_chain_report *r = NULL;
	bool accepted = false;
	int rv = -1;

	if (!bx_audit_name_is_date(names[n - 1]))
		return bx_fail(err, "audit: %s/%s is not an audit file name "
		    "(YYYY-MM-DD.jsonl); " BROKEN, a->a_dir, names[n - 1]);
	if (audit_use_file(a, names[n - 1], err) == -1 ||
	    verify(a, names, n, &r, err) == -1)
		return -1;
	if (r->torn && (recover_torn(a, r, err) == -1 ||
	    reverify(a, names, n, &r, err) == -1))
		goto out;
	if (r->failed && !accept) {
		bx_fail(err, "audit: %s:%llu: %s; " BROKEN, r->failure.at.file,
		    (unsigned long long)r->failure.at.line, r->failure.what);
		goto out;
	}
	if (r->failed) {
		if (accept_break(a, r, err) == -1)
			goto out;
		accepted = true;
		if (reverify(a, names, n, &r, err) == -1)
			goto out;
		if (r->failed) {
			bx_fail(err, "audit: %s:%llu: %s, after the accepted "
			    "break; " BROKEN, r->failure.at.file,
			    (unsigned long long)r->failure.at.line,
			    r->failure.what);
			goto out;
		}
	}
	if (accept && !accepted) {
		bx_fail(err, "audit: --accept-break: nothing to accept, the "
		    "audit log verifies; " BROKEN);
		rv = AUDIT_NOTHING_TO_ACCEPT;
		goto out;
	}
	a->a_next_seq = r->next_seq;
	a->a_head = r->has_head ? r->head : zero_hash;
	rv = 0;
out:
	bx_chain_report_free(r);
	return rv;
}

static int
check_log(struct audit *a, bool accept, struct bx_error *err)
{
	char **names;
	size_t n;
	int rv;

	if (bx_audit_list(a->a_dirfd, &names, &n, err) == -1)
		return bx_error_prefix(err, "audit: %s", a->a_dir);
	if (n > 0)
		rv = check_files(a, names, n, accept, err);
	else if (accept) {
		bx_fail(err, "audit: --accept-break: nothing to accept, the "
		    "audit log is empty; " BROKEN);
		rv = AUDIT_NOTHING_TO_ACCEPT;
	} else
		rv = 0;
	bx_audit_names_free(names, n);
	return rv;
}

int
audit_open(const struct audit_config *cfg, struct audit **ret,
    struct bx_error *err)
{
	struct audit *a;
	int rv;

	if ((a = calloc(1, sizeof(*a))) == NULL)
		return bx_fail(err, "audit: out of memory");
	pthread_mutex_init(&a->a_mu, NULL);
	pthread_cond_init(&a->a_settled_cv, NULL);
	a->a_dirfd = a->a_lockfd = a->a_fd = -1;
	a->a_clock = cfg->clock != NULL ? cfg->clock : &audit_clock_system;
	a->a_io = cfg->io != NULL ? cfg->io : &audit_io_system;
	snprintf(a->a_dir, sizeof(a->a_dir), "%s/audit", cfg->home);
	if ((rv = make_dir(a, cfg->home, err)) != 0)
		goto fail;
	a->a_dirfd = open(a->a_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (a->a_dirfd == -1) {
		rv = bx_fail(err, "audit: cannot open %s: %s; see "
		    "docs/runbook.md#audit-unavailable", a->a_dir,
		    strerror(errno));
		goto fail;
	}
	if ((rv = take_lock(a, err)) != 0 ||
	    (rv = check_log(a, cfg->accept_break, err)) != 0)
		goto fail;
	*ret = a;
	return 0;
fail:
	audit_close(a);
	return rv;
}
