/*
 * bridge.c: the bridge's loop (bridge.h): brokerd's pending approvals
 * followed on bridge.sock (bridge_broker.h), posted, read and patched on
 * the Mattermost side (bridge_mm.h), the map of posts kept in
 * posts.json (bridge_posts.h) and the state in state.json
 * (bridge_state.h).
 *
 * One thread. Each round waits on brokerd for at most poll_s (at once
 * when something needs a look), takes what changed, then, when the
 * server may be asked, patches the ended posts, posts the new approvals
 * and reads the pending posts' answers, and writes the state.
 */
#include <sys/stat.h>

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>

#include "bxbridge/bridge.h"
#include "bxbridge/bridge_broker.h"
#include "bxbridge/bridge_mm.h"
#include "bxbridge/render.h"
#include "mm.h"
#include "proto/clock.h"
#include "proto/message.h"
#include "proto/writefile.h"

struct bridge {
	const struct bridge_config *b_cfg;
	const char		*b_dir;
	int			 b_stop_fd;
	struct bridge_state	 b_state;
	struct bridge_mm	 b_mm;
	struct bridge_posts	*b_posts;
	struct bx_msg		*b_changes;	/* the last approval_changes */
	bool			 b_hurry;	/* look again at once */
	int64_t			 b_broker_next;	/* monotonic ms */
	unsigned int		 b_broker_failures;
};

/* Waits up to seconds for stop_fd: true if it became readable. */
static bool
stop_within(int stop_fd, int seconds)
{
	struct pollfd pfd = { .fd = stop_fd, .events = POLLIN };
	int r;

	do
		r = poll(&pfd, 1, seconds * 1000);
	while (r == -1 && errno == EINTR);
	return r > 0;
}

/* Whether approval is among brokerd's pending ones, as last told. */
static bool
still_pending(void *arg, uint64_t approval)
{
	struct bridge *b = arg;
	size_t i;

	if (b->b_changes == NULL)
		return false;
	for (i = 0; i < b->b_changes->approval_changes.nitems; i++)
		if (b->b_changes->approval_changes.items[i].approval ==
		    approval)
			return true;
	return false;
}

/* The ids brokerd is to compare with: those pending, and those posted. */
static uint64_t *
known_ids(struct bridge *b, size_t *ret_n)
{
	size_t i, n = 0, npending = 0, nposts = bridge_posts_count(b->b_posts);
	struct bridge_post *e;
	uint64_t *ids;

	if (b->b_changes != NULL)
		npending = b->b_changes->approval_changes.nitems;
	if ((ids = calloc(npending + nposts + 1, sizeof(*ids))) == NULL)
		return NULL;
	for (i = 0; i < npending; i++)
		ids[n++] = b->b_changes->approval_changes.items[i].approval;
	for (i = 0; i < nposts; i++) {
		e = bridge_posts_at(b->b_posts, i);
		if (e->bp_patch == NULL &&
		    !still_pending(b, e->bp_approval->approval))
			ids[n++] = e->bp_approval->approval;
	}
	/* brokerd takes at most BX_WAIT_KNOWN_MAX: the rest waits. */
	*ret_n = n < BX_WAIT_KNOWN_MAX ? n : BX_WAIT_KNOWN_MAX;
	return ids;
}

/* Sets the text e's post is to be patched to, as o says. */
static void
retire(struct bridge *b, struct bridge_post *e, const struct render_outcome *o)
{
	struct bx_error err;
	char *text = NULL;

	if (render_outcome(e->bp_approval, o, &text, &err) == -1) {
		bridge_state_error(&b->b_state, err.msg);
		return;
	}
	if (bridge_post_set(&e->bp_patch, text) == -1)
		bridge_state_error(&b->b_state, "out of memory");
	free(text);
}

