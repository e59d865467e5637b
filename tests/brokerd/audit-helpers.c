/* audit-helpers.c: see audit-helpers.h. */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "audit-helpers.h"
#include "proto/audit_files.h"

static int64_t
clock_now(void *ctx)
{
	return ((struct th_clock *)ctx)->now;
}

void
th_clock_init(struct th_clock *c, int64_t now)
{
	c->clock.now_ms = clock_now;
	c->clock.ctx = c;
	c->now = now;
}

static ssize_t
io_write(void *ctx, int fd, const void *buf, size_t len)
{
	struct th_io *t = ctx;
	int e;

	t->writes++;
	if (t->fail_write != 0) {
		e = t->fail_write;
		t->fail_write = 0;
		errno = e;
		return -1;
	}
	if (t->short_pending) {
		t->short_pending = false;
		if (t->short_write < len)
			len = t->short_write;
	}
	return write(fd, buf, len);
}

static int
io_fdatasync(void *ctx, int fd)
{
	struct th_io *t = ctx;
	int e;

	t->fdatasyncs++;
	if (t->fail_fdatasync != 0) {
		e = t->fail_fdatasync;
		t->fail_fdatasync = 0;
		errno = e;
		return -1;
	}
	return fdatasync(fd);
}

static int
io_fsync(void *ctx, int fd)
{
	struct th_io *t = ctx;
	struct stat st;

	t->fsyncs++;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		t->dir_fsyncs++;
		t->writes_at_dir_fsync = t->writes;
	}
	return fsync(fd);
}

static int
io_fallocate(void *ctx, int fd, off_t off, off_t len)
{
	struct th_io *t = ctx;
	int e;

	t->fallocates++;
	if (t->fail_fallocate != 0) {
		e = t->fail_fallocate;
		t->fail_fallocate = 0;
		errno = e;
		return -1;
	}
	return audit_io_system.fallocate(NULL, fd, off, len);
}

void
th_io_init(struct th_io *t)
{
	memset(t, 0, sizeof(*t));
	t->io.write = io_write;
	t->io.fdatasync = io_fdatasync;
	t->io.fsync = io_fsync;
	t->io.fallocate = io_fallocate;
	t->io.ctx = t;
}

char *
th_home(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	assert_true(asprintf(&path, "%s/bx-audit-XXXXXX",
	    base != NULL ? base : "/tmp") > 0);
	assert_non_null(mkdtemp(path));
	return path;
}

static int
rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
th_rmrf(const char *path)
{
	nftw(path, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

void
th_copy_dir(const char *src, const char *dir)
{
	char from[4096], to[4096], buf[65536];
	struct dirent *de;
	size_t n;
	FILE *in, *out;
	DIR *d;

	assert_true(mkdir(dir, 0700) == 0 || errno == EEXIST);
	d = opendir(src);
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(from, sizeof(from), "%s/%s", src, de->d_name);
		snprintf(to, sizeof(to), "%s/%s", dir, de->d_name);
		in = fopen(from, "rb");
		out = fopen(to, "wb");
		assert_non_null(in);
		assert_non_null(out);
		while ((n = fread(buf, 1, sizeof(buf), in)) > 0)
			assert_int_equal(fwrite(buf, 1, n, out), n);
		fclose(in);
		fclose(out);
	}
	closedir(d);
}

int
th_open(const char *home, bool accept_break, struct th_clock *c,
    struct th_io *t, struct audit **ret, struct bx_error *err)
{
	struct audit_config cfg = { 0 };

	cfg.home = home;
	cfg.accept_break = accept_break;
	cfg.clock = &c->clock;
	cfg.io = &t->io;
	return audit_open(&cfg, ret, err);
}

void
th_open_ok(const char *home, struct th_clock *c, struct th_io *t,
    struct audit **ret)
{
	struct bx_error err;

	if (th_open(home, false, c, t, ret, &err) != 0)
		fail_msg("audit_open: %s", err.msg);
}

void
th_done(struct audit *a, char *home)
{
	audit_close(a);
	th_rmrf(home);
	free(home);
}

struct bx_audit_event
th_decision(bool ask)
{
	struct bx_audit_event ev = { .type = BX_AUDIT_DECISION };

	ev.decision.session = "chat-1";
	ev.decision.call = "c1";
	ev.decision.tool = "read_file";
	ev.decision.arguments = "{\"path\":\"/home/kyle/notes/a.md\"}";
	ev.decision.outcome.kind = ask ? BX_OUTCOME_ASK : BX_OUTCOME_ALLOWED;
	ev.decision.grant = "notes";
	ev.decision.taint = BX_CLASS_PRIVATE;
	return ev;
}

struct bx_chain_report *
th_verify(const char *home)
{
	struct bx_chain_report *r;
	struct bx_chain *c = bx_chain_new();
	struct bx_error err;
	char dir[4096], **names;
	const char *buf;
	size_t n, i, len;
	int dirfd;

	snprintf(dir, sizeof(dir), "%s/audit", home);
	dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	assert_true(dirfd >= 0);
	assert_int_equal(bx_audit_list(dirfd, &names, &n, &err), 0);
	for (i = 0; i < n; i++) {
		assert_int_equal(bx_audit_map(dirfd, names[i], &buf, &len,
		    &err), 0);
		bx_audit_feed(c, names[i], buf, len);
		bx_audit_unmap(buf, len);
	}
	bx_audit_names_free(names, n);
	close(dirfd);
	assert_int_equal(bx_chain_finish(c, &r, &err), 0);
	return r;
}

int
th_lines(const char *home, const char *name)
{
	char path[4096];
	int ch, n = 0;
	FILE *fp;

	snprintf(path, sizeof(path), "%s/audit/%s", home, name);
	if ((fp = fopen(path, "rb")) == NULL)
		return -1;
	while ((ch = fgetc(fp)) != EOF)
		if (ch == '\n')
			n++;
	fclose(fp);
	return n;
}

void
th_append_raw(const char *home, const char *name, const char *bytes,
    size_t len)
{
	char path[4096];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/audit/%s", home, name);
	fp = fopen(path, "ab");
	assert_non_null(fp);
	assert_int_equal(fwrite(bytes, 1, len, fp), len);
	fclose(fp);
}
