/*
 * message_alloc.c: a struct bx_msg made and freed, every kind's, and the
 * helpers the constructors and decoders copy and grow with
 * (message_alloc.h).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proto/message_alloc.h"

void
bx_msg_problems_free(struct bx_grant_problem *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(p[i].file);
		free(p[i].problem);
	}
	free(p);
}

static void
strings_free(char **list, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static void
grant_info_clear(struct bx_grant_info *g)
{
	free(g->id);
	free(g->tool);
	free(g->mode);
	strings_free(g->paths, g->npaths);
	strings_free(g->hosts, g->nhosts);
}

static void
explanation_clear(struct bx_explanation *x)
{
	size_t i;

	free(x->session);
	free(x->detail);
	free(x->grant.id);
	free(x->grant.mode);
	free(x->grant.matched_path);
	for (i = 0; i < x->ncandidates; i++) {
		free(x->candidates[i].grant);
		free(x->candidates[i].mode);
		free(x->candidates[i].verdict);
		free(x->candidates[i].why);
	}
	free(x->candidates);
	bx_msg_problems_free(x->problems, x->nproblems);
}

/* The console's kinds. */
static void
console_clear(struct bx_msg *m)
{
	size_t i;

	switch (m->kind) {
	case BX_MSG_SESSION_LIST:
		for (i = 0; i < m->session_list.nitems; i++)
			free(m->session_list.items[i].session);
		free(m->session_list.items);
		break;
	case BX_MSG_EXPLAIN:
		free(m->explain.session);
		free(m->explain.tool);
		free(m->explain.arguments);
		break;
	case BX_MSG_EXPLANATION:
		explanation_clear(&m->explanation);
		break;
	case BX_MSG_BROKER_STATUS:
		free(m->broker_status.version);
		free(m->broker_status.runtime);
		break;
	case BX_MSG_GRANT_LIST:
		for (i = 0; i < m->grant_list.ngrants; i++)
			grant_info_clear(&m->grant_list.grants[i]);
		free(m->grant_list.grants);
		bx_msg_problems_free(m->grant_list.problems,
		    m->grant_list.nproblems);
		break;
	default:
		break;
	}
}

void
bx_pending_approval_clear(struct bx_pending_approval *p)
{
	free(p->session);
	free(p->call);
	free(p->tool);
	free(p->arguments);
	free(p->grant);
}

static void
changes_clear(struct bx_approval_changes *c)
{
	size_t i;

	for (i = 0; i < c->nitems; i++)
		bx_pending_approval_clear(&c->items[i]);
	free(c->items);
	for (i = 0; i < c->nended; i++) {
		free(c->ended[i].by);
		free(c->ended[i].post);
	}
	free(c->ended);
}

static void
turn_event_clear(struct bx_turn_event *e)
{
	free(e->session);
	free(e->text);
	free(e->call);
	free(e->tool);
	free(e->arguments);
	free(e->content);
}

void
bx_msg_free(struct bx_msg *m)
{
	size_t i;

	if (m == NULL)
		return;
	switch (m->kind) {
	case BX_MSG_TOOL_REQUEST:
		free(m->tool_request.session);
		free(m->tool_request.call);
		free(m->tool_request.tool);
		free(m->tool_request.arguments);
		break;
	case BX_MSG_TOOL_RESPONSE:
		free(m->tool_response.content);
		free(m->tool_response.message);
		break;
	case BX_MSG_APPROVAL_LIST:
		for (i = 0; i < m->approval_list.nitems; i++)
			bx_pending_approval_clear(&m->approval_list.items[i]);
		free(m->approval_list.items);
		break;
	case BX_MSG_APPROVE:
		free(m->approve.by);
		free(m->approve.post);
		break;
	case BX_MSG_REFUSE:
		free(m->refuse.reason);
		free(m->refuse.by);
		free(m->refuse.post);
		break;
	case BX_MSG_GRANTS_REPORT:
		bx_msg_problems_free(m->grants_report.problems,
		    m->grants_report.nproblems);
		break;
	case BX_MSG_ERROR:
		free(m->error.message);
		break;
	case BX_MSG_CHAT:
		free(m->chat.session);
		free(m->chat.text);
		break;
	case BX_MSG_TURN_EVENT:
		turn_event_clear(&m->turn_event);
		break;
	case BX_MSG_APPROVALS_WAIT:
		free(m->approvals_wait.known);
		break;
	case BX_MSG_APPROVAL_CHANGES:
		changes_clear(&m->approval_changes);
		break;
	default:
		console_clear(m);
		break;
	}
	free(m);
}

struct bx_msg *
bx_msg_new(enum bx_msg_kind kind)
{
	struct bx_msg *m = calloc(1, sizeof(*m));

	if (m != NULL)
		m->kind = kind;
	return m;
}

void
bx_msg_copy(char **dst, const char *s, bool *failed)
{
	if (s == NULL)
		return;
	if ((*dst = strdup(s)) == NULL)
		*failed = true;
}

struct bx_msg *
bx_msg_done(struct bx_msg *m, bool failed)
{
	if (!failed)
		return m;
	bx_msg_free(m);
	return NULL;
}

void *
bx_msg_grow(void *array, size_t n, size_t sz)
{
	char *p;

	if (n >= SIZE_MAX / sz - 1)
		return NULL;
	if ((p = realloc(array, (n + 1) * sz)) == NULL)
		return NULL;
	memset(p + n * sz, 0, sz);
	return p;
}