/* The patched post of an ended approval, from what brokerd said. */
static void
ended(struct bridge *b, const struct bx_ended_approval *end)
{
	struct bridge_post *e = bridge_posts_find(b->b_posts, end->approval);
	struct render_outcome o = { 0 };

	if (e == NULL || e->bp_patch != NULL)
		return;
	o.ro_where = end->by != NULL ? RENDER_MATTERMOST : RENDER_TERMINAL;
	switch (end->end) {
	case BX_END_APPROVED:
		o.ro_result = RENDER_APPROVED;
		o.ro_decision = end->has_outcome ? &end->outcome : NULL;
		break;
	case BX_END_REFUSED:
		o.ro_result = RENDER_REFUSED;
		/* brokerd does not repeat the reason: the bridge's own. */
		o.ro_reason = end->by != NULL ? e->bp_reason : NULL;
		break;
	case BX_END_EXPIRED:
		o.ro_result = RENDER_EXPIRED;
		break;
	default:
		o.ro_result = RENDER_GONE;
		break;
	}
	retire(b, e, &o);
}

static bool
same_text(const char *a, const char *b)
{
	return a != NULL && b != NULL && strcmp(a, b) == 0;
}

/*
 * A pending approval whose id a post holds, but which is not the one
 * posted (approval ids are the audit log's and do not repeat, but a
 * replaced home could): the old post is retired, so that no answer to it
 * decides another call; the new one is posted once it is.
 */
static void
check_posted(struct bridge *b, const struct bx_pending_approval *pa)
{
	struct bridge_post *e = bridge_posts_find(b->b_posts, pa->approval);
	const struct bx_pending_approval *old;
	struct render_outcome o = { .ro_result = RENDER_GONE };

	if (e == NULL || e->bp_patch != NULL)
		return;
	old = e->bp_approval;
	if (same_text(old->session, pa->session) &&
	    same_text(old->call, pa->call) && old->created == pa->created)
		return;
	retire(b, e, &o);
}

/* One approvals_wait: 0 when taken, 1 on stop, -1 when brokerd failed. */
static int
broker_round(struct bridge *b, int timeout_ms)
{
	struct bx_msg *changes = NULL;
	struct bx_error err;
	uint64_t *known;
	size_t i, n;
	int r;

	if ((known = known_ids(b, &n)) == NULL) {
		bridge_state_error(&b->b_state, "out of memory");
		return -1;
	}
	r = bridge_broker_wait(b->b_cfg->bc_broker_socket, known, n,
	    timeout_ms, b->b_stop_fd, &changes, &err);
	free(known);
	if (r == 1)
		return 1;
	if (r == -1) {
		bridge_state_error(&b->b_state, err.msg);
		b->b_state.bs_broker_up = false;
		b->b_broker_next = bx_clock_mono_ms() +
		    mm_backoff_s(++b->b_broker_failures) * 1000LL;
		return -1;
	}
	b->b_state.bs_broker_up = true;
	b->b_broker_failures = 0;
	b->b_hurry = false;
	for (i = 0; i < changes->approval_changes.nended; i++)
		ended(b, &changes->approval_changes.ended[i]);
	for (i = 0; i < changes->approval_changes.nitems; i++)
		check_posted(b, &changes->approval_changes.items[i]);
	bx_msg_free(b->b_changes);
	b->b_changes = changes;
	return 0;
}

