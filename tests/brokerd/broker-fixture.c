/* broker-fixture.c: the in-process broker of broker-fixture.h. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <cmocka.h>

#include "broker-fixture.h"
#include "grants-fixture.h"
#include "proto/chain.h"
#include "proto/readfile.h"

/* How long a test waits for something that should happen at once. */
#define BFIX_WAIT_S	20

static int64_t
fix_now(void *ctx)
{
	struct bfix *f = ctx;

	return bfix_now(f);
}

static ssize_t
fix_write(void *ctx, int fd, const void *buf, size_t len)
{
	struct bfix *f = ctx;
	bool fail;

	pthread_mutex_lock(&f->lock);
	fail = f->audit_fail || f->audit_fail_after == 0;
	if (f->audit_fail_after > 0)
		f->audit_fail_after--;
	f->audit_failures += fail;
	pthread_mutex_unlock(&f->lock);
	if (fail) {
		errno = ENOSPC;
		return -1;
	}
	return audit_io_system.write(NULL, fd, buf, len);
}

static int
fix_fdatasync(void *ctx, int fd)
{
	(void)ctx;
	return audit_io_system.fdatasync(NULL, fd);
}

static int
fix_fsync(void *ctx, int fd)
{
	(void)ctx;
	return audit_io_system.fsync(NULL, fd);
}

static int
fix_fallocate(void *ctx, int fd, off_t off, off_t len)
{
	(void)ctx;
	return audit_io_system.fallocate(NULL, fd, off, len);
}

static int
fix_state_write(void *ctx, const char *dir, const char *name, const void *buf,
    size_t len, struct bx_error *err)
{
	struct bfix *f = ctx;
	bool fail;

	pthread_mutex_lock(&f->lock);
	f->state_writes++;
	fail = f->state_fail;
	f->state_failures += fail;
	pthread_mutex_unlock(&f->lock);
	if (fail)
		return bx_fail(err, "%s/%s: injected failure", dir, name);
	return state_write_atomic(NULL, dir, name, buf, len, err);
}

static void
fix_log(void *ctx, const char *line)
{
	struct bfix *f = ctx;

	pthread_mutex_lock(&f->lock);
	if (f->nlines < BFIX_MAX_LOG)
		f->lines[f->nlines++] = strdup(line);
	pthread_mutex_unlock(&f->lock);
}

struct bfix *
bfix_new(int64_t ttl_ms, const struct runtime *runtime)
{
	struct bfix *f = calloc(1, sizeof(*f));
	struct audit_config ac;
	struct broker_config bc;
	struct bx_error err;

	assert_non_null(f);
	pthread_mutex_init(&f->lock, NULL);
	f->home = fixture_dir();
	f->grants = fixture_dir();
	f->audit_fail_after = -1;
	assert_int_equal(bx_time_parse("2026-09-18T12:00:00.000Z", &f->now,
	    &err), 0);
	f->clock = (struct audit_clock){ fix_now, f };
	f->io = (struct audit_io){ fix_write, fix_fdatasync, fix_fsync,
	    fix_fallocate, f };
	f->sw = (struct state_writer){ fix_state_write, f };
	f->log = (struct broker_log){ fix_log, f };
	memset(&ac, 0, sizeof(ac));
	ac.home = f->home;
	ac.clock = &f->clock;
	ac.io = &f->io;
	if (audit_open(&ac, &f->audit, &err) != 0)
		fail_msg("audit_open: %s", err.msg);
	if ((f->state = state_open(f->home, &err)) == NULL)
		fail_msg("state_open: %s", err.msg);
	state_set_writer(f->state, &f->sw);
	assert_non_null(f->approvals = approvals_new());
	recording_init(&f->rec);
	f->rt = recording_runtime(&f->rec);
	memset(&bc, 0, sizeof(bc));
	bc.grants_dir = f->grants;
	bc.ttl_ms = ttl_ms;
	bc.audit = f->audit;
	bc.state = f->state;
	bc.approvals = f->approvals;
	bc.runtime = runtime != NULL ? runtime : &f->rt;
	bc.clock = &f->clock;
	bc.log = &f->log;
	bc.home = f->home;
	bc.started = f->now;
	if ((f->broker = broker_new(&bc, &err)) == NULL)
		fail_msg("broker_new: %s", err.msg);
	return f;
}

