/*
 * peercred.h: who may connect to a daemon's socket (roles.md section 4).
 * brokerd and loopd ask the kernel for each connection's peer uid
 * (SO_PEERCRED: the uid as it was at connect(2), which the peer cannot
 * change or forge) before they read a byte from it, and serve only the
 * uids of that socket's rule. The file modes stay the first lock; this is
 * the second, so that a mode or an ACL set wrong by hand does not open a
 * socket to a uid it must not serve (loopd's to admin.sock above all).
 *
 * A refusal is printed once per uid and socket, so that a peer retrying
 * in a loop cannot flood the log: a struct bx_peer_seen remembers the first
 * BX_PEER_SEEN_MAX uids refused, and past that, refusals go on unprinted.
 *
 * Nothing here allocates, prints or locks: a rule is only read once made,
 * and a seen set belongs to the one thread that accepts connections.
 */
#ifndef BX_PROTO_PEERCRED_H
#define BX_PROTO_PEERCRED_H

#include <sys/types.h>

#include <stdbool.h>
#include <stddef.h>

#include "proto/error.h"

/* Uids one socket serves: its daemon's, root, loopd's jail, the owner. */
#define BX_PEER_RULE_MAX	4
/* Distinct refused uids a socket remembers, to print each once. */
#define BX_PEER_SEEN_MAX	64
/* The uid refused when the kernel would not say who the peer is. */
#define BX_PEER_UID_UNKNOWN	((uid_t)-1)
#define BX_PEER_RUNBOOK		"see docs/runbook.md#socket-forbidden"

struct bx_peer_rule {
	const char	*pr_socket;	/* its name in messages: "admin.sock" */
	uid_t		 pr_uid[BX_PEER_RULE_MAX];
	size_t		 pr_nuid;
};

struct bx_peer_seen {
	uid_t		 ps_uid[BX_PEER_SEEN_MAX];
	size_t		 ps_nuid;
};

/* A rule for the socket named socket (borrowed) that serves no one yet. */
void	bx_peer_rule_init(struct bx_peer_rule *, const char *socket);

/* Adds uid to the rule (once); -1 when BX_PEER_RULE_MAX are already in. */
int	bx_peer_rule_add(struct bx_peer_rule *, uid_t uid,
	    struct bx_error *err);

bool	bx_peer_rule_allows(const struct bx_peer_rule *, uid_t uid);

/* The uid of the process that connected fd, as it was at connect(2). */
int	bx_peer_uid(int fd, uid_t *ret, struct bx_error *err);

/*
 * 0 when fd's peer is a uid the rule serves. Otherwise -1, with err the
 * refusal in the words both the peer's error frame and the daemon's log
 * use ("refused a connection on admin.sock from uid 1234: admin.sock
 * serves only uids 1000 and 0; see docs/runbook.md#socket-forbidden").
 * *ret_uid is the peer's uid either way (BX_PEER_UID_UNKNOWN when the
 * kernel would not say), because a refusal is printed once per uid.
 */
int	bx_peer_check(int fd, const struct bx_peer_rule *, uid_t *ret_uid,
	    struct bx_error *err);

/*
 * Whether uid is refused here for the first time: true once per uid, for
 * the first BX_PEER_SEEN_MAX uids; false for a uid seen before and for
 * every uid once the set is full. The daemon prints only when it is true.
 */
bool	bx_peer_seen_first(struct bx_peer_seen *, uid_t uid);

#endif
