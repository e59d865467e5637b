/*
 * secret-fixture.h: configuration directories holding secret files, for
 * the tests of secret.c, secret_call.c and broker_run.c. Like
 * grants-fixture.h, every function fails the running test (cmocka)
 * instead of returning an error.
 *
 * Ownership: fixture_config_dir() returns a malloc'd path the caller frees
 * after fixture_remove() (grants-fixture.h).
 */
#ifndef TESTS_BROKERD_SECRET_FIXTURE_H
#define TESTS_BROKERD_SECRET_FIXTURE_H

#include <stddef.h>

/* A new fixture_dir() holding secrets/ of mode 0700. */
char	*fixture_config_dir(void);
/* Writes len bytes as config_dir/secrets/<name>.toml, mode 0600. */
void	 fixture_secret_bytes(const char *config_dir, const char *name,
	    const char *buf, size_t len);
/* Writes the C string text the same way. */
void	 fixture_secret(const char *config_dir, const char *name,
	    const char *text);

#endif
