/*
 * grantwrite.h: the grant files bxctl writes for the owner (`approve
 * --for`, `grants add`) and removes (`grants remove`).
 *
 * The text is what a person would write (boxmaker-grant(5)): a comment,
 * the keys one per line, every string a TOML basic string written by
 * tomlquote.h.
 *
 * A file is judged by brokerd's own loader (brokerd/grants.h) before it
 * is put in place, and put there so that no reader ever sees part of it
 * and nothing is ever replaced (putfile.h: a temporary file the loader
 * skips, fsync, a rename that refuses an existing name, fsync of the
 * directory).
 *
 * Nothing here prints. Ownership: grantwrite_text() and
 * grantwrite_check() allocate *ret; the caller frees the text with free()
 * and the set with grants_free().
 */
#ifndef BXCTL_GRANTWRITE_H
#define BXCTL_GRANTWRITE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "brokerd/grants.h"
#include "proto/error.h"

/*
 * One grant's fields. The names are written as given, unchecked: the
 * loader judges them. paths or hosts may be empty; with both empty there
 * is no [constraints] table.
 */
struct grant_text {
	const char	*gt_comment;	/* printable ASCII lines, or NULL */
	const char	*gt_tool;
	const char	*gt_mode;
	const char	*gt_max_taint;
	const char	*gt_class;
	bool		 gt_untrusted;
	int64_t		 gt_expires;	/* ms since the epoch */
	const char	*const *gt_paths;
	size_t		 gt_npaths;
	const char	*const *gt_hosts;
	size_t		 gt_nhosts;
	const char	*gt_secret;	/* a secret's name, or NULL */
};

/* The file's text, NUL-terminated, into *ret (*ret_len bytes). */
int	grantwrite_text(const struct grant_text *, char **ret,
	    size_t *ret_len, struct bx_error *);

/*
 * Runs len bytes of buf through brokerd's loader as the file <dir>/<id>.toml
 * would be read: 0 with *ret a finished set, valid or not
 * (grants_valid(), its problems worded as brokerd words them). Fails when
 * id is not a grant id (in the loader's words) or memory runs out.
 */
int	grantwrite_check(const char *dir, const char *id, const char *buf,
	    size_t len, struct grants **ret, struct bx_error *);

/*
 * Writes buf as <dir>/<id>.toml, as above. Fails, leaving nothing behind,
 * if the loader refuses the text (err holds its first problem), the name
 * is taken (nothing is replaced), or a step of the write fails.
 */
int	grantwrite_put(const char *dir, const char *id, const char *buf,
	    size_t len, struct bx_error *);

/*
 * Removes <dir>/<id>.toml and syncs the directory. Only a regular file of
 * that name, for an id that is a grant id; anything else is refused.
 */
int	grantwrite_remove(const char *dir, const char *id, struct bx_error *);

/*
 * Removes <dir>/<id>.toml only if it still holds exactly bytes (len
 * bytes): the file is first renamed aside (a dot name the loader never
 * reads), so it leaves the set in one step, then read; a file that
 * changed since bytes were read is put back and *ret_removed is false.
 * The directory is synced either way. Fails with nothing changed, or
 * with the file put back, when a step fails.
 */
int	grantwrite_remove_same(const char *dir, const char *id,
	    const char *bytes, size_t len, bool *ret_removed,
	    struct bx_error *);

#endif
