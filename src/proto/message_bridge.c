/*
 * message_bridge.c: the constructors of the bridge's own kinds
 * (message_bridge.h). What frees them is message_alloc.c; the codec is
 * message_bridge_codec.c.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/message_alloc.h"
#include "proto/message_bridge.h"

struct bx_msg *
bx_msg_approvals_wait(const uint64_t *known, size_t n, int64_t timeout_ms)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_APPROVALS_WAIT);

	if (m == NULL)
		return NULL;
	m->approvals_wait.timeout_ms = timeout_ms;
	if (n == 0)
		return m;
	if ((m->approvals_wait.known = calloc(n, sizeof(*known))) == NULL) {
		bx_msg_free(m);
		return NULL;
	}
	memcpy(m->approvals_wait.known, known, n * sizeof(*known));
	m->approvals_wait.nknown = n;
	return m;
}

int
bx_msg_add_ended(struct bx_msg *m, const struct bx_ended_approval *e)
{
	struct bx_approval_changes *c = &m->approval_changes;
	struct bx_ended_approval *ended, *q;
	bool failed = false;

	if ((ended = bx_msg_grow(c->ended, c->nended, sizeof(*ended))) == NULL)
		return -1;
	c->ended = ended;
	q = &ended[c->nended];
	*q = *e;
	q->by = q->post = NULL;
	bx_msg_copy(&q->by, e->by, &failed);
	bx_msg_copy(&q->post, e->post, &failed);
	if (failed) {
		free(q->by);
		free(q->post);
		return -1;
	}
	c->nended++;
	return 0;
}
