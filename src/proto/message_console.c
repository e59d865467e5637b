/*
 * message_console.c: the owner's console's message kinds (sessions,
 * session_list, explain, explanation, status, broker_status, list_grants,
 * grant_list): constructors and the functions that fill their lists
 * (message_console.h); and the GrantProblem lists that grants_report,
 * explanation and grant_list share. What frees them is message_alloc.c;
 * the codec is message_console_codec.c.
 */
#include <stdlib.h>
#include <string.h>

#include "proto/message_alloc.h"
#include "proto/message_console.h"

struct bx_msg *
bx_msg_explain(const char *session, const char *tool, const char *arguments)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_EXPLAIN);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->explain.session, session, &failed);
	bx_msg_copy(&m->explain.tool, tool, &failed);
	bx_msg_copy(&m->explain.arguments, arguments, &failed);
	return bx_msg_done(m, failed);
}

struct bx_msg *
bx_msg_broker_status(const char *version, const char *runtime,
    int64_t started, int64_t now)
{
	struct bx_msg *m = bx_msg_new(BX_MSG_BROKER_STATUS);
	bool failed = false;

	if (m == NULL)
		return NULL;
	bx_msg_copy(&m->broker_status.version, version, &failed);
	bx_msg_copy(&m->broker_status.runtime, runtime, &failed);
	m->broker_status.started = started;
	m->broker_status.now = now;
	return bx_msg_done(m, failed);
}

int
bx_msg_add_session(struct bx_msg *m, const struct bx_session_info *s)
{
	struct bx_session_list *l = &m->session_list;
	struct bx_session_info *items;
	bool failed = false;

	if ((items = bx_msg_grow(l->items, l->nitems, sizeof(*items))) == NULL)
		return -1;
	l->items = items;
	items[l->nitems] = *s;
	items[l->nitems].session = NULL;
	bx_msg_copy(&items[l->nitems].session, s->session, &failed);
	if (failed)
		return -1;
	l->nitems++;
	return 0;
}

int
bx_msg_add_candidate(struct bx_msg *m, const struct bx_candidate *c)
{
	struct bx_explanation *x = &m->explanation;
	struct bx_candidate *list, *q;
	bool failed = false;

	if ((list = bx_msg_grow(x->candidates, x->ncandidates,
	    sizeof(*list))) == NULL)
		return -1;
	x->candidates = list;
	q = &list[x->ncandidates++];
	bx_msg_copy(&q->grant, c->grant, &failed);
	bx_msg_copy(&q->mode, c->mode, &failed);
	bx_msg_copy(&q->verdict, c->verdict, &failed);
	bx_msg_copy(&q->why, c->why, &failed);
	return failed ? -1 : 0;
}

int
bx_msg_set_explanation(struct bx_msg *m, const struct bx_explanation *from)
{
	struct bx_explanation *x = &m->explanation;
	bool failed = false;

	x->taint = from->taint;
	x->untrusted = from->untrusted;
	x->now = from->now;
	x->outcome = from->outcome;
	x->has_grant = from->has_grant;
	x->grant.result_class = from->grant.result_class;
	x->grant.untrusted = from->grant.untrusted;
	bx_msg_copy(&x->session, from->session, &failed);
	bx_msg_copy(&x->detail, from->detail, &failed);
	bx_msg_copy(&x->grant.id, from->grant.id, &failed);
	bx_msg_copy(&x->grant.mode, from->grant.mode, &failed);
	bx_msg_copy(&x->grant.matched_path, from->grant.matched_path, &failed);
	return failed ? -1 : 0;
}

/* Copies n strings of list into a new *ret; *failed on no memory. */
static void
copy_strings(char **const from, size_t n, char ***ret, bool *failed)
{
	size_t i;

	if (n == 0 || (*ret = calloc(n, sizeof(**ret))) == NULL) {
		*failed = *failed || n > 0;
		return;
	}
	for (i = 0; i < n; i++)
		bx_msg_copy(&(*ret)[i], from[i], failed);
}

int
bx_msg_add_grant(struct bx_msg *m, const struct bx_grant_info *g)
{
	struct bx_grant_list *l = &m->grant_list;
	struct bx_grant_info *list, *q;
	bool failed = false;

	if ((list = bx_msg_grow(l->grants, l->ngrants, sizeof(*list))) == NULL)
		return -1;
	l->grants = list;
	q = &list[l->ngrants++];
	*q = *g;
	q->id = q->tool = q->mode = NULL;
	q->paths = q->hosts = NULL;
	bx_msg_copy(&q->id, g->id, &failed);
	bx_msg_copy(&q->tool, g->tool, &failed);
	bx_msg_copy(&q->mode, g->mode, &failed);
	copy_strings(g->paths, g->npaths, &q->paths, &failed);
	copy_strings(g->hosts, g->nhosts, &q->hosts, &failed);
	return failed ? -1 : 0;
}

int
bx_msg_add_problem(struct bx_msg *m, const char *file, bool has_line,
    uint64_t line, const char *problem)
{
	struct bx_grant_problem **list, *grown, *q;
	bool failed = false;
	size_t *n;

	if (m->kind == BX_MSG_EXPLANATION) {
		list = &m->explanation.problems;
		n = &m->explanation.nproblems;
	} else if (m->kind == BX_MSG_GRANT_LIST) {
		list = &m->grant_list.problems;
		n = &m->grant_list.nproblems;
	} else {
		list = &m->grants_report.problems;
		n = &m->grants_report.nproblems;
	}
	if ((grown = bx_msg_grow(*list, *n, sizeof(*grown))) == NULL)
		return -1;
	*list = grown;
	q = &grown[(*n)++];
	q->has_line = has_line;
	q->line = line;
	bx_msg_copy(&q->file, file, &failed);
	bx_msg_copy(&q->problem, problem, &failed);
	return failed ? -1 : 0;
}
