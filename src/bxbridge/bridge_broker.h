/*
 * bridge_broker.h: the bridge's side of brokerd's bridge.sock
 * (docs/protocol.md, "bridge.sock: bxbridge's requests"): one request a
 * connection, its one answer read while watching stop_fd, so that a long
 * approvals_wait never keeps the bridge from stopping.
 *
 * Ownership: the caller keeps req; *ret is a new message the caller frees
 * with bx_msg_free().
 */
#ifndef BXBRIDGE_BRIDGE_BROKER_H
#define BXBRIDGE_BRIDGE_BROKER_H

#include <stddef.h>
#include <stdint.h>

#include "proto/error.h"
#include "proto/message.h"

/* How long brokerd may take beyond a request's own wait. */
#define BRIDGE_BROKER_SLACK_MS	30000

/*
 * Sends req to the socket at path and reads the answer, whatever its kind
 * (an error frame too): 0 and *ret; 1 when stop_fd became readable first;
 * -1 with err when brokerd is not there or answered nothing readable
 * within wait_ms + BRIDGE_BROKER_SLACK_MS.
 */
int	bridge_broker_call(const char *path, const struct bx_msg *req,
	    int wait_ms, int stop_fd, struct bx_msg **ret, struct bx_error *);

/*
 * approvals_wait with the n ids of known and timeout_ms: 0 and *ret, an
 * approval_changes; 1 on stop; -1 with err otherwise (brokerd's error
 * frame quoted).
 */
int	bridge_broker_wait(const char *path, const uint64_t *known, size_t n,
	    int timeout_ms, int stop_fd, struct bx_msg **ret, struct bx_error *);

#endif
