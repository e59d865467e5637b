/*
 * approvals_follow.c: `bxctl approvals --follow` (approvals_follow.h).
 * What already waits comes from brokerd's list; then each ask Decision
 * the chain accepts is a new pending approval, shown as `bxctl approvals`
 * shows one (with its expiry from brokerd's list when brokerd still
 * holds it), and each Approval record is its answer: approved, refused
 * or expired, and where from: at the terminal, or in Mattermost by whom
 * and in which post (show.h). An approval abandoned (loopd gone, brokerd
 * stopped) has no record, so nothing more is said of it.
 */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/approvals/approvals_follow.h"
#include "bxctl/audit/audit_follow.h"
#include "bxctl/audit/audit_read.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/cli.h"
#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/show.h"
#include "proto/audit_fast.h"

/* The approvals shown from brokerd's list at the start, not shown again. */
#define FOLLOW_SEEN_MAX		1024	/* brokerd's APPROVALS_MAX */

struct follow {
	const char	*admin;
	bool		 json;
	bool		 live;		/* past the log's end at the start */
	uint64_t	 seen[FOLLOW_SEEN_MAX];
	size_t		 nseen;
};

/* brokerd's list, or NULL if brokerd cannot be asked. */
static struct bx_msg *
pending_list(const char *admin)
{
	struct bx_msg *req, *list = NULL;
	struct bx_error err;

	if ((req = bx_msg_new(BX_MSG_APPROVALS)) == NULL)
		return NULL;
	if (admin_call(admin, req, BX_MSG_APPROVAL_LIST, &list, &err) == -1)
		list = NULL;
	bx_msg_free(req);
	return list;
}

static void
print_pending(const struct follow *f, const struct bx_pending_approval *pa)
{
	json_t *o;

	if (!f->json) {
		(void)show_approval(stdout, pa, show_now());
		return;
	}
	o = json_pack("{s:s, s:I, s:s, s:s, s:s, s:s, s:s, s:s, s:o, s:o}",
	    "type", "pending", "approval", (json_int_t)pa->approval,
	    "session", pa->session, "call", pa->call, "tool", pa->tool,
	    "arguments", pa->arguments, "grant", pa->grant, "taint",
	    bx_class_name(pa->taint), "created", jsonout_time(pa->created),
	    "expires", pa->expires != 0 ? jsonout_time(pa->expires) :
	    json_null());
	if (o != NULL)
		(void)jsonout_print(stdout, o);
	json_decref(o);
}

/* A new ask: brokerd's own item if it still holds it, else the record's. */
static void
pending(struct follow *f, uint64_t seq, int64_t at,
    const struct bx_ev_decision *d)
{
	struct bx_pending_approval pa = { 0 };
	struct bx_msg *list;
	size_t i;

	for (i = 0; i < f->nseen; i++)
		if (f->seen[i] == seq)
			return;
	list = pending_list(f->admin);
	for (i = 0; list != NULL && i < list->approval_list.nitems; i++)
		if (list->approval_list.items[i].approval == seq)
			break;
	if (list != NULL && i < list->approval_list.nitems)
		print_pending(f, &list->approval_list.items[i]);
	else {
		pa.approval = seq;
		pa.session = (char *)d->session;
		pa.call = (char *)d->call;
		pa.tool = (char *)d->tool;
		pa.arguments = (char *)d->arguments;
		pa.grant = (char *)(d->grant != NULL ? d->grant : "");
		pa.taint = d->taint;
		pa.created = at;
		print_pending(f, &pa);		/* expires 0: not known */
	}
	bx_msg_free(list);
}

static void
answered(const struct follow *f, int64_t at, const struct bx_ev_approval *ap)
{
	const char *answer = bx_answer_name(ap->answer);
	char where[128];
	json_t *o;

	if (f->json) {
		o = json_pack("{s:s, s:I, s:s, s:s?, s:s?, s:s?, s:o}", "type",
		    "answer", "approval", (json_int_t)ap->decision, "answer",
		    answer, "by", ap->by, "post", ap->post, "reason",
		    ap->reason, "time", jsonout_time(at));
		if (o != NULL)
			(void)jsonout_print(stdout, o);
		json_decref(o);
		return;
	}
	printf("%" PRIu64 "  %s", ap->decision, answer);
	show_answered_where(ap, where, sizeof(where));
	if (where[0] != '\0') {
		putchar(' ');
		escape_puts(stdout, where);
	}
	if (ap->reason != NULL) {
		fputs(": ", stdout);
		escape_puts(stdout, ap->reason);
	}
	putchar('\n');
}

static void
on_record(void *ctx, const struct bx_chain_record *cr)
{
	struct follow *f = ctx;
	struct bx_audit_record rec;

	if (!f->live || !((cr->sum->type == BX_AUDIT_DECISION &&
	    cr->sum->ask) || cr->sum->type == BX_AUDIT_APPROVAL))
		return;
	if (bx_audit_record_from_scan(cr->bytes, cr->len, cr->fast, &rec,
	    NULL) == -1)
		return;
	if (rec.event.type == BX_AUDIT_DECISION)
		pending(f, rec.seq, rec.time, &rec.event.decision);
	else
		answered(f, rec.time, &rec.event.approval);
	bx_audit_record_clear(&rec);
}

/* What already waits, from brokerd; nothing if it cannot be asked. */
static void
start(struct follow *f)
{
	struct bx_msg *list;
	size_t i;

	if ((list = pending_list(f->admin)) == NULL)
		return;
	for (i = 0; i < list->approval_list.nitems &&
	    f->nseen < FOLLOW_SEEN_MAX; i++) {
		print_pending(f, &list->approval_list.items[i]);
		f->seen[f->nseen++] = list->approval_list.items[i].approval;
	}
	bx_msg_free(list);
}

static int
loop(struct follow *f, const char *dir, struct bx_audit_walk *w,
    struct bx_chain *c)
{
	const struct bx_chain_failure *bad;
	struct bx_error err;
	int ifd, rv;

	ifd = audit_follow_watch(dir);
	for (;;) {
		if (audit_follow_step(dir, w, c, &err) == -1) {
			rv = cli_fail("%s", err.msg);
			break;
		}
		if (!f->live) {
			f->live = true;
			start(f);
		}
		if ((bad = bx_chain_failed(c)) != NULL) {
			rv = cli_fail("the audit log does not verify at %s:%"
			    PRIu64 ": %s; see docs/runbook.md#audit-chain-broken",
			    bad->at.file, bad->at.line, bad->what);
			break;
		}
		if (fflush(stdout) == EOF || ferror(stdout)) {
			rv = CLI_FAIL;
			break;
		}
		audit_follow_wait(ifd);
	}
	if (ifd != -1)
		close(ifd);
	return rv;
}

int
approvals_follow(const char *home, const char *admin, bool json)
{
	struct follow *f;
	struct bx_audit_walk *w;
	struct bx_chain *c;
	struct bx_error err;
	char dir[PATH_MAX];
	int rv;

	if (audit_dir(home, dir, &err) == -1 ||
	    bx_audit_walk_open(dir, &w, &err) == -1)
		return cli_fail("%s", err.msg);
	if ((f = calloc(1, sizeof(*f))) == NULL ||
	    (c = bx_chain_new()) == NULL) {
		free(f);
		bx_audit_walk_close(w);
		return cli_fail("out of memory");
	}
	f->admin = admin;
	f->json = json;
	bx_chain_on_record(c, on_record, f);
	rv = loop(f, dir, w, c);
	bx_chain_free(c);
	bx_audit_walk_close(w);
	free(f);
	return rv;
}
