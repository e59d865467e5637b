/*
 * grants-fixture.h: temporary grant directories for the brokerd decision
 * core's tests. Every function fails the running test (cmocka) instead of
 * returning an error, so tests stay short.
 *
 * Ownership: fixture_dir() returns a malloc'd path the caller frees after
 * fixture_remove(), which deletes the directory and all it holds.
 */
#ifndef TESTS_BROKERD_GRANTS_FIXTURE_H
#define TESTS_BROKERD_GRANTS_FIXTURE_H

#include <stddef.h>

/* A new empty directory under $TMPDIR (or /tmp). */
char	*fixture_dir(void);
/* Writes len bytes as dir/name, replacing any file there. */
void	 fixture_write(const char *dir, const char *name, const char *buf,
	    size_t len);
/* Writes the C string text as dir/name. */
void	 fixture_text(const char *dir, const char *name, const char *text);
/*
 * Writes dir/<id>.toml with the common fields and the constraints given
 * as TOML text (e.g. "paths = [\"/a\"]"), expiring at expires.
 */
void	 fixture_grant(const char *dir, const char *id, const char *tool,
	    const char *mode, const char *max_taint, const char *expires,
	    const char *constraints);
void	 fixture_unlink(const char *dir, const char *name);
/* Removes dir and everything below it. */
void	 fixture_remove(const char *dir);

#endif
