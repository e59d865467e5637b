/*
 * status_facts.c: what `bxctl status` finds (status.h): brokerd's
 * status, grants, approvals and sessions through admin.sock, whether
 * loopd takes a connection, and the audit log read through the chain
 * (the Mattermost bridge's state is status_bridge.c's);
 * and, for each thing that needs the owner, a line with its runbook
 * entry (status_attention.c). Also the status as JSON.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/audit/audit_read.h"
#include "bxctl/common/admin.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/show.h"
#include "bxctl/grants/grantprune.h"
#include "bxctl/status/status.h"

/* The paths: the home, and the sockets under it unless given. */
static int
paths(const struct cli_command *cmd, const struct status_args *a,
    struct status *st)
{
	struct bx_error err;
	char rel[PATH_MAX];
	int r;

	if (audit_home(a->home, st->home, &err) == -1)
		return cli_usage_error(cmd, "%s", err.msg);
	snprintf(rel, sizeof(rel), "%s/%s", st->home, BX_HOME_ADMIN_SOCKET);
	if ((r = options_socket(cmd, a->admin != NULL ? a->admin : rel,
	    BX_HOME_ADMIN_SOCKET, st->admin)) != CLI_OK)
		return r;
	snprintf(rel, sizeof(rel), "%s/%s", st->home, BX_HOME_LOOP_SOCKET);
	return options_socket(cmd, a->loop != NULL ? a->loop : rel,
	    BX_HOME_LOOP_SOCKET, st->loop);
}

/*
 * The expired grants, and those `grants prune` would remove by their id
 * and age (it also reads each file's first line, which brokerd does not
 * send).
 */
static void
count_expired(struct status *st)
{
	const struct bx_grant_list *l = &st->grants->grant_list;
	size_t i;

	for (i = 0; i < l->ngrants; i++) {
		if (l->grants[i].expires > st->now)
			continue;
		st->expired++;
		if (strncmp(l->grants[i].id, "approved-", 9) == 0 &&
		    st->now - l->grants[i].expires > GRANTPRUNE_KEEP_MS)
			st->prunable++;
	}
}

/* brokerd's answers; the first failure says brokerd is not reachable. */
static void
ask_broker(struct status *st)
{
	const struct bx_approval_list *l;
	struct bx_error err;
	size_t i;

	if (admin_ask(st->admin, BX_MSG_STATUS, BX_MSG_BROKER_STATUS,
	    &st->broker, &err) == -1) {
		status_attention(st, "%s; see "
		    "docs/runbook.md#broker-unavailable", err.msg);
		return;
	}
	if (admin_ask(st->admin, BX_MSG_LIST_GRANTS, BX_MSG_GRANT_LIST,
	    &st->grants, &err) == -1)
		status_attention(st, "%s", err.msg);
	else
		count_expired(st);
	if (st->grants != NULL && st->grants->grant_list.nproblems > 0)
		status_attention(st, "the grant files have %zu problems, so "
		    "every call is denied; see docs/runbook.md#grants-invalid",
		    st->grants->grant_list.nproblems);
	if (admin_ask(st->admin, BX_MSG_APPROVALS, BX_MSG_APPROVAL_LIST,
	    &st->approvals, &err) == -1)
		status_attention(st, "%s", err.msg);
	else {
		l = &st->approvals->approval_list;
		st->npending = l->nitems;
		for (i = 0; i < l->nitems; i++)
			if (i == 0 || l->items[i].created < st->oldest)
				st->oldest = l->items[i].created;
		if (l->nitems > 0)
			status_attention(st, "%zu approvals wait for your "
			    "answer (bxctl approvals); see "
			    "docs/runbook.md#approval-pending", l->nitems);
	}
	if (admin_ask(st->admin, BX_MSG_SESSIONS, BX_MSG_SESSION_LIST,
	    &st->sessions, &err) == -1)
		status_attention(st, "%s", err.msg);
}

/* The chain's record hook: keeps the last record's time. */
static void
last_time(void *ctx, const struct bx_chain_record *cr)
{
	((struct status *)ctx)->last_time = cr->sum->time;
}

