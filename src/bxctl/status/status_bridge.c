/*
 * status_bridge.c: the Mattermost bridge in `bxctl status` (status.h):
 * whether it runs, whether it reaches Mattermost and brokerd, how many of
 * its posts wait, and its last error with when and its runbook entry,
 * from its state file (bridgestate.h). The bridge is optional: no state
 * file is "not set up", which needs nothing of the owner. Its poll_s
 * (how stale "updated" may be) is bxbridge.toml's, read by the bridge's
 * own reader; the default when the file cannot be read.
 */
#include <stdio.h>
#include <string.h>

#include "bxbridge/config.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/show.h"
#include "bxctl/common/when.h"
#include "bxctl/status/status.h"
#include "proto/escape.h"

static int
poll_s(void)
{
	struct bridge_config *cfg;
	struct bx_error ignored;
	int p = BRIDGE_CONFIG_DEFAULT_POLL_S;

	if (bridge_config_load(NULL, &cfg, &ignored) == 0) {
		p = cfg->bc_poll_s;
		bridge_config_free(cfg);
	}
	return p;
}

void
status_bridge_gather(struct status *st)
{
	const struct bridge_state *bs = &st->bridge;
	const char *rb;

	bridge_state_read(st->home, st->now, poll_s(), &st->bridge);
	switch (bs->bs_run) {
	case BRIDGE_ABSENT:
		return;
	case BRIDGE_MALFORMED:
		status_attention(st, "the Mattermost bridge's state file %s/"
		    BRIDGE_STATE_FILE " is malformed (%s); see "
		    BRIDGE_RUNBOOK_MALFORMED, st->home, bs->bs_why);
		return;
	case BRIDGE_STOPPED:
		status_attention(st, "the Mattermost bridge is not running "
		    "(%s), so approvals wait for the terminal alone; see "
		    BRIDGE_RUNBOOK_SETUP, bs->bs_why);
		return;
	case BRIDGE_RUNNING:
		break;
	}
	if ((rb = bridge_mattermost_runbook(bs->bs_mattermost)) != NULL)
		status_attention(st, "the Mattermost bridge cannot use "
		    "Mattermost (%s); see %s", bs->bs_mattermost, rb);
	if (strcmp(bs->bs_broker, "connected") != 0)
		status_attention(st, "the Mattermost bridge cannot reach "
		    "brokerd's bridge.sock; see " BRIDGE_RUNBOOK_BROKER);
}

/* "running as pid N, up D: Mattermost X, brokerd Y, N posts waiting". */
static void
running(const struct status *st)
{
	const struct bridge_state *bs = &st->bridge;
	char up[SHOW_DURATION_MAX];

	show_duration(st->now - bs->bs_started, up);
	printf("running as pid %lld, up %s: Mattermost %s, brokerd %s, "
	    "%lld post%s waiting for an answer\n", (long long)bs->bs_pid, up,
	    bs->bs_mattermost, bs->bs_broker, (long long)bs->bs_pending_posts,
	    bs->bs_pending_posts == 1 ? "" : "s");
}

/* The last error: when, how long ago, its text as data, its entry. */
static void
last_error(const struct status *st)
{
	const struct bridge_state *bs = &st->bridge;
	char when[WHEN_LOCAL_LEN], ago[SHOW_DURATION_MAX];

	if (bs->bs_last_error == NULL)
		return;
	when_local(bs->bs_last_error_at, when);
	show_duration(st->now - bs->bs_last_error_at, ago);
	printf("%-11slast error %s (%s ago): ", "", when, ago);
	escape_puts(stdout, bs->bs_last_error);
	if (bs->bs_runbook != NULL)
		printf("; see %s", bs->bs_runbook);
	printf("\n");
}

void
status_bridge_text(const struct status *st)
{
	const struct bridge_state *bs = &st->bridge;
	char when[WHEN_LOCAL_LEN];

	printf("%-11s", "bridge");
	switch (bs->bs_run) {
	case BRIDGE_ABSENT:
		printf("not set up (optional: approvals in Mattermost; see "
		    BRIDGE_RUNBOOK_SETUP ")\n");
		return;
	case BRIDGE_MALFORMED:
		printf("state file malformed: ");
		escape_puts(stdout, bs->bs_why);
		printf("\n");
		return;
	case BRIDGE_STOPPED:
		when_local(bs->bs_updated, when);
		printf("not running: ");
		escape_puts(stdout, bs->bs_why);
		printf(" (last update %s)\n", when);
		break;
	case BRIDGE_RUNNING:
		running(st);
		break;
	}
	last_error(st);
}

json_t *
status_bridge_json(const struct status *st)
{
	static const char *const run[] = { "not set up", "malformed",
	    "not running", "running" };
	const struct bridge_state *bs = &st->bridge;

	if (bs->bs_run == BRIDGE_ABSENT || bs->bs_run == BRIDGE_MALFORMED)
		return json_pack("{s:s, s:s?}", "state", run[bs->bs_run],
		    "why", bs->bs_run == BRIDGE_MALFORMED ? bs->bs_why : NULL);
	return json_pack("{s:s, s:s?, s:I, s:o, s:o, s:s, s:s, s:I, s:s?, "
	    "s:o, s:s?}", "state", run[bs->bs_run], "why",
	    bs->bs_run == BRIDGE_STOPPED ? bs->bs_why : NULL, "pid",
	    (json_int_t)bs->bs_pid, "started", jsonout_time(bs->bs_started),
	    "updated", jsonout_time(bs->bs_updated), "mattermost",
	    bs->bs_mattermost, "broker", bs->bs_broker, "pending_posts",
	    (json_int_t)bs->bs_pending_posts, "last_error", bs->bs_last_error,
	    "last_error_at", bs->bs_last_error != NULL ?
	    jsonout_time(bs->bs_last_error_at) : json_null(), "runbook",
	    bs->bs_runbook);
}