void
bfix_free(struct bfix *f)
{
	size_t i;

	broker_free(f->broker);
	approvals_free(f->approvals);
	state_close(f->state);
	audit_close(f->audit);
	recording_free(&f->rec);
	for (i = 0; i < f->nlines; i++)
		free(f->lines[i]);
	fixture_remove(f->home);
	fixture_remove(f->grants);
	free(f->home);
	free(f->grants);
	pthread_mutex_destroy(&f->lock);
	free(f);
}

void
bfix_set_now(struct bfix *f, int64_t ms)
{
	pthread_mutex_lock(&f->lock);
	f->now = ms;
	pthread_mutex_unlock(&f->lock);
}

int64_t
bfix_now(struct bfix *f)
{
	int64_t now;

	pthread_mutex_lock(&f->lock);
	now = f->now;
	pthread_mutex_unlock(&f->lock);
	return now;
}

void
bfix_grant(struct bfix *f, const char *id, const char *tool, const char *mode,
    const char *max_taint, const char *result_class, bool untrusted,
    const char *constraints)
{
	char name[128], text[2048];

	snprintf(name, sizeof(name), "%s.toml", id);
	snprintf(text, sizeof(text), "tool = \"%s\"\nmode = \"%s\"\n"
	    "max_taint = \"%s\"\nresult_class = \"%s\"\nuntrusted = %s\n"
	    "expires = \"%s\"\n\n[constraints]\n%s\n", tool, mode, max_taint,
	    result_class, untrusted ? "true" : "false", BFIX_LATER,
	    constraints);
	fixture_text(f->grants, name, text);
}

void
bfix_ungrant(struct bfix *f, const char *id)
{
	char name[128];

	snprintf(name, sizeof(name), "%s.toml", id);
	fixture_unlink(f->grants, name);
}

bool
bfix_logged(struct bfix *f, const char *text)
{
	return bfix_log_count(f, text) > 0;
}

size_t
bfix_log_count(struct bfix *f, const char *text)
{
	size_t i, n = 0;

	pthread_mutex_lock(&f->lock);
	for (i = 0; i < f->nlines; i++)
		if (strstr(f->lines[i], text) != NULL)
			n++;
	pthread_mutex_unlock(&f->lock);
	return n;
}

void
bpeer_init(struct bpeer *p)
{
	memset(p, 0, sizeof(*p));
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->changed, NULL);
}

void
bpeer_free(struct bpeer *p)
{
	size_t i;

	for (i = 0; i < p->nframes; i++)
		free(p->frames[i]);
	pthread_cond_destroy(&p->changed);
	pthread_mutex_destroy(&p->lock);
}