static void
read_audit(struct status *st)
{
	struct bx_error err;

	if (audit_read(st->home, last_time, st, &st->audit, &err) == -1) {
		st->audit = NULL;
		status_attention(st, "the audit log cannot be read: %s; see "
		    "docs/runbook.md#audit-chain-broken", err.msg);
	} else if (st->audit->failed)
		status_attention(st, "the audit log does not verify at "
		    "%s:%" PRIu64 ": %s; see "
		    "docs/runbook.md#audit-chain-broken",
		    st->audit->failure.at.file, st->audit->failure.at.line,
		    st->audit->failure.what);
}

int
status_gather(const struct cli_command *cmd, const struct status_args *a,
    struct status *ret)
{
	struct status *st;
	struct bx_error err;
	int r;

	/* Large (its paths), so built where it goes, and only on success. */
	if ((st = calloc(1, sizeof(*st))) == NULL)
		return cli_fail("out of memory");
	if ((r = paths(cmd, a, st)) != CLI_OK) {
		free(st);
		return r;
	}
	st->now = show_now();
	ask_broker(st);
	if (!(st->loop_up = sock_probe_uid(st->loop, &st->loop_uid, &err) ==
	    1))
		status_attention(st, "loopd is not running at %s; see "
		    "docs/runbook.md#loopd-not-running", st->loop);
	else if (!(st->loop_jailed = st->loop_uid != getuid()))
		status_attention(st, "loopd's turn loop runs as you, not in "
		    "its jail ([jail] mode = \"off\"); see "
		    "docs/runbook.md#jail-off");
	read_audit(st);
	status_bridge_gather(st);
	*ret = *st;
	free(st);
	return CLI_OK;
}

static json_t *
broker_json(const struct status *st)
{
	const struct bx_broker_status *b;

	if (st->broker == NULL)
		return json_pack("{s:b}", "up", 0);
	b = &st->broker->broker_status;
	return json_pack("{s:b, s:s, s:s, s:o, s:I}", "up", 1, "version",
	    b->version, "runtime", b->runtime, "started",
	    jsonout_time(b->started), "uptime_s",
	    (json_int_t)((b->now - b->started) / 1000));
}

static json_t *
audit_json(const struct status *st)
{
	char hex[BX_HASH_HEX_LEN + 1];
	const struct bx_chain_report *r = st->audit;

	if (r == NULL || r->failed || !r->has_head)
		return json_pack("{s:b, s:I}", "ok", r != NULL && !r->failed,
		    "records", (json_int_t)(r != NULL ? r->records : 0));
	bx_hash_format(&r->head, hex);
	return json_pack("{s:b, s:I, s:I, s:s, s:o}", "ok", 1, "records",
	    (json_int_t)r->records, "head_seq", (json_int_t)(r->next_seq - 1),
	    "head", hex, "last", jsonout_time(st->last_time));
}

void
status_json(const struct status *st)
{
	json_t *o, *need = json_array();
	size_t i;

	for (i = 0; need != NULL && i < st->nattention; i++)
		json_array_append_new(need, json_string(st->attention[i]));
	o = json_pack("{s:o, s:{s:b, s:b}, s:o, s:o, s:o, s:o, s:o}", "brokerd",
	    broker_json(st), "loopd", "up", st->loop_up,
	    "jailed", st->loop_up && st->loop_jailed, "grants",
	    st->grants == NULL ? json_null() : json_pack("{s:I, s:I, s:I, "
	    "s:I}", "grants", (json_int_t)st->grants->grant_list.ngrants,
	    "expired", (json_int_t)st->expired, "prunable",
	    (json_int_t)st->prunable, "problems",
	    (json_int_t)st->grants->grant_list.nproblems),
	    "approvals", st->approvals == NULL ? json_null() :
	    json_pack("{s:I, s:o}", "pending", (json_int_t)st->npending,
	    "oldest", st->npending > 0 ? jsonout_time(st->oldest) :
	    json_null()), "audit", audit_json(st), "sessions",
	    st->sessions == NULL ? json_null() :
	    json_integer((json_int_t)st->sessions->session_list.total),
	    "attention", need);
	if (o != NULL)
		json_object_set_new(o, "bridge", status_bridge_json(st));
	if (o != NULL)
		jsonout_print(stdout, o);
	json_decref(o);
}

void
status_free(struct status *st)
{
	size_t i;

	bx_msg_free(st->broker);
	bx_msg_free(st->grants);
	bx_msg_free(st->approvals);
	bx_msg_free(st->sessions);
	bx_chain_report_free(st->audit);
	bridge_state_clear(&st->bridge);
	for (i = 0; i < st->nattention; i++)
		free(st->attention[i]);
}
