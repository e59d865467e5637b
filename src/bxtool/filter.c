/*
 * filter.c: brokerd's system-call filter (brokerd's seccomp.h), installed
 * by bxtool itself in a podman sandbox, before it does anything else, so
 * that the tool and everything it starts run under it. podman cannot add
 * a filter to its own, so brokerd puts the program at BXT_SECCOMP; bwrap
 * installs the same program before bxtool starts, and mounts nothing
 * there, so that no file means "already in place".
 */
#include <errno.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/filterfile.h"

#define BXT_SECCOMP	"/.boxmaker/seccomp"

int
bxt_filter_install(struct bxt_outcome *out)
{
	static struct bx_filter_prog prog;
	struct bx_error err;

	if (access(BXT_SECCOMP, F_OK) == -1 && errno == ENOENT)
		return 0;
	if (bx_filter_load(BXT_SECCOMP, &prog, &err) == -1 ||
	    bx_filter_install(&prog, &err) == -1) {
		bxt_fail(out, "%s", err.msg);
		return -1;
	}
	return 0;
}
