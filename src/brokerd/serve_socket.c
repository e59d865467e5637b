/*
 * serve_socket.c: serve's descriptor budget, the refusal a connection past
 * it (or otherwise refused) gets, and the ACL entries of broker.sock for
 * loopd's jail and of bridge.sock for the bridge's. Split from serve.c so that file keeps to the threads; the socket
 * files themselves are libboxproto's (proto/unixsock.h).
 */
#include <sys/resource.h>
#include <sys/stat.h>

#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "brokerd/serve_socket.h"
#include "proto/acl.h"

size_t
serve_socket_fit(size_t want)
{
	struct rlimit rl;
	rlim_t need = (rlim_t)want + SERVE_FD_RESERVE;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return want;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max > need ? need : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return want;
	return rl.rlim_cur > SERVE_FD_RESERVE + 1 ?
	    (size_t)(rl.rlim_cur - SERVE_FD_RESERVE) : 1;
}

bool
serve_socket_room(size_t jail_open, size_t admin_open, size_t max,
    bool for_jail)
{
	size_t reserve = max / 2 < SERVE_ADMIN_RESERVE ? max / 2 :
	    SERVE_ADMIN_RESERVE;

	if (for_jail)
		max -= reserve;
	return jail_open + admin_open < max;
}

void
serve_refuse(int fd, enum bx_code code, const char *message, int timeout_ms)
{
	struct bx_msg *msg = bx_msg_error(code, message);

	if (msg != NULL)
		bx_msg_send(fd, msg, timeout_ms, NULL);
	bx_msg_free(msg);
}

int
serve_socket_open_to(const char *path, struct bx_unix_file *made, uid_t uid,
    const char *jail, struct bx_error *err)
{
	char dir[PATH_MAX], *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) == NULL)
		snprintf(dir, sizeof(dir), ".");
	else
		slash[slash == dir ? 1 : 0] = '\0';
	if (bx_acl_allow(dir, uid, BX_ACL_EXEC, false, err) == -1 ||
	    bx_acl_allow(path, uid, BX_ACL_READ | BX_ACL_WRITE, false,
	    err) == -1)
		return bx_error_prefix(err, "%s (uid %u) cannot connect to %s",
		    jail, (unsigned)uid, path);
	/*
	 * The entry changed the socket's ctime; it is still the file we
	 * made, and the one stopping must remove.
	 */
	if (stat(path, &st) == -1 || st.st_dev != made->uf_dev ||
	    st.st_ino != made->uf_ino)
		return bx_fail(err, "%s was replaced while brokerd started",
		    path);
	made->uf_ctime = st.st_ctim;
	return 0;
}
