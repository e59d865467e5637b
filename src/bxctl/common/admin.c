/*
 * admin.c: one admin request and its answer (admin.h).
 */
#include <unistd.h>

#include "bxctl/common/admin.h"
#include "bxctl/common/peer.h"
#include "bxctl/common/sock.h"

int
admin_call(const char *path, const struct bx_msg *req, enum bx_msg_kind want,
    struct bx_msg **ret, struct bx_error *err)
{
	struct bx_frame_reader fr;
	struct bx_msg *answer = NULL;
	int fd, rc = -1;

	if (sock_connect(path, "brokerd", &fd, err) == -1)
		return -1;
	bx_frame_reader_init(&fr, fd);
	if (bx_msg_send(fd, req, ADMIN_TIMEOUT_MS, err) == -1) {
		bx_error_prefix(err, "sending %s to brokerd at %s",
		    bx_msg_kind_name(req->kind), path);
		goto out;
	}
	if (peer_read(&fr, ADMIN_TIMEOUT_MS, "brokerd", &answer, NULL, NULL,
	    err) == -1)
		goto out;
	if (answer->kind == BX_MSG_ERROR) {
		peer_error(answer, "brokerd", err);
		goto out;
	}
	if (answer->kind != want) {
		bx_fail(err, "brokerd answered %s to %s",
		    bx_msg_kind_name(answer->kind),
		    bx_msg_kind_name(req->kind));
		goto out;
	}
	*ret = answer;
	answer = NULL;
	rc = 0;
out:
	bx_msg_free(answer);
	bx_frame_reader_free(&fr);
	close(fd);
	return rc;
}

int
admin_ask(const char *path, enum bx_msg_kind kind, enum bx_msg_kind want,
    struct bx_msg **ret, struct bx_error *err)
{
	struct bx_msg *req;
	int rc;

	if ((req = bx_msg_new(kind)) == NULL)
		return bx_fail(err, "out of memory");
	rc = admin_call(path, req, want, ret, err);
	bx_msg_free(req);
	return rc;
}
