/*
 * serve_request.c: one request on any of brokerd's sockets
 * (serve_request.h). A kind the socket does not take is error forbidden,
 * logged with the runbook entry, before any handler sees it.
 */
#include "brokerd/admin.h"
#include "brokerd/bridge.h"
#include "brokerd/serve_poll.h"
#include "brokerd/serve_request.h"
#include "brokerd/serve_socket.h"
#include "proto/message.h"

static const char *sock_names[SOCK_COUNT] = {
	"broker.sock", "admin.sock", "bridge.sock"
};

const char *
serve_request_socket(int which)
{
	return which >= 0 && which < SOCK_COUNT ? sock_names[which] : "?";
}

static bool
allowed(int which, enum bx_msg_kind kind)
{
	if (which == SOCK_BROKER)
		return kind == BX_MSG_TOOL_REQUEST;
	if (which == SOCK_BRIDGE)
		return bridge_kind(kind);
	return admin_kind(kind);
}

void
serve_request_run(struct broker *b, int which, int fd, const char *line,
    size_t len, const char *path, int timeout_ms)
{
	struct bx_msg *req = NULL;
	struct bx_error err;

	if (bx_msg_decode(line, len, &req, &err) == -1)
		serve_refuse(fd, BX_CODE_BAD_REQUEST, err.msg, timeout_ms);
	else if (!allowed(which, req->kind)) {
		broker_log(b, "serve: a %s message on %s (%s) is forbidden; "
		    "the connection is closed; "
		    "see docs/runbook.md#socket-forbidden",
		    bx_msg_kind_name(req->kind), sock_names[which], path);
		serve_refuse(fd, BX_CODE_FORBIDDEN, "this socket does not "
		    "take that kind of message", timeout_ms);
	} else if (which == SOCK_BROKER)
		broker_call_fd(b, fd, &req->tool_request, timeout_ms, &err);
	else if (which == SOCK_BRIDGE)
		bridge_handle_fd(b, fd, req, timeout_ms, &err);
	else
		admin_handle_fd(b, fd, req, timeout_ms, &err);
	bx_msg_free(req);
}
