/*
 * bridge_mm.c: the bridge's Mattermost side (bridge_mm.h).
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bxbridge/bridge.h"
#include "bxbridge/bridge_mm.h"
#include "bxbridge/render.h"

static time_t
mono_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

int
bridge_mm_open(struct bridge_mm *m, const struct bridge_config *cfg,
    const char *token, const char *mm_socket, struct bridge_state *st,
    struct bx_error *err)
{
	struct mm_http_opts opts = {
		.url = cfg->bc_url,
		.token = token,
		.token_len = strlen(token),
		.ca_file = cfg->bc_ca_file,
		.unix_socket = mm_socket,
	};

	memset(m, 0, sizeof(*m));
	m->m_cfg = cfg;
	m->m_state = st;
	return mm_client_new(&opts, &m->m_client, err);
}

void
bridge_mm_close(struct bridge_mm *m)
{
	mm_client_free(m->m_client);
	m->m_client = NULL;
}

bool
bridge_mm_due(const struct bridge_mm *m)
{
	return mono_s() >= m->m_next;
}

/* A call's failure: what the state shows and when to try again. */
static bool
failed(struct bridge_mm *m, int status, const struct bx_error *err)
{
	struct bridge_state *st = m->m_state;
	int wait_s;

	bridge_state_error(st, err->msg);
	switch (status) {
	case MM_RATE_LIMITED:
		st->bs_mm = BRIDGE_MM_RATE_LIMITED;
		wait_s = mm_http_rate_wait_s(mm_client_http(m->m_client));
		break;
	case MM_TOKEN_REFUSED:
		st->bs_mm = BRIDGE_MM_TOKEN_REFUSED;
		wait_s = BRIDGE_SLOW_RETRY_S;
		break;
	case MM_UNREACHABLE:
		st->bs_mm = BRIDGE_MM_UNREACHABLE;
		wait_s = mm_backoff_s(++m->m_failures);
		break;
	default:
		/*
		 * Refused, or an answer out of shape: asking again at once
		 * would do no better, so this backs off too; the state keeps
		 * saying what it said, the error says what went wrong.
		 */
		wait_s = mm_backoff_s(++m->m_failures);
		break;
	}
	m->m_next = mono_s() + wait_s;
	return false;
}

static void
succeeded(struct bridge_mm *m)
{
	m->m_failures = 0;
	if (m->m_ready)
		m->m_state->bs_mm = BRIDGE_MM_CONNECTED;
}

bool
bridge_mm_connect(struct bridge_mm *m)
{
	struct mm_user bot, owner;
	struct bx_error err;
	int r;

	if ((r = mm_users_me(m->m_client, &bot, &err)) != MM_OK)
		return failed(m, r, &err);
	if ((r = mm_user_get(m->m_client, m->m_cfg->bc_owner, &owner,
	    &err)) != MM_OK) {
		if (r != MM_REFUSED)
			return failed(m, r, &err);
		bx_error_prefix(&err, "the owner %s of bxbridge.toml",
		    m->m_cfg->bc_owner);
		bridge_state_error(m->m_state, err.msg);
		m->m_state->bs_mm = BRIDGE_MM_NOT_FOUND;
		m->m_next = mono_s() + BRIDGE_SLOW_RETRY_S;
		return false;
	}
	if ((r = mm_direct_channel(m->m_client, bot.id, owner.id, m->m_dm,
	    &err)) != MM_OK)
		return failed(m, r, &err);
	memcpy(m->m_bot, bot.id, sizeof(m->m_bot));
	m->m_ready = true;
	succeeded(m);
	return true;
}

