/*
 * filter.c: brokerd's system-call filter (brokerd's seccomp.h), installed
 * by bxtool itself in a podman sandbox, before it does anything else, so
 * that the tool and everything it starts run under it. podman cannot add
 * a filter to its own, so brokerd puts the program at BXT_SECCOMP; bwrap
 * installs the same program before bxtool starts, and mounts nothing
 * there, so that no file means "already in place".
 */
#include <sys/prctl.h>

#include <linux/filter.h>
#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"

#define BXT_SECCOMP	"/.boxmaker/seccomp"

int
bxt_filter_install(struct bxt_outcome *out)
{
	/* One instruction more than the kernel takes, to tell too long. */
	static struct sock_filter prog[BPF_MAXINSNS + 1];
	struct sock_fprog fprog;
	size_t len = 0;
	ssize_t n;
	int fd;

	if ((fd = open(BXT_SECCOMP, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)) == -1) {
		if (errno == ENOENT)
			return 0;
		bxt_fail(out, "cannot open %s: %s", BXT_SECCOMP,
		    strerror(errno));
		return -1;
	}
	while (len < sizeof(prog) && ((n = read(fd, (char *)prog + len,
	    sizeof(prog) - len)) != 0)) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		len += (size_t)n;
	}
	close(fd);
	if (len == 0 || len % sizeof(prog[0]) != 0 ||
	    len > BPF_MAXINSNS * sizeof(prog[0])) {
		bxt_fail(out, "%s is not a filter program (%zu bytes)",
		    BXT_SECCOMP, len);
		return -1;
	}
	fprog.len = (unsigned short)(len / sizeof(prog[0]));
	fprog.filter = prog;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == -1) {
		bxt_fail(out, "cannot install the system-call filter: %s",
		    strerror(errno));
		return -1;
	}
	return 0;
}
