/*
 * admin.c: the owner's requests on admin.sock. Each is answered from the
 * approvals table or a fresh read of the grants directory; nothing here
 * writes a record itself (the call's broker thread does). The console's
 * kinds are answered by admin_console.c and admin_explain.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/admin.h"
#include "brokerd/admin_console.h"
#include "proto/frame.h"

bool
admin_kind(enum bx_msg_kind kind)
{
	return kind == BX_MSG_APPROVALS || kind == BX_MSG_APPROVE ||
	    kind == BX_MSG_REFUSE || kind == BX_MSG_CHECK_GRANTS ||
	    kind == BX_MSG_SESSIONS || kind == BX_MSG_EXPLAIN ||
	    kind == BX_MSG_STATUS || kind == BX_MSG_LIST_GRANTS;
}

int
admin_add_pending(struct bx_msg *msg, const struct approvals_item *items,
    size_t n)
{
	struct bx_pending_approval p;
	size_t i;

	for (i = 0; i < n; i++) {
		memset(&p, 0, sizeof(p));
		p.approval = items[i].approval;
		p.session = (char *)items[i].session;
		p.call = (char *)items[i].call;
		p.tool = (char *)bx_tool_name(items[i].tool);
		p.arguments = items[i].arguments;
		p.grant = (char *)items[i].grant;
		p.taint = items[i].taint;
		p.created = items[i].created;
		p.expires = items[i].expires;
		if (bx_msg_add_pending(msg, &p) == -1)
			return -1;
	}
	return 0;
}

struct bx_msg *
admin_approvals(struct broker *b, struct bx_error *err)
{
	struct approvals_item *items;
	struct bx_msg *msg;
	size_t n;

	if (approvals_list(broker_config(b)->approvals, &items, &n, err) == -1)
		return NULL;
	if ((msg = bx_msg_new(BX_MSG_APPROVAL_LIST)) == NULL ||
	    admin_add_pending(msg, items, n) == -1) {
		bx_msg_free(msg);
		msg = NULL;
		bx_fail(err, "admin: out of memory");
	}
	approvals_items_free(items, n);
	return msg;
}

struct bx_msg *
admin_answer(struct broker *b, uint64_t id, enum approvals_answer ans,
    const struct approvals_from *from)
{
	struct bx_outcome out;
	struct bx_error err;

	if (approvals_answer(broker_config(b)->approvals, id, ans, from,
	    &out, &err) == -1)
		return bx_msg_error(BX_CODE_NO_SUCH_APPROVAL, err.msg);
	if (ans == APPROVALS_REFUSED)
		return bx_msg_new(BX_MSG_OK);
	return bx_msg_approve_result(&out);
}

/* admin.sock is the terminal: an answer claiming to be from Mattermost is not. */
static bool
from_mattermost(const struct bx_msg *req)
{
	if (req->kind == BX_MSG_APPROVE)
		return req->approve.by != NULL || req->approve.post != NULL;
	return req->refuse.by != NULL || req->refuse.post != NULL;
}

static struct bx_msg *
terminal_answer(struct broker *b, const struct bx_msg *req)
{
	struct approvals_from from = { NULL, NULL, NULL };

	if (from_mattermost(req))
		return bx_msg_error(BX_CODE_FORBIDDEN, "admin.sock answers "
		    "as the terminal: \"by\" and \"post\" are given only on "
		    "the bridge's socket");
	if (req->kind == BX_MSG_APPROVE)
		return admin_answer(b, req->approve.approval,
		    APPROVALS_APPROVED, &from);
	from.reason = req->refuse.reason;
	return admin_answer(b, req->refuse.approval, APPROVALS_REFUSED,
	    &from);
}

static struct bx_msg *
check(struct broker *b, struct bx_error *err)
{
	struct grants *set = NULL;
	struct bx_msg *msg = NULL;

	if (grants_load(broker_config(b)->grants_dir, &set, err) == -1)
		return NULL;
	if ((msg = bx_msg_new(BX_MSG_GRANTS_REPORT)) == NULL ||
	    admin_add_problems(msg, set) == -1)
		goto nomem;
	grants_free(set);
	return msg;
nomem:
	bx_msg_free(msg);
	grants_free(set);
	bx_fail(err, "admin: out of memory");
	return NULL;
}

int
admin_handle(struct broker *b, const struct bx_msg *req, struct bx_msg **ret,
    struct bx_error *err)
{
	struct bx_msg *msg;

	switch (req->kind) {
	case BX_MSG_APPROVALS:
		msg = admin_approvals(b, err);
		break;
	case BX_MSG_APPROVE:
	case BX_MSG_REFUSE:
		msg = terminal_answer(b, req);
		break;
	case BX_MSG_CHECK_GRANTS:
		msg = check(b, err);
		break;
	case BX_MSG_SESSIONS:
		msg = admin_sessions(b, err);
		break;
	case BX_MSG_EXPLAIN:
		msg = admin_explain(b, &req->explain, err);
		break;
	case BX_MSG_STATUS:
		msg = admin_status(b, err);
		break;
	case BX_MSG_LIST_GRANTS:
		msg = admin_list_grants(b, err);
		break;
	default:
		msg = bx_msg_error(BX_CODE_BAD_REQUEST, "not an admin request");
		break;
	}
	if (msg == NULL)
		return bx_fail(err, "admin: out of memory");
	*ret = msg;
	return 0;
}

int
admin_handle_fd(struct broker *b, int fd, const struct bx_msg *req,
    int timeout_ms, struct bx_error *err)
{
	struct bx_msg *answer = NULL;

	if (admin_handle(b, req, &answer, err) == -1)
		answer = NULL;
	return admin_send(fd, answer, err->msg, timeout_ms, err);
}

int
admin_send(int fd, struct bx_msg *answer, const char *why, int timeout_ms,
    struct bx_error *err)
{
	char *line = NULL;
	size_t len;
	int rc = -1;

	if (answer == NULL)
		answer = bx_msg_error(BX_CODE_INTERNAL, why);
	/* An answer that cannot be a frame (past 1 MiB) still gets one. */
	if (answer != NULL && bx_msg_encode(answer, &line, &len, err) == -1) {
		bx_msg_free(answer);
		answer = bx_msg_error(BX_CODE_INTERNAL, err->msg);
		if (answer != NULL && bx_msg_encode(answer, &line, &len,
		    err) == -1)
			line = NULL;
	}
	if (line == NULL)
		bx_fail(err, "admin: out of memory");
	else if (bx_frame_write(fd, line, len, timeout_ms, err) == BX_FRAME_OK)
		rc = 0;
	free(line);
	bx_msg_free(answer);
	return rc;
}