static int
peer_send(void *ctx, const struct bx_msg *msg, struct bx_error *err)
{
	struct bpeer *p = ctx;
	char *line;
	size_t len;

	if (bx_msg_encode(msg, &line, &len, err) == -1)
		fail_msg("the broker sent a frame that does not encode: %s",
		    err->msg);
	pthread_mutex_lock(&p->lock);
	if (p->gone || p->nframes == BFIX_MAX_FRAMES) {
		pthread_mutex_unlock(&p->lock);
		free(line);
		return bx_fail(err, "the peer is gone");
	}
	p->frames[p->nframes++] = line;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static bool
peer_gone(void *ctx)
{
	struct bpeer *p = ctx;
	bool gone;

	pthread_mutex_lock(&p->lock);
	gone = p->gone;
	pthread_mutex_unlock(&p->lock);
	return gone;
}

struct bx_msg *
bpeer_frame(struct bpeer *p, size_t i)
{
	struct bx_msg *msg = NULL;
	struct bx_error err;
	char *line;

	pthread_mutex_lock(&p->lock);
	if (i >= p->nframes)
		fail_msg("frame %zu asked for, %zu sent", i, p->nframes);
	line = strdup(p->frames[i]);
	pthread_mutex_unlock(&p->lock);
	if (bx_msg_decode(line, strlen(line) - 1, &msg, &err) == -1)
		fail_msg("frame %zu does not decode: %s", i, err.msg);
	free(line);
	return msg;
}

void
bpeer_wait(struct bpeer *p, size_t n)
{
	struct timespec until;

	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += BFIX_WAIT_S;
	pthread_mutex_lock(&p->lock);
	while (p->nframes < n)
		if (pthread_cond_timedwait(&p->changed, &p->lock,
		    &until) != 0)
			break;
	pthread_mutex_unlock(&p->lock);
	if (p->nframes < n)
		fail_msg("waited for %zu frames, got %zu", n, p->nframes);
}

void
bpeer_set_gone(struct bpeer *p)
{
	pthread_mutex_lock(&p->lock);
	p->gone = true;
	pthread_mutex_unlock(&p->lock);
}

bool
bpeer_saw(struct bpeer *p, const char *text)
{
	bool found = false;
	size_t i;

	pthread_mutex_lock(&p->lock);
	for (i = 0; i < p->nframes && !found; i++)
		found = strstr(p->frames[i], text) != NULL;
	pthread_mutex_unlock(&p->lock);
	return found;
}

int
bfix_call(struct bfix *f, struct bpeer *p, const char *session,
    const char *call, const char *tool, const char *args)
{
	struct broker_peer peer = { peer_send, peer_gone, p, NULL };
	struct bx_tool_request req = { (char *)session, (char *)call,
	    (char *)tool, (char *)args };
	struct bx_error err;
	int rc;

	rc = broker_call(f->broker, &req, &peer, &err);
	pthread_mutex_lock(&p->lock);
	p->rc = rc;
	p->done = true;
	pthread_cond_broadcast(&p->changed);
	pthread_mutex_unlock(&p->lock);
	return rc;
}

struct bcall {
	struct bfix	*bc_f;
	struct bpeer	*bc_p;
	char		 bc_session[80], bc_call[80], bc_tool[80];
	char		*bc_args;
	pthread_t	 bc_thread;
};

static void *
call_run(void *arg)
{
	struct bcall *c = arg;

	bfix_call(c->bc_f, c->bc_p, c->bc_session, c->bc_call, c->bc_tool,
	    c->bc_args);
	return NULL;
}

struct bcall *
bfix_call_async(struct bfix *f, struct bpeer *p, const char *session,
    const char *call, const char *tool, const char *args)
{
	struct bcall *c = calloc(1, sizeof(*c));

	assert_non_null(c);
	c->bc_f = f;
	c->bc_p = p;
	snprintf(c->bc_session, sizeof(c->bc_session), "%s", session);
	snprintf(c->bc_call, sizeof(c->bc_call), "%s", call);
	snprintf(c->bc_tool, sizeof(c->bc_tool), "%s", tool);
	c->bc_args = strdup(args);
	assert_int_equal(pthread_create(&c->bc_thread, NULL, call_run, c), 0);
	return c;
}

void
bfix_join(struct bcall *c)
{
	pthread_join(c->bc_thread, NULL);
	free(c->bc_args);
	free(c);
}

struct bx_msg *
bfix_admin(struct bfix *f, struct bx_msg *req)
{
	struct bx_msg *answer = NULL;
	struct bx_error err;

	assert_non_null(req);
	if (admin_handle(f->broker, req, &answer, &err) == -1)
		fail_msg("admin_handle: %s", err.msg);
	bx_msg_free(req);
	return answer;
}

static int
by_name(const struct dirent **a, const struct dirent **b)
{
	return strcmp((*a)->d_name, (*b)->d_name);
}

static int
is_log(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return n > 6 && strcmp(d->d_name + n - 6, ".jsonl") == 0;
}

/* Calls fn on every line of every audit file, in order. */
static void
each_line(struct bfix *f, void (*fn)(void *, const char *, const char *,
    size_t, bool, bool), void *ctx)
{
	struct dirent **names;
	char dir[4096], path[8192], *buf, *line, *nl;
	struct bx_error err;
	size_t len, rest;
	int i, n;

	snprintf(dir, sizeof(dir), "%s/audit", f->home);
	if ((n = scandir(dir, &names, is_log, by_name)) == -1)
		fail_msg("scandir %s: %s", dir, strerror(errno));
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]->d_name);
		if (bx_readfile(path, 0, &buf, &len, NULL, &err) == -1)
			fail_msg("%s", err.msg);
		for (line = buf, rest = len; rest > 0;) {
			nl = memchr(line, '\n', rest);
			len = nl != NULL ? (size_t)(nl - line) : rest;
			if (nl != NULL)
				*nl = '\0';
			rest -= len + (nl != NULL);
			fn(ctx, names[i]->d_name, line, len,
			    rest == 0, nl != NULL);
			line += len + 1;
		}
		free(buf);
		free(names[i]);
	}
	free(names);
}

