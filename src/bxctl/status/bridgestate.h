/*
 * bridgestate.h: what `bxctl status` makes of the Mattermost bridge's
 * state file, <home>/bridge/state.json (written by bxbridge; its fields
 * in docs/design.md, "Approvals in Mattermost"). The file is read with a
 * bound and parsed as strict JSON; it is the bridge's word, which a
 * taken-over bridge could write, so every field is checked for its type
 * and its values, and a file that fails any check is BRIDGE_MALFORMED,
 * never half-trusted. A key it does not know is ignored (a newer bridge's). Its free text (the last error) is kept as data for
 * proto/escape.h to print.
 *
 * The bridge runs when its pid is alive and its "updated" is at most
 * bridge_stale_s(poll_s) seconds from now; else it is BRIDGE_STOPPED.
 * No file is BRIDGE_ABSENT: the bridge is optional, so that is no fault.
 *
 * Ownership: bridge_state_read() and bridge_state_parse() fill the
 * caller's struct; bridge_state_clear() frees its strings (a zeroed
 * struct is allowed).
 */
#ifndef BXCTL_BRIDGESTATE_H
#define BXCTL_BRIDGESTATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The file under the home, and the most of it that is read. */
#define BRIDGE_STATE_FILE	"bridge/state.json"
#define BRIDGE_STATE_MAX	(64 * 1024)
/* The longest last error kept (bytes); a longer one is cut. */
#define BRIDGE_ERROR_MAX	1024
#define BRIDGE_WHY_MAX		256

#define BRIDGE_RUNBOOK_TOKEN	"docs/runbook.md#bridge-token-refused"
#define BRIDGE_RUNBOOK_SETUP	"docs/runbook.md#bridge-not-set-up"
#define BRIDGE_RUNBOOK_BROKER	"docs/runbook.md#bridge-broker-unreachable"
#define BRIDGE_RUNBOOK_MALFORMED "docs/runbook.md#bridge-state-malformed"

enum bridge_run {
	BRIDGE_ABSENT,		/* no state file: not set up */
	BRIDGE_MALFORMED,	/* bs_why says what is wrong */
	BRIDGE_STOPPED,		/* pid gone or "updated" stale: bs_why */
	BRIDGE_RUNNING,
};

struct bridge_state {
	enum bridge_run	 bs_run;
	char		 bs_why[BRIDGE_WHY_MAX];
	/* The fields, set for BRIDGE_STOPPED and BRIDGE_RUNNING. */
	int64_t		 bs_pid;
	int64_t		 bs_started;		/* ms, as the rest of bxctl */
	int64_t		 bs_updated;
	const char	*bs_mattermost;		/* one of bridge_mm_states */
	const char	*bs_broker;		/* "connected", "unreachable" */
	char		*bs_last_error;		/* NULL: none */
	int64_t		 bs_last_error_at;	/* ms; 0 with no error */
	char		*bs_runbook;		/* a runbook entry, or NULL */
	int64_t		 bs_pending_posts;
};

/* How old "updated" may be, in seconds: max(3 * poll_s, 90). */
int64_t	bridge_stale_s(int poll_s);

/*
 * Judges len bytes of a state file at now (ms). Never fails: what the
 * bytes say, or BRIDGE_MALFORMED.
 */
void	bridge_state_parse(const char *buf, size_t len, int64_t now,
	    int poll_s, struct bridge_state *ret);
/* Reads <home>/BRIDGE_STATE_FILE and judges it; ENOENT: BRIDGE_ABSENT. */
void	bridge_state_read(const char *home, int64_t now, int poll_s,
	    struct bridge_state *ret);
/*
 * The runbook entry for a "mattermost" value that needs the owner, or
 * NULL ("connected", "connecting").
 */
const char *bridge_mattermost_runbook(const char *value);
void	bridge_state_clear(struct bridge_state *);

#endif
