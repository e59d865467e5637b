/*
 * secretdir.c: the secrets directory made and checked (secretdir.h).
 */
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "brokerd/secret.h"
#include "bxctl/secrets/secretdir.h"
#include "proto/writefile.h"

int
secretdir_path(const char *config_dir, char *buf, size_t size,
    struct bx_error *err)
{
	if ((size_t)snprintf(buf, size, "%s/%s", config_dir, SECRET_DIR) >=
	    size)
		return bx_fail(err, "%s: the path of the secrets directory is "
		    "too long", config_dir);
	return 0;
}

/* Keeps the first problem the reader reports, as FILE[:LINE]: TEXT. */
static int
first(void *ctx, const char *file, int64_t line, const char *problem)
{
	struct bx_error *e = ctx;

	if (e->msg[0] != '\0')
		return 0;
	if (line > 0)
		bx_fail(e, "%s:%lld: %s", file, (long long)line, problem);
	else
		bx_fail(e, "%s: %s", file, problem);
	return 0;
}

int
secretdir_make(const char *config_dir, struct bx_error *err)
{
	struct bx_error found = { .msg = "" };
	struct secret_sink sink = { first, &found };
	char dir[4096];
	int rc;

	if (secretdir_path(config_dir, dir, sizeof(dir), err) == -1)
		return -1;
	if (mkdir(dir, SECRET_DIR_MODE) == 0) {
		/* The umask may have taken bits the reader demands. */
		if (chmod(dir, SECRET_DIR_MODE) == -1)
			return bx_fail(err, "cannot set the mode of %s: %s", dir,
			    strerror(errno));
		if (bx_fsync_dir(config_dir) == -1)
			return bx_fail(err, "cannot sync %s: %s", config_dir,
			    strerror(errno));
	} else if (errno != EEXIST)
		return bx_fail(err, "cannot create %s: %s", dir,
		    strerror(errno));
	if ((rc = secret_dir_check(config_dir, &sink, err)) == -1)
		return -1;
	if (rc == 1)
		return bx_fail(err, "%s", found.msg);
	return 0;
}
