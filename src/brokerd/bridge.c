/*
 * bridge.c: bxbridge's requests on bridge.sock (bridge.h). Listing and
 * answering are admin.c's, so that an answer from Mattermost is decided
 * and recorded exactly as one from the terminal; only the wait for changes
 * is the bridge's own.
 */
#include <stdlib.h>
#include <string.h>

#include "brokerd/admin.h"
#include "brokerd/bridge.h"

bool
bridge_kind(enum bx_msg_kind kind)
{
	return kind == BX_MSG_APPROVALS || kind == BX_MSG_APPROVALS_WAIT ||
	    kind == BX_MSG_APPROVE || kind == BX_MSG_REFUSE;
}

static enum bx_end
end_of(enum approvals_answer a)
{
	switch (a) {
	case APPROVALS_APPROVED:
		return BX_END_APPROVED;
	case APPROVALS_REFUSED:
		return BX_END_REFUSED;
	case APPROVALS_EXPIRED:
		return BX_END_EXPIRED;
	case APPROVALS_ABANDONED:
		return BX_END_ABANDONED;
	default:
		return BX_END_FORGOTTEN;
	}
}

/* Adds how e ended; its outcome only when an Approval record says it. */
static int
add_ended(struct bx_msg *msg, const struct approvals_ended *e)
{
	struct bx_ended_approval x;

	memset(&x, 0, sizeof(x));
	x.approval = e->approval;
	x.end = end_of(e->answer);
	x.by = e->by[0] != '\0' ? (char *)e->by : NULL;
	x.post = e->post[0] != '\0' ? (char *)e->post : NULL;
	x.has_outcome = e->recorded && (x.end == BX_END_APPROVED ||
	    x.end == BX_END_REFUSED || x.end == BX_END_EXPIRED);
	x.outcome = e->outcome;
	return bx_msg_add_ended(msg, &x);
}

static struct bx_msg *
wait_changes(struct broker *b, const struct bx_approvals_wait *w,
    struct bx_error *err)
{
	struct approvals_changes c;
	struct bx_msg *msg;
	size_t i;

	if (approvals_changes(broker_config(b)->approvals, w->known,
	    w->nknown, (int)w->timeout_ms, &c, err) == -1)
		return NULL;
	if ((msg = bx_msg_new(BX_MSG_APPROVAL_CHANGES)) == NULL ||
	    admin_add_pending(msg, c.items, c.nitems) == -1)
		goto nomem;
	for (i = 0; i < c.nended; i++)
		if (add_ended(msg, &c.ended[i]) == -1)
			goto nomem;
	approvals_changes_clear(&c);
	return msg;
nomem:
	bx_msg_free(msg);
	approvals_changes_clear(&c);
	bx_fail(err, "bridge: out of memory");
	return NULL;
}

/* An answer from Mattermost: who gave it and where, or it is refused. */
static struct bx_msg *
mattermost_answer(struct broker *b, const struct bx_msg *req)
{
	struct approvals_from from = { NULL, NULL, NULL };
	enum approvals_answer ans;
	uint64_t id;

	if (req->kind == BX_MSG_APPROVE) {
		ans = APPROVALS_APPROVED;
		id = req->approve.approval;
		from.by = req->approve.by;
		from.post = req->approve.post;
	} else {
		ans = APPROVALS_REFUSED;
		id = req->refuse.approval;
		from.reason = req->refuse.reason;
		from.by = req->refuse.by;
		from.post = req->refuse.post;
	}
	if (from.by == NULL || from.post == NULL)
		return bx_msg_error(BX_CODE_BAD_REQUEST, "an answer on "
		    "bridge.sock names the Mattermost user who gave it "
		    "(\"by\") and the request's post (\"post\")");
	return admin_answer(b, id, ans, &from);
}

int
bridge_handle(struct broker *b, const struct bx_msg *req, struct bx_msg **ret,
    struct bx_error *err)
{
	struct bx_msg *msg;

	switch (req->kind) {
	case BX_MSG_APPROVALS:
		msg = admin_approvals(b, err);
		break;
	case BX_MSG_APPROVALS_WAIT:
		msg = wait_changes(b, &req->approvals_wait, err);
		break;
	case BX_MSG_APPROVE:
	case BX_MSG_REFUSE:
		msg = mattermost_answer(b, req);
		break;
	default:
		msg = bx_msg_error(BX_CODE_FORBIDDEN, "bridge.sock takes only "
		    "approvals, approvals_wait, approve and refuse");
		break;
	}
	if (msg == NULL)
		return bx_fail(err, "bridge: out of memory");
	*ret = msg;
	return 0;
}

int
bridge_handle_fd(struct broker *b, int fd, const struct bx_msg *req,
    int timeout_ms, struct bx_error *err)
{
	struct bx_msg *answer = NULL;

	if (bridge_handle(b, req, &answer, err) == -1)
		answer = NULL;
	return admin_send(fd, answer, err->msg, timeout_ms, err);
}
