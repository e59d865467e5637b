/*
 * bridge_state.h: the bridge's state file, <state_dir>/state.json, which
 * `bxctl status` reads: one JSON object, mode 0644, written atomically
 * (bridge_file.h):
 *
 *	{"pid": N, "started": UNIX_S, "updated": UNIX_S,
 *	 "mattermost": "connected" | "connecting" | "unreachable" |
 *	               "token-refused" | "rate-limited" | "not-found",
 *	 "broker": "connected" | "unreachable",
 *	 "last_error": STRING | null, "last_error_at": UNIX_S | null,
 *	 "runbook": one of the entries below | null, "pending_posts": N}
 *
 * "updated" is the bridge's heartbeat: `bxctl status` takes a state older
 * than max(3 * poll_s, 90) s, or whose pid is not running, for "not
 * running". "runbook" names the entry for what is wrong now (null when
 * both sides are connected); "last_error" stays after a recovery, with
 * its time, so that the owner can see what happened.
 *
 * Ownership: the struct is the caller's; bridge_state_error() copies the
 * message into it.
 */
#ifndef BXBRIDGE_BRIDGE_STATE_H
#define BXBRIDGE_BRIDGE_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <time.h>

#include "proto/error.h"

#define BRIDGE_STATE_FILE	"state.json"

/* The runbook's entries for the bridge's failures (docs/runbook.md). */
#define BRIDGE_RUNBOOK_TOKEN	"docs/runbook.md#bridge-token-refused"
#define BRIDGE_RUNBOOK_MM	"docs/runbook.md#bridge-unreachable"
#define BRIDGE_RUNBOOK_RATE	"docs/runbook.md#bridge-rate-limited"
#define BRIDGE_RUNBOOK_BROKER	"docs/runbook.md#bridge-broker-unreachable"
#define BRIDGE_RUNBOOK_OWNER	"docs/runbook.md#bridge-owner-not-found"

enum bridge_mm_state {
	BRIDGE_MM_CONNECTING,
	BRIDGE_MM_CONNECTED,
	BRIDGE_MM_UNREACHABLE,
	BRIDGE_MM_TOKEN_REFUSED,
	BRIDGE_MM_RATE_LIMITED,
	BRIDGE_MM_NOT_FOUND,	/* the owner (or the DM) is not there */
};

struct bridge_state {
	pid_t			 bs_pid;
	time_t			 bs_started;
	enum bridge_mm_state	 bs_mm;
	bool			 bs_broker_up;
	char			 bs_last_error[BX_ERROR_MAX];	/* "": none */
	time_t			 bs_last_error_at;
	size_t			 bs_pending_posts;
};

/* A fresh state: pid (bridge.h), now, connecting, brokerd not yet seen. */
void	bridge_state_init(struct bridge_state *, pid_t pid);
/* Records what went wrong, now. */
void	bridge_state_error(struct bridge_state *, const char *message);
/* The runbook entry for things as they are, or NULL. */
const char *bridge_state_runbook(const struct bridge_state *);
const char *bridge_state_mm_name(enum bridge_mm_state);
/* Writes state_dir/state.json with "updated" now. */
int	bridge_state_write(const struct bridge_state *, const char *state_dir,
	    struct bx_error *);

#endif