/* An owner's answer found on a post: brokerd is told, by and post. */
static int
answered(void *arg, struct bridge_post *e, const struct answer *a)
{
	struct bridge *b = arg;
	const char *owner = b->b_cfg->bc_owner;
	uint64_t id = e->bp_approval->approval;
	struct bx_msg *req, *answer = NULL;
	struct bx_error err;
	int r;

	if (a->a_verdict == ANSWER_APPROVE)
		req = bx_msg_approve_from(id, owner, e->bp_post);
	else
		req = bx_msg_refuse_from(id, a->a_reason[0] != '\0' ?
		    a->a_reason : NULL, owner, e->bp_post);
	if (req == NULL ||
	    (a->a_verdict == ANSWER_REFUSE && a->a_reason[0] != '\0' &&
	    bridge_post_set(&e->bp_reason, a->a_reason) == -1)) {
		bx_msg_free(req);
		bridge_state_error(&b->b_state, "out of memory");
		return -1;
	}
	r = bridge_broker_call(b->b_cfg->bc_broker_socket, req, 0, -1,
	    &answer, &err);
	bx_msg_free(req);
	if (r != 0) {
		bridge_state_error(&b->b_state, err.msg);
		return -1;
	}
	/*
	 * Answered, or no longer pending (the terminal was first, or it
	 * expired): either way brokerd's next changes say how it ended.
	 */
	if (answer->kind == BX_MSG_ERROR &&
	    answer->error.code != BX_CODE_NO_SUCH_APPROVAL) {
		bx_fail(&err, "brokerd answered error %s to approval %llu's "
		    "answer: %s", bx_code_name(answer->error.code),
		    (unsigned long long)id, answer->error.message);
		bridge_state_error(&b->b_state, err.msg);
	}
	bx_msg_free(answer);
	b->b_hurry = true;
	return 0;
}

/* The Mattermost side of a round, as far as the server lets it go. */
static void
mm_round(struct bridge *b)
{
	const struct bx_approval_changes *c;
	size_t i;

	if (!b->b_mm.m_ready && !bridge_mm_connect(&b->b_mm))
		return;
	if (!bridge_mm_patch(&b->b_mm, b->b_posts))
		return;
	if (b->b_changes == NULL)
		return;
	c = &b->b_changes->approval_changes;
	for (i = 0; i < c->nitems; i++)
		if (bridge_posts_find(b->b_posts, c->items[i].approval) ==
		    NULL && !bridge_mm_post(&b->b_mm, b->b_posts,
		    &c->items[i]))
			return;
	bridge_mm_answers(&b->b_mm, b->b_posts, still_pending, answered, b);
}

static int
serve_loop(struct bridge *b, struct bx_error *err)
{
	int poll_ms = b->b_cfg->bc_poll_s * 1000;
	int r;

	for (;;) {
		if (bx_clock_mono_ms() < b->b_broker_next) {
			if (stop_within(b->b_stop_fd, b->b_cfg->bc_poll_s))
				return 0;
		} else {
			r = broker_round(b, b->b_hurry ? 0 : poll_ms);
			if (r == 1)
				return 0;
			if (r == 0 && bridge_mm_due(&b->b_mm))
				mm_round(b);
		}
		b->b_state.bs_pending_posts = bridge_posts_pending(b->b_posts);
		if (bridge_state_write(&b->b_state, b->b_dir, err) == -1)
			return -1;
	}
}

int
bridge_serve(const struct bridge_config *cfg, const char *token,
    const char *mm_socket, const char *state_dir, pid_t pid, int stop_fd,
    struct bx_error *err)
{
	struct bridge b;
	int rc = -1;

	memset(&b, 0, sizeof(b));
	b.b_cfg = cfg;
	b.b_dir = state_dir;
	b.b_stop_fd = stop_fd;
	/* The first round looks at once: posts.json's ones may have ended. */
	b.b_hurry = true;
	bridge_state_init(&b.b_state, pid);
	if (bx_mkdir_private(state_dir, err) == -1)
		return -1;
	if (bridge_posts_load(state_dir, &b.b_posts, err) == -1)
		return -1;
	if (bridge_mm_open(&b.b_mm, cfg, token, mm_socket, &b.b_state,
	    err) == -1)
		goto out;
	/*
	 * state.json is first written after the first round, which tells
	 * how brokerd is: before it, "broker" could only be a guess.
	 */
	rc = serve_loop(&b, err);
out:
	bridge_mm_close(&b.b_mm);
	bridge_posts_free(b.b_posts);
	bx_msg_free(b.b_changes);
	return rc;
}
