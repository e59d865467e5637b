/*
 * log.c: `bxctl log`, the audit log read and verified as it is read, one
 * line per call. It reads <home>/audit itself through the chain (no
 * daemon needed); each record the chain accepts goes to the join
 * (log_join.h), and each finished call to the filter and out
 * (log_show.h, which prints through log_row.h or log_json.h); with
 * --call, each record to log_call.h instead. It ends by saying whether
 * the chain verified, or with --follow waits for new records, across the
 * day's rollover, until it is stopped or the chain breaks. A line that
 * fails is reported by --follow only once nothing can recover it: the
 * next line is in, a later file began, or no brokerd holds the log.
 *
 * The room's files call one way, down: log.c, then log_show.c, then
 * log_row.c and log_json.c, then log_entry.c; log_join.c hands its
 * entries up only through the emit callback log.c gives it.
 */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/audit/audit_follow.h"
#include "bxctl/audit/audit_read.h"
#include "bxctl/commands.h"
#include "bxctl/common/admin.h"
#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/sock.h"
#include "bxctl/log/log_args.h"
#include "bxctl/log/log_call.h"
#include "bxctl/log/log_entry.h"
#include "bxctl/log/log_join.h"
#include "bxctl/log/log_show.h"
#include "proto/audit_walk.h"

/* What the chain's hook needs. */
struct log_run {
	struct log_join		*join;
	struct log_show		*show;
	struct log_call		*call;		/* --call, or NULL */
	bool			 live;		/* --follow, past the start */
	bool			 failed;	/* the join ran out of memory */
	struct bx_error		 err;
};

/*
 * With --follow, an ask is shown as it starts to wait, not only once it
 * is answered: an owner watching the log sees what waits for them.
 */
static void
show_waiting(struct log_run *lr, const struct bx_chain_record *cr)
{
	struct log_entry *e;

	if ((e = calloc(1, sizeof(*e))) == NULL)
		return;
	if (bx_audit_record_from_scan(cr->bytes, cr->len, cr->fast, &e->rec,
	    NULL) == -1) {
		free(e);
		return;
	}
	e->kind = LOG_CALL;
	e->at = cr->at;
	log_show_entry(lr->show, e);
}

static void
on_record(void *ctx, const struct bx_chain_record *cr)
{
	struct log_run *lr = ctx;

	if (lr->call != NULL)
		log_call_record(lr->call, cr);
	else if (!lr->failed && log_join_record(lr->join, cr, &lr->err) == -1)
		lr->failed = true;
	else if (lr->live && cr->sum->type == BX_AUDIT_DECISION &&
	    cr->sum->ask)
		show_waiting(lr, cr);
}

/*
 * Asks brokerd of home which approvals it holds, to tell a pending ask
 * from an abandoned one. brokerd not running holds none; brokerd that
 * cannot be asked leaves it unknown.
 */
static void
ask_pending(struct log_show *s, const char *home)
{
	struct bx_msg *req, *list = NULL;
	struct bx_error err;
	char path[SOCK_PATH_MAX];
	size_t i;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", home,
	    BX_HOME_ADMIN_SOCKET) >= sizeof(path) ||
	    (req = bx_msg_new(BX_MSG_APPROVALS)) == NULL)
		return;
	if (admin_call(path, req, BX_MSG_APPROVAL_LIST, &list, &err) == 0) {
		s->npending = list->approval_list.nitems;
		s->pending = calloc(s->npending + 1, sizeof(*s->pending));
		for (i = 0; s->pending != NULL && i < s->npending; i++)
			s->pending[i] = list->approval_list.items[i].approval;
		s->pending_known = s->pending != NULL;
	} else
		s->pending_known = sock_probe(path, &err) == 0;
	bx_msg_free(list);
	bx_msg_free(req);
}

