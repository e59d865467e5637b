/*
 * test-audit-walk.c: reading an audit directory through the chain as it
 * is and as it grows (proto/audit_walk.h): every record once, in order; an
 * unfinished last line waits in a live walk and is fed whole at the end;
 * the walk goes on into a new day's file; a file that shrinks or goes away
 * is an error naming it.
 */
#include <sys/stat.h>

#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "proto/audit_record.h"
#include "proto/audit_walk.h"
#include "proto/sha256.h"

#define T0	1758189600000LL		/* 2025-09-18T10:00:00.000Z */

struct fix {
	char		 dir[256];
	uint64_t	 seq;
	struct bx_hash	 prev;
	uint64_t	 seen[64];
	size_t		 nseen;
};

static void
on_record(void *ctx, const struct bx_chain_record *rec)
{
	struct fix *f = ctx;

	assert_true(f->nseen < 64);
	f->seen[f->nseen++] = rec->sum->seq;
}

/* The next record's line, with its "\n"; the caller frees it. */
static char *
next_line(struct fix *f, size_t *ret_len)
{
	struct bx_audit_record rec = { 0 };
	struct bx_error err;
	char *line;
	size_t len;

	rec.seq = f->seq++;
	rec.time = T0 + (int64_t)rec.seq * 1000;
	rec.prev = f->prev;
	rec.event.type = BX_AUDIT_DECISION;
	rec.event.decision.session = "s-1";
	rec.event.decision.call = "c1";
	rec.event.decision.tool = "read_file";
	rec.event.decision.arguments = "{}";
	rec.event.decision.outcome.kind = BX_OUTCOME_DENIED;
	rec.event.decision.outcome.reason = BX_DENY_NO_GRANT;
	assert_int_equal(bx_audit_record_encode_line(&rec, &line, &len, &err),
	    0);
	assert_int_equal(bx_sha256(line, len - 1, &f->prev, &err), 0);
	*ret_len = len;
	return line;
}

/* Appends bytes to the day's file. */
static void
append(struct fix *f, const char *day, const char *bytes, size_t len)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s.jsonl", f->dir, day);
	fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, bytes, len), (ssize_t)len);
	close(fd);
}

static void
append_records(struct fix *f, const char *day, int n)
{
	char *line;
	size_t len;

	while (n-- > 0) {
		line = next_line(f, &len);
		append(f, day, line, len);
		free(line);
	}
}

static int
setup(void **state)
{
	struct fix *f = calloc(1, sizeof(*f));

	assert_non_null(f);
	snprintf(f->dir, sizeof(f->dir), "%s/audit-walk-XXXXXX",
	    getenv("TMPDIR") != NULL ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(f->dir));
	*state = f;
	return 0;
}

static int
teardown(void **state)
{
	struct fix *f = *state;
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->dir);
	assert_int_equal(system(cmd), 0);
	free(f);
	return 0;
}

static struct bx_chain *
chain(struct fix *f)
{
	struct bx_chain *c = bx_chain_new();

	assert_non_null(c);
	bx_chain_on_record(c, on_record, f);
	return c;
}

static void
test_live_walk(void **state)
{
	struct fix *f = *state;
	struct bx_chain_report *r;
	struct bx_audit_walk *w;
	struct bx_error err;
	struct bx_chain *c = chain(f);
	char *line;
	size_t len, i;

	append_records(f, "2025-09-18", 2);
	line = next_line(f, &len);
	append(f, "2025-09-18", line, 40);	/* half a record */
	assert_int_equal(bx_audit_walk_open(f->dir, &w, &err), 0);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), 0);
	assert_int_equal(f->nseen, 2);		/* settled, the half waits */
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), 0);
	assert_int_equal(f->nseen, 2);
	append(f, "2025-09-18", line + 40, len - 40);
	free(line);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), 0);
	assert_int_equal(f->nseen, 3);
	/* The next day's file: the walk goes on into it. */
	append_records(f, "2025-09-19", 2);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), 0);
	assert_int_equal(f->nseen, 5);
	assert_int_equal(bx_audit_walk_step(w, c, false, &err), 0);
	assert_int_equal(bx_chain_finish(c, &r, &err), 0);
	bx_audit_walk_close(w);
	assert_false(r->failed);
	assert_int_equal(r->records, 5);
	for (i = 0; i < f->nseen; i++)
		assert_int_equal(f->seen[i], i);
	bx_chain_report_free(r);
}

/* The end of a walk feeds an unfinished line: a torn tail. */
static void
test_end_feeds_the_torn_tail(void **state)
{
	struct fix *f = *state;
	struct bx_chain_report *r;
	struct bx_audit_walk *w;
	struct bx_error err;
	struct bx_chain *c = chain(f);
	char *line;
	size_t len;

	append_records(f, "2025-09-18", 1);
	line = next_line(f, &len);
	append(f, "2025-09-18", line, 40);
	free(line);
	assert_int_equal(bx_audit_walk_open(f->dir, &w, &err), 0);
	assert_int_equal(bx_audit_walk_step(w, c, false, &err), 0);
	assert_int_equal(bx_chain_finish(c, &r, &err), 0);
	bx_audit_walk_close(w);
	assert_false(r->failed);
	assert_true(r->torn);
	assert_int_equal(r->torn_bytes, 40);
	assert_int_equal(f->nseen, 1);
	bx_chain_report_free(r);
}

/* A live walk past an older file that ends unfinished: a failure. */
static void
test_unfinished_older_file(void **state)
{
	struct fix *f = *state;
	struct bx_audit_walk *w;
	struct bx_error err;
	struct bx_chain *c = chain(f);

	append_records(f, "2025-09-18", 1);
	append(f, "2025-09-18", "{\"seq\":1", 8);
	append_records(f, "2025-09-19", 1);
	assert_int_equal(bx_audit_walk_open(f->dir, &w, &err), 0);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), 0);
	assert_non_null(bx_chain_failed(c));
	assert_string_equal(bx_chain_failed(c)->at.file, "2025-09-18.jsonl");
	assert_int_equal(bx_chain_failed(c)->at.line, 2);
	bx_audit_walk_close(w);
	bx_chain_free(c);
}

static void
test_shrunk_or_gone(void **state)
{
	struct fix *f = *state;
	struct bx_audit_walk *w;
	struct bx_error err;
	struct bx_chain *c = chain(f);
	char path[512];

	append_records(f, "2025-09-18", 3);
	assert_int_equal(bx_audit_walk_open(f->dir, &w, &err), 0);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), 0);
	snprintf(path, sizeof(path), "%s/2025-09-18.jsonl", f->dir);
	assert_int_equal(truncate(path, 10), 0);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), -1);
	assert_non_null(strstr(err.msg, "2025-09-18.jsonl shrank from "));
	assert_int_equal(unlink(path), 0);
	assert_int_equal(bx_audit_walk_step(w, c, true, &err), -1);
	assert_non_null(strstr(err.msg, "2025-09-18.jsonl went away"));
	bx_audit_walk_close(w);
	bx_chain_free(c);
	/* No directory at all. */
	assert_int_equal(bx_audit_walk_open(path, &w, &err), -1);
	assert_non_null(strstr(err.msg, "cannot open"));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_live_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_end_feeds_the_torn_tail,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_unfinished_older_file,
		    setup, teardown),
		cmocka_unit_test_setup_teardown(test_shrunk_or_gone, setup,
		    teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
