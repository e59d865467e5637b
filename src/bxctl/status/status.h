/*
 * status.h: what `bxctl status` finds (status_facts.c, the Mattermost
 * bridge's status_bridge.c) and prints (status.c): each daemon's answer,
 * or NULL where it could not be asked, the audit log's report, the
 * bridge's state file (bridgestate.h), and the lines for what needs the owner, each
 * ending in its runbook entry.
 *
 * Ownership: the struct owns its messages, report and lines;
 * status_free() frees them.
 */
#ifndef BXCTL_STATUS_H
#define BXCTL_STATUS_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "bxctl/audit/anchors.h"
#include "bxctl/status/bridgestate.h"
#include "bxctl/common/cli.h"
#include "bxctl/common/options.h"
#include "proto/chain.h"
#include "proto/error.h"
#include "proto/message.h"

/* At most one line per thing checked. */
#define STATUS_ATTENTION_MAX	8

struct status_args {
	const char	*home;		/* NULL: the user's default */
	const char	*admin;		/* NULL: under the home */
	const char	*loop;
	bool		 json;
};

struct status {
	char			 home[PATH_MAX];
	char			 admin[SOCK_PATH_MAX];
	char			 loop[SOCK_PATH_MAX];
	int64_t			 now;
	struct bx_msg		*broker;	/* broker_status */
	bool			 loop_up;
	bool			 loop_jailed;	/* not the owner's uid */
	uid_t			 loop_uid;	/* loop.sock's listener */
	struct bx_msg		*grants;	/* grant_list */
	size_t			 expired;	/* its grants past expiry */
	size_t			 prunable;	/* of them, grants prune's */
	struct bx_msg		*approvals;	/* approval_list */
	size_t			 npending;
	int64_t			 oldest;	/* the oldest's created */
	struct bx_msg		*sessions;	/* session_list */
	struct bx_chain_report	*audit;		/* NULL: not readable */
	int64_t			 last_time;	/* the last record's */
	struct bridge_state	 bridge;	/* status_bridge.c */
	char			*attention[STATUS_ATTENTION_MAX];
	size_t			 nattention;
};

/*
 * Asks brokerd and loopd and reads the audit log: CLI_OK, or a usage
 * error (a path too long) already printed.
 */
int	status_gather(const struct cli_command *, const struct status_args *,
	    struct status *);
/* One more line for the owner, up to STATUS_ATTENTION_MAX. */
void	status_attention(struct status *, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * The Mattermost bridge (status_bridge.c): its state file read into
 * st->bridge, with a line for the owner when it needs one; its lines of
 * text; its JSON object.
 */
void	status_bridge_gather(struct status *);
void	status_bridge_text(const struct status *);
json_t	*status_bridge_json(const struct status *);
/* The status as one JSON object on stdout. */
void	status_json(const struct status *);
void	status_free(struct status *);

#endif