/* The last line: the chain verified, or where it broke. */
static int
verdict(const struct log_args *a, const struct bx_chain_failure *f,
    uint64_t records, const struct bx_hash *head)
{
	char hex[BX_HASH_HEX_LEN + 1] = "none";
	json_t *o;

	if (head != NULL)
		bx_hash_format(head, hex);
	if (a->json) {
		o = f != NULL ? json_pack("{s:s, s:s, s:I, s:s}", "type",
		    "broken", "file", f->at.file, "line", (json_int_t)f->at.line,
		    "what", f->what) : json_pack("{s:s, s:I, s:s}", "type",
		    "verified", "records", (json_int_t)records, "head", hex);
		if (o != NULL)
			jsonout_print(stdout, o);
		json_decref(o);
	} else if (f == NULL)
		printf("chain: verified, %" PRIu64 " records, head %s\n",
		    records, hex);
	else {
		fputs("chain: broken at ", stdout);
		escape_puts(stdout, f->at.file);
		printf(":%" PRIu64 ": ", f->at.line);
		escape_puts(stdout, f->what);
		printf("\nbxctl log stops there; see "
		    "docs/runbook.md#audit-chain-broken\n");
	}
	return f == NULL ? CLI_OK : CLI_FAIL;
}

/* Reads the log to its end once, then ends. */
static int
read_all(const struct log_args *a, struct log_run *lr, struct log_show *s,
    struct bx_audit_walk *w, struct bx_chain *c)
{
	struct bx_chain_report *r;
	struct bx_error err;
	int rv;

	if (bx_audit_walk_step(w, c, false, &err) == -1) {
		bx_chain_free(c);
		return cli_fail("%s", err.msg);
	}
	if (bx_chain_finish(c, &r, &err) == -1)
		return cli_fail("%s", err.msg);
	if (lr->join != NULL) {
		ask_pending(s, a->home);
		log_join_flush(lr->join);
		log_show_tail(s);
	}
	if (lr->failed)
		rv = cli_fail("%s", lr->err.msg);
	else if (lr->call != NULL && lr->call->found == 0 && !r->failed)
		rv = cli_fail("no record of a call %s%s%s in the log",
		    a->call, a->session != NULL ? " in session " : "",
		    a->session != NULL ? a->session : "");
	else
		rv = verdict(a, r->failed ? &r->failure : NULL, r->records,
		    r->has_head ? &r->head : NULL);
	bx_chain_report_free(r);
	return rv;
}

/* Reads what is there, then each change, until the chain breaks. */
static int
follow(const struct log_args *a, struct log_run *lr, struct log_show *s,
    struct bx_audit_walk *w, struct bx_chain *c)
{
	const struct bx_chain_failure *f;
	struct bx_error err;
	int ifd, rv;

	ifd = audit_follow_watch(a->dir);
	for (;;) {
		if (audit_follow_step(a->dir, w, c, &err) == -1) {
			rv = cli_fail("%s", err.msg);
			break;
		}
		if (lr->join != NULL)
			log_show_tail(s);
		lr->live = true;
		if ((f = bx_chain_failed(c)) != NULL || lr->failed) {
			rv = lr->failed ? cli_fail("%s", lr->err.msg) :
			    verdict(a, f, 0, NULL);
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
	bx_chain_free(c);
	return rv;
}

static int
run(const struct log_args *a)
{
	struct log_show s = { 0 };
	struct log_run lr = { 0 };
	struct log_call lc = { a->call, a->session, a->json, stdout, 0 };
	struct bx_audit_walk *w;
	struct bx_chain *c;
	struct bx_error err;
	int rv;

	if (bx_audit_walk_open(a->dir, &w, &err) == -1)
		return cli_fail("%s", err.msg);
	s.filter = a->filter;
	s.json = a->json;
	s.tail = a->tail;
	log_show_init(&s, stdout);
	lr.show = &s;
	if (a->call != NULL)
		lr.call = &lc;
	else if ((lr.join = log_join_new(log_show_entry, &s)) == NULL) {
		bx_audit_walk_close(w);
		return cli_fail("out of memory");
	}
	if ((c = bx_chain_new()) == NULL)
		rv = cli_fail("out of memory");
	else {
		bx_chain_on_record(c, on_record, &lr);
		if (lr.join != NULL)
			log_show_header(&s);
		rv = a->follow ? follow(a, &lr, &s, w, c) :
		    read_all(a, &lr, &s, w, c);
	}
	log_join_free(lr.join);
	log_show_free(&s);
	bx_audit_walk_close(w);
	return rv;
}

int
cmd_log(const struct cli_command *cmd, int argc, char **argv)
{
	struct log_args a;
	int status;

	if (log_args_parse(cmd, argc, argv, &a, &status) == -1)
		return status;
	return run(&a);
}