bool
bridge_mm_patch(struct bridge_mm *m, struct bridge_posts *posts)
{
	struct bridge_post *e;
	struct bx_error err;
	size_t i = 0;
	int r;

	while (i < bridge_posts_count(posts)) {
		e = bridge_posts_at(posts, i);
		if (e->bp_patch == NULL) {
			i++;
			continue;
		}
		r = mm_post_patch(m->m_client, e->bp_post, e->bp_patch, NULL,
		    &err);
		/* A post the server refuses to patch (deleted) is let go. */
		if (r != MM_OK && r != MM_REFUSED)
			return failed(m, r, &err);
		if (r == MM_REFUSED)
			bridge_state_error(m->m_state, err.msg);
		if (bridge_posts_remove(posts, e->bp_approval->approval,
		    &err) == -1) {
			bridge_state_error(m->m_state, err.msg);
			i++;
		}
	}
	succeeded(m);
	return true;
}

bool
bridge_mm_post(struct bridge_mm *m, struct bridge_posts *posts,
    const struct bx_pending_approval *pa)
{
	struct mm_post post = { 0 };
	struct bx_error err;
	char *text = NULL;
	int r;

	if (render_request(pa, &text, &err) == -1) {
		bridge_state_error(m->m_state, err.msg);
		return false;
	}
	r = mm_post_create(m->m_client, m->m_dm, text, NULL, &post, &err);
	free(text);
	if (r != MM_OK)
		return failed(m, r, &err);
	if (bridge_posts_add(posts, pa, post.id, &err) == -1)
		bridge_state_error(m->m_state, err.msg);
	mm_post_clear(&post);
	succeeded(m);
	return true;
}

/* One post's answer from its reactions (of the bulk answer) and thread. */
static int
read_answer(struct bridge_mm *m, struct bridge_post *e, const json_t *bulk,
    struct answer *a)
{
	struct answer_context ctx = {
		.ac_owner = m->m_cfg->bc_owner,
		.ac_bot = m->m_bot,
		.ac_post = e->bp_post,
		.ac_channel = m->m_dm,
	};
	struct bx_error err;
	json_t *thread = NULL;
	bool truncated;
	int r;

	answer_init(a);
	if (answer_reactions(&ctx, json_object_get(bulk, e->bp_post), a,
	    &err) == -1)
		bridge_state_error(m->m_state, err.msg);
	r = mm_thread_get(m->m_client, e->bp_post, &thread, &truncated, &err);
	if (r == MM_REFUSED) {
		/* The reactions still count; the thread is tried next time. */
		bridge_state_error(m->m_state, err.msg);
		return MM_OK;
	}
	if (r != MM_OK) {
		failed(m, r, &err);
		return r;
	}
	if (answer_thread(&ctx, thread, a, &err) == -1)
		bridge_state_error(m->m_state, err.msg);
	json_decref(thread);
	return MM_OK;
}

bool
bridge_mm_answers(struct bridge_mm *m, struct bridge_posts *posts,
    bool (*still_pending)(void *, uint64_t), bridge_answer_fn fn, void *arg)
{
	const char *ids[MM_MAX_BULK];
	struct bridge_post *e;
	struct answer a;
	struct bx_error err;
	json_t *bulk = NULL;
	size_t i, n = 0;
	int r;

	for (i = 0; i < bridge_posts_count(posts) && n < MM_MAX_BULK; i++) {
		e = bridge_posts_at(posts, i);
		if (e->bp_patch == NULL &&
		    still_pending(arg, e->bp_approval->approval))
			ids[n++] = e->bp_post;
	}
	if (n == 0)
		return true;
	if ((r = mm_reactions_bulk(m->m_client, ids, n, &bulk, &err)) != MM_OK)
		return failed(m, r, &err);
	/* fn may not add or remove entries: it only marks them. */
	for (i = 0; i < bridge_posts_count(posts); i++) {
		e = bridge_posts_at(posts, i);
		if (e->bp_patch != NULL ||
		    !still_pending(arg, e->bp_approval->approval))
			continue;
		if (read_answer(m, e, bulk, &a) != MM_OK) {
			json_decref(bulk);
			return false;
		}
		if (a.a_verdict != ANSWER_NONE)
			fn(arg, e, &a);
	}
	json_decref(bulk);
	succeeded(m);
	return true;
}
