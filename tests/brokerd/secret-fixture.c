/* secret-fixture.c: secret files for the tests (secret-fixture.h). */
#include <sys/stat.h>

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "grants-fixture.h"
#include "secret-fixture.h"

char *
fixture_config_dir(void)
{
	char *dir = fixture_dir(), path[4096];

	snprintf(path, sizeof(path), "%s/secrets", dir);
	if (mkdir(path, 0700) == -1)
		fail_msg("mkdir %s: %s", path, strerror(errno));
	return dir;
}

void
fixture_secret_bytes(const char *config_dir, const char *name,
    const char *buf, size_t len)
{
	char sdir[4096], entry[128], path[4300];

	snprintf(sdir, sizeof(sdir), "%s/secrets", config_dir);
	snprintf(entry, sizeof(entry), "%s.toml", name);
	fixture_write(sdir, entry, buf, len);
	snprintf(path, sizeof(path), "%s/%s", sdir, entry);
	if (chmod(path, 0600) == -1)
		fail_msg("chmod %s: %s", path, strerror(errno));
}

void
fixture_secret(const char *config_dir, const char *name, const char *text)
{
	fixture_secret_bytes(config_dir, name, text, strlen(text));
}
