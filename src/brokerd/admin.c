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

static struct bx_msg *
list(struct broker *b, struct bx_error *err)
{
	struct approvals_item *items;
	struct bx_pending_approval p;
	struct bx_msg *msg;
	size_t i, n;

	if (approvals_list(broker_config(b)->approvals, &items, &n, err) == -1)
		return NULL;
	if ((msg = bx_msg_new(BX_MSG_APPROVAL_LIST)) == NULL)
		goto nomem;
	for (i = 0; i < n; i++) {
		memset(&p, 0, sizeof(p));
		p.approval = items[i].approval;
		p.session = items[i].session;
		p.call = items[i].call;
		p.tool = (char *)bx_tool_name(items[i].tool);
		p.arguments = items[i].arguments;
		p.grant = items[i].grant;
		p.taint = items[i].taint;
		p.created = items[i].created;
		p.expires = items[i].expires;
		if (bx_msg_add_pending(msg, &p) == -1)
			goto nomem;
	}
	approvals_items_free(items, n);
	return msg;
nomem:
	bx_msg_free(msg);
	approvals_items_free(items, n);
	bx_fail(err, "admin: out of memory");
	return NULL;
}

static struct bx_msg *
answer(struct broker *b, uint64_t id, enum approvals_answer ans,
    const char *reason)
{
	struct bx_outcome out;
	struct bx_error err;

	if (approvals_answer(broker_config(b)->approvals, id, ans, reason,
	    &out, &err) == -1)
		return bx_msg_error(BX_CODE_NO_SUCH_APPROVAL, err.msg);
	if (ans == APPROVALS_REFUSED)
		return bx_msg_new(BX_MSG_OK);
	return bx_msg_approve_result(&out);
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
		msg = list(b, err);
		break;
	case BX_MSG_APPROVE:
		msg = answer(b, req->approve.approval, APPROVALS_APPROVED, NULL);
		break;
	case BX_MSG_REFUSE:
		msg = answer(b, req->refuse.approval, APPROVALS_REFUSED,
		    req->refuse.reason);
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
	char *line = NULL;
	size_t len;
	int rc = -1;

	if (admin_handle(b, req, &answer, err) == -1)
		answer = bx_msg_error(BX_CODE_INTERNAL, err->msg);
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
