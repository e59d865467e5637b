/*
 * filterfile.c: reading and installing a system-call filter program
 * (filterfile.h). Shared by bxtool and bxegress, so it needs only libc
 * and proto/readfile.c's checks.
 */
#include <sys/prctl.h>

#include <linux/seccomp.h>

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>

#include "proto/filterfile.h"
#include "proto/readfile.h"

int
bx_filter_read(int fd, const char *name, struct bx_filter_prog *ret,
    struct bx_error *err)
{
	/* One instruction more than the kernel takes, to tell too long. */
	struct sock_filter buf[BPF_MAXINSNS + 1];
	size_t len = 0;
	ssize_t n;

	while (len < sizeof(buf)) {
		n = read(fd, (char *)buf + len, sizeof(buf) - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return bx_fail(err, "cannot read %s: %s", name,
			    strerror(errno));
		if (n == 0)
			break;
		len += (size_t)n;
	}
	if (len == 0 || len % sizeof(buf[0]) != 0 ||
	    len > sizeof(ret->fp_insns))
		return bx_fail(err, "%s is not a filter program (%zu bytes)",
		    name, len);
	memcpy(ret->fp_insns, buf, len);
	ret->fp_len = (unsigned short)(len / sizeof(buf[0]));
	return 0;
}

int
bx_filter_load(const char *path, struct bx_filter_prog *ret,
    struct bx_error *err)
{
	enum bx_readfile_why why;
	size_t size;
	int fd, rc;

	if (bx_readfile_open(AT_FDCWD, path, path, O_NOFOLLOW,
	    sizeof(ret->fp_insns), &fd, &size, &why, err) == -1)
		return -1;
	rc = bx_filter_read(fd, path, ret, err);
	close(fd);
	return rc;
}

int
bx_filter_install(const struct bx_filter_prog *prog, struct bx_error *err)
{
	struct sock_fprog fprog;

	fprog.len = prog->fp_len;
	fprog.filter = (struct sock_filter *)prog->fp_insns;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fprog) == -1)
		return bx_fail(err, "cannot install the system-call filter: "
		    "%s", strerror(errno));
	return 0;
}
