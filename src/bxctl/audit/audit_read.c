/*
 * audit_read.c: the whole audit log through the ChainVerifier, for bxctl
 * (audit_read.h).
 */
#include <sys/file.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/audit/audit_read.h"
#include "proto/audit_walk.h"
#include "proto/defaults.h"

int
audit_home(const char *home, char *buf, struct bx_error *err)
{
	struct bx_defaults defaults;

	if (home == NULL) {
		if (bx_defaults_get(&defaults, err) == -1)
			return -1;
		home = defaults.d_home;
	}
	if (strlen(home) >= PATH_MAX)
		return bx_fail(err, "the home path is too long");
	memcpy(buf, home, strlen(home) + 1);
	return 0;
}

int
audit_dir(const char *home, char *buf, struct bx_error *err)
{
	if ((size_t)snprintf(buf, PATH_MAX, "%s/audit", home) >= PATH_MAX)
		return bx_fail(err, "the home path is too long");
	return 0;
}

int
audit_writer(const char *dir, struct bx_error *err)
{
	char path[PATH_MAX];
	int fd, rc;

	if ((size_t)snprintf(path, sizeof(path), "%s/.lock", dir) >=
	    sizeof(path))
		return bx_fail(err, "the home path is too long");
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1)
		return errno == ENOENT ? 0 : bx_fail(err, "cannot open %s: %s",
		    path, strerror(errno));
	if ((rc = flock(fd, LOCK_SH | LOCK_NB)) == -1 && errno != EWOULDBLOCK)
		rc = bx_fail(err, "cannot look at the lock %s: %s", path,
		    strerror(errno));
	else
		rc = rc == -1 ? 1 : 0;
	/* Closing drops the shared lock if it was taken. */
	close(fd);
	return rc;
}

int
audit_read(const char *home, bx_chain_record_fn fn, void *ctx,
    struct bx_chain_report **ret, struct bx_error *err)
{
	struct bx_audit_walk *w;
	struct bx_chain *c;
	char dir[PATH_MAX];
	int rc;

	if (audit_dir(home, dir, err) == -1 ||
	    bx_audit_walk_open(dir, &w, err) == -1)
		return -1;
	if ((c = bx_chain_new()) == NULL) {
		bx_audit_walk_close(w);
		return bx_fail(err, "out of memory");
	}
	if (fn != NULL)
		bx_chain_on_record(c, fn, ctx);
	if (bx_audit_walk_step(w, c, false, err) == -1) {
		bx_chain_free(c);
		bx_audit_walk_close(w);
		return -1;
	}
	/* The walk's last mapping stays until the hook has seen its line. */
	rc = bx_chain_finish(c, ret, err);
	bx_audit_walk_close(w);
	return rc;
}