struct collect {
	struct bx_chain		*chain;
	const char		*file;
	struct bx_audit_record	*recs;
	size_t			 n;
	const char		*needle;
	bool			 found;
};

static void
collect_line(void *ctx, const char *file, const char *line, size_t len,
    bool last, bool nl)
{
	struct collect *c = ctx;
	struct bx_error err;

	if (c->file == NULL || strcmp(c->file, file) != 0) {
		bx_chain_file(c->chain, file);
		c->file = file;
	}
	bx_chain_line(c->chain, line, len, last, nl);
	if (c->needle != NULL && strstr(line, c->needle) != NULL)
		c->found = true;
	c->recs = realloc(c->recs, (c->n + 1) * sizeof(*c->recs));
	assert_non_null(c->recs);
	if (bx_audit_record_decode(line, len, &c->recs[c->n], &err) == -1)
		fail_msg("%s: a line does not decode: %s", file, err.msg);
	c->n++;
}

static struct bx_chain_report *
scan(struct bfix *f, struct collect *c)
{
	struct bx_chain_report *report;
	struct bx_error err;

	assert_non_null(c->chain = bx_chain_new());
	each_line(f, collect_line, c);
	if (bx_chain_finish(c->chain, &report, &err) == -1)
		fail_msg("bx_chain_finish: %s", err.msg);
	if (report->failed)
		fail_msg("the audit log does not verify: %s:%llu: %s",
		    report->failure.at.file,
		    (unsigned long long)report->failure.at.line,
		    report->failure.what);
	return report;
}

size_t
bfix_records(struct bfix *f, struct bx_audit_record **ret)
{
	struct collect c = { 0 };

	bx_chain_report_free(scan(f, &c));
	*ret = c.recs;
	return c.n;
}

void
bfix_records_free(struct bx_audit_record *recs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		bx_audit_record_clear(&recs[i]);
	free(recs);
}

struct bx_chain_report *
bfix_verify(struct bfix *f)
{
	struct collect c = { 0 };
	struct bx_chain_report *r = scan(f, &c);

	bfix_records_free(c.recs, c.n);
	return r;
}

bool
bfix_audit_contains(struct bfix *f, const char *text)
{
	struct collect c = { 0 };

	c.needle = text;
	bx_chain_report_free(scan(f, &c));
	bfix_records_free(c.recs, c.n);
	return c.found;
}

struct state_value
bfix_state(struct bfix *f, const char *session)
{
	struct state_value v;
	struct bx_error err;

	if (state_read(f->state, session, &v, &err) == -1)
		fail_msg("state_read: %s", err.msg);
	return v;
}
