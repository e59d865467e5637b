/*
 * admin_console.c: sessions, status and list_grants on admin.sock
 * (admin_console.h). sessions counts each session's Decision records as
 * the audit log is read through the chain (so a log that does not verify
 * gives no counts, but an error naming where it breaks), adds the sessions
 * that have only a state file, and reads each one's state as a call would.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/admin_console.h"
#include "proto/audit_walk.h"

/* One session being counted. */
struct sess {
	char		 id[BX_ID_MAX + 1];	/* "" for a free slot */
	uint64_t	 calls;
	bool		 has_last;
	int64_t		 last;
};

/* The sessions counted so far: open addressing, a power of two of slots. */
struct table {
	struct sess	*slots;
	size_t		 cap, n;
	bool		 full, nomem;
};

static uint64_t
fnv(const char *s)
{
	uint64_t h = 14695981039346656037ULL;

	for (; *s != '\0'; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

/* The slot holding id, or the free slot where it would go. */
static struct sess *
probe(const struct table *t, const char *id)
{
	size_t i;

	for (i = fnv(id) & (t->cap - 1);; i = (i + 1) & (t->cap - 1))
		if (t->slots[i].id[0] == '\0' ||
		    strcmp(t->slots[i].id, id) == 0)
			return &t->slots[i];
}

/* Doubles the table; false when memory runs out. */
static bool
grow(struct table *t)
{
	struct sess *old = t->slots;
	size_t i, oldcap = t->cap;

	t->cap = oldcap == 0 ? 1024 : oldcap * 2;
	if ((t->slots = calloc(t->cap, sizeof(*t->slots))) == NULL) {
		t->slots = old;
		t->cap = oldcap;
		return false;
	}
	for (i = 0; i < oldcap; i++)
		if (old[i].id[0] != '\0')
			*probe(t, old[i].id) = old[i];
	free(old);
	return true;
}

/* The slot of id, made if missing; NULL when the table cannot take it. */
static struct sess *
lookup(struct table *t, const char *id)
{
	struct sess *s;

	if (t->cap > 0 && (s = probe(t, id))->id[0] != '\0')
		return s;
	if (t->n >= SESSIONS_MAX) {
		t->full = true;
		return NULL;
	}
	if (t->n * 2 >= t->cap && !grow(t)) {
		t->nomem = true;
		return NULL;
	}
	s = probe(t, id);
	snprintf(s->id, sizeof(s->id), "%s", id);
	t->n++;
	return s;
}

/* The chain's record hook: a Decision counts for its session. */
static void
count(void *ctx, const struct bx_chain_record *cr)
{
	const struct bx_audit_span *sp;
	struct bx_audit_record rec;
	char id[BX_ID_MAX + 1];
	struct sess *s;

	if (cr->sum->type != BX_AUDIT_DECISION)
		return;
	if (cr->fast != NULL) {
		/* A session id is plain ASCII: the span is the id. */
		sp = &cr->fast->session;
		memcpy(id, sp->s, sp->len);
		id[sp->len] = '\0';
	} else {
		if (bx_audit_record_read(cr->bytes, cr->len, &rec, NULL) == -1)
			return;
		snprintf(id, sizeof(id), "%s", rec.event.decision.session);
		bx_audit_record_clear(&rec);
	}
	if ((s = lookup(ctx, id)) == NULL)
		return;
	s->calls++;
	if (!s->has_last || cr->sum->time > s->last) {
		s->has_last = true;
		s->last = cr->sum->time;
	}
}

/*
 * Reads <home>/audit through the chain, counting: NULL, or an error frame
 * when it does not verify; -1 only when it cannot be read at all.
 */
static int
count_log(const char *home, struct table *t, struct bx_msg **ret,
    struct bx_error *err)
{
	struct bx_chain_report *r = NULL;
	struct bx_audit_walk *w;
	struct bx_chain *c;
	char dir[PATH_MAX];
	int rc;

	*ret = NULL;
	snprintf(dir, sizeof(dir), "%s/audit", home);
	if (bx_audit_walk_open(dir, &w, err) == -1)
		return -1;
	if ((c = bx_chain_new()) == NULL) {
		bx_audit_walk_close(w);
		return bx_fail(err, "admin: out of memory");
	}
	bx_chain_on_record(c, count, t);
	if ((rc = bx_audit_walk_step(w, c, false, err)) == -1)
		bx_chain_free(c);
	else
		rc = bx_chain_finish(c, &r, err);
	bx_audit_walk_close(w);
	if (rc == 0 && r->failed) {
		snprintf(err->msg, sizeof(err->msg), "the audit log does not "
		    "verify at %s:%llu: %s; see "
		    "docs/runbook.md#audit-chain-broken", r->failure.at.file,
		    (unsigned long long)r->failure.at.line, r->failure.what);
		*ret = bx_msg_error(BX_CODE_UNAVAILABLE, err->msg);
	}
	bx_chain_report_free(r);
	return rc;
}

static void
add_stateful(void *ctx, const char *session)
{
	lookup(ctx, session);
}

/* Older last call first; never called first of all. */
static int
by_last(const void *a, const void *b)
{
	const struct sess *x = *(struct sess *const *)a;
	const struct sess *y = *(struct sess *const *)b;

	if (x->has_last != y->has_last)
		return x->has_last ? 1 : -1;
	if (x->last != y->last)
		return x->last < y->last ? -1 : 1;
	return strcmp(x->id, y->id);
}

/* The session_list of t: the last SESSION_LIST_MAX, each state read. */
static struct bx_msg *
answer(struct broker *b, struct table *t)
{
	struct bx_session_info info;
	struct state_value st;
	struct sess **all;
	struct bx_msg *m;
	size_t i, n = 0;

	if ((all = calloc(t->n + 1, sizeof(*all))) == NULL ||
	    (m = bx_msg_new(BX_MSG_SESSION_LIST)) == NULL) {
		free(all);
		return NULL;
	}
	for (i = 0; i < t->cap; i++)
		if (t->slots[i].id[0] != '\0')
			all[n++] = &t->slots[i];
	qsort(all, n, sizeof(*all), by_last);
	m->session_list.total = n;
	for (i = n > SESSION_LIST_MAX ? n - SESSION_LIST_MAX : 0; i < n; i++) {
		/* A damaged state file denies every call: shown at its worst. */
		if (state_read(broker_config(b)->state, all[i]->id, &st,
		    NULL) == -1)
			st = (struct state_value){ BX_CLASS_SECRET, true };
		info = (struct bx_session_info){ all[i]->id, st.taint,
		    st.untrusted, all[i]->calls, all[i]->has_last,
		    all[i]->last };
		if (bx_msg_add_session(m, &info) == -1) {
			bx_msg_free(m);
			m = NULL;
			break;
		}
	}
	free(all);
	return m;
}

struct bx_msg *
admin_sessions(struct broker *b, struct bx_error *err)
{
	const struct broker_config *cfg = broker_config(b);
	struct table t = { 0 };
	struct bx_msg *m = NULL;

	if (count_log(cfg->home, &t, &m, err) == -1)
		m = bx_msg_error(BX_CODE_UNAVAILABLE, err->msg);
	else if (m == NULL && state_each(cfg->state, add_stateful, &t,
	    err) == -1)
		m = bx_msg_error(BX_CODE_UNAVAILABLE, err->msg);
	else if (m == NULL && t.full)
		m = bx_msg_error(BX_CODE_INTERNAL, "the log holds more than "
		    "SESSIONS_MAX (100000) sessions; brokerd counts no further");
	else if (m == NULL && !t.nomem)
		m = answer(b, &t);
	free(t.slots);
	if (m == NULL)
		bx_fail(err, "admin: out of memory");
	return m;
}

struct bx_msg *
admin_status(struct broker *b, struct bx_error *err)
{
	const struct broker_config *cfg = broker_config(b);
	struct bx_msg *m;

	m = bx_msg_broker_status(BOXMAKER_VERSION, cfg->runtime_kind != NULL ?
	    cfg->runtime_kind : "refuse", cfg->started, broker_now(b));
	if (m == NULL)
		bx_fail(err, "admin: out of memory");
	return m;
}

int
admin_add_problems(struct bx_msg *m, const struct grants *set)
{
	const struct grant_problem *gp;
	size_t i;

	for (i = 0; i < set->gs_nproblems; i++) {
		gp = &set->gs_problems[i];
		if (bx_msg_add_problem(m, gp->gp_file, gp->gp_line > 0,
		    (uint64_t)gp->gp_line, gp->gp_problem) == -1)
			return -1;
	}
	return 0;
}

struct bx_msg *
admin_list_grants(struct broker *b, struct bx_error *err)
{
	struct grants *set = NULL;
	struct bx_grant_info info;
	const struct grant *g;
	struct bx_msg *m;
	size_t i;

	if (grants_load(broker_config(b)->grants_dir, &set, err) == -1)
		return NULL;
	if ((m = bx_msg_new(BX_MSG_GRANT_LIST)) == NULL)
		goto nomem;
	for (i = 0; i < set->gs_len; i++) {
		g = &set->gs_grants[i];
		info = (struct bx_grant_info){ (char *)g->g_id,
		    (char *)bx_tool_name(g->g_tool),
		    (char *)grant_mode_name(g->g_mode), g->g_max_taint,
		    g->g_result_class, g->g_untrusted, g->g_expires, g->g_paths,
		    g->g_npaths, g->g_hosts, g->g_nhosts };
		if (bx_msg_add_grant(m, &info) == -1)
			goto nomem;
	}
	if (admin_add_problems(m, set) == -1)
		goto nomem;
	grants_free(set);
	return m;
nomem:
	bx_msg_free(m);
	grants_free(set);
	bx_fail(err, "admin: out of memory");
	return NULL;
}
