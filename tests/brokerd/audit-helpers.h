/*
 * audit-helpers.h: what the audit writer's tests share: a temporary home,
 * a clock the test sets, a system-call seam that counts calls and fails
 * them on demand, and a verify of the whole audit directory through the
 * ChainVerifier, as bxctl audit verify would do it.
 *
 * th_home() returns a malloc'd path the caller frees after th_rmrf();
 * th_verify() returns a report the caller frees with bx_chain_report_free.
 */
#ifndef TESTS_AUDIT_HELPERS_H
#define TESTS_AUDIT_HELPERS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "brokerd/audit.h"
#include "proto/chain.h"

struct th_clock {
	struct audit_clock	clock;
	int64_t			now;
};

struct th_io {
	struct audit_io	io;
	int		writes, fdatasyncs, fsyncs, fallocates;
	int		dir_fsyncs;	/* fsyncs of a directory */
	int		writes_at_dir_fsync;	/* writes before the last one */
	int		fail_write;	/* errno for the next write, 0: none */
	size_t		short_write;	/* write only this many bytes next */
	bool		short_pending;
	int		fail_fdatasync;	/* errno for the next fdatasync */
	int		fail_fallocate;	/* errno for the next fallocate */
};

void	th_clock_init(struct th_clock *, int64_t now);
void	th_io_init(struct th_io *);

char	*th_home(void);
void	th_rmrf(const char *path);
/* Copies every file of src into dir (created 0700). */
void	th_copy_dir(const char *src, const char *dir);

/* Opens the writer on home with the test's clock and io. */
int	th_open(const char *home, bool accept_break, struct th_clock *,
	    struct th_io *, struct audit **ret, struct bx_error *err);
/* th_open without accept_break; the test fails if it does not open. */
void	th_open_ok(const char *home, struct th_clock *, struct th_io *,
	    struct audit **ret);
/* A test's end: closes a (NULL is allowed), removes home and frees it. */
void	th_done(struct audit *a, char *home);

/* A Decision event; ask or allowed. */
struct bx_audit_event th_decision(bool ask);

/* Verifies every file of <home>/audit in name order. */
struct bx_chain_report	*th_verify(const char *home);

/* The number of lines of <home>/audit/<name>; -1 if it does not exist. */
int	th_lines(const char *home, const char *name);
/* Appends raw bytes to <home>/audit/<name>. */
void	th_append_raw(const char *home, const char *name, const char *bytes,
	    size_t len);

#endif
