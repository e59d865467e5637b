/*
 * filter.c: brokerd's system-call filter (brokerd's seccomp.h), installed
 * by bxtool itself in a podman sandbox, before it does anything else, so
 * that the tool and everything it starts run under it. podman cannot add
 * a filter to its own, so brokerd puts the program at BXT_SECCOMP; bwrap
 * installs the same program before bxtool starts, and mounts nothing
 * there, so that no file means "already in place".
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/filterfile.h"

#define BXT_SECCOMP	"/.boxmaker/seccomp"

int
bxt_filter_install(struct bxt_outcome *out)
{
	static struct bx_filter_prog prog;
	struct bx_error err;
	int fd, rc;

	if ((fd = open(BXT_SECCOMP, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		if (errno == ENOENT)
			return 0;
		bxt_fail(out, "cannot open %s: %s", BXT_SECCOMP,
		    strerror(errno));
		return -1;
	}
	rc = bx_filter_read(fd, BXT_SECCOMP, &prog, &err);
	close(fd);
	if (rc == 0)
		rc = bx_filter_install(&prog, &err);
	if (rc == -1)
		bxt_fail(out, "%s", err.msg);
	return rc;
}
