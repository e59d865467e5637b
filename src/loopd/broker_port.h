/*
 * broker_port.h: BrokerPort, the ToolPort over brokerd's broker.sock
 * (design section 8). One connection per request: tool_request out, then
 * at most one pending_approval frame, at most one approved frame after it
 * (the owner said yes and the call runs), and the final tool_response in.
 *
 * Waiting: BPORT_ANSWER_TIMEOUT_MS for the first frame; after a pending
 * frame, until its expires plus BPORT_PENDING_GRACE_MS. A broker that
 * cannot be reached, closes early, times out or sends something other than
 * the protocol gives the model failed "the tool broker is unavailable" and
 * the operator a notice ending in see docs/runbook.md#broker-unavailable.
 * The turn goes on. The turn's cancel flag (toolport.h) ends only a wait
 * between the pending frame and the approved one: the connection closes,
 * brokerd drops the approval, and the model gets failed TOOL_GIVEN_UP (no
 * notice). After the approved frame the wait is an auto call's again.
 *
 * Ownership: bport_new() allocates; bport_free() frees (NULL allowed). The
 * struct tool_port filled by bport_tool_port() borrows the BrokerPort.
 */
#ifndef LOOPD_BROKER_PORT_H
#define LOOPD_BROKER_PORT_H

#include <stdatomic.h>
#include <stdint.h>

#include "proto/error.h"
#include "loopd/toolport.h"

/* Until brokerd decides (it serializes the calls of a session). */
#define BPORT_ANSWER_TIMEOUT_MS		(600 * 1000)
/* After the pending frame: its expires plus this. */
#define BPORT_PENDING_GRACE_MS		(30 * 1000)
/* ... but never less than this from the frame, if that has passed. */
#define BPORT_PENDING_MIN_MS		1000
/* Writing the request. */
#define BPORT_WRITE_TIMEOUT_MS		(10 * 1000)
/* How often a wait looks at the stop flag. */
#define BPORT_STOP_POLL_MS		250

#define BPORT_UNAVAILABLE	"the tool broker is unavailable"

struct bport;

/* stop, when not NULL, ends a wait with failed once it becomes non-zero. */
int	bport_new(const char *socket_path, const atomic_int *stop,
	    struct bport **ret, struct bx_error *err);
void	bport_free(struct bport *);
void	bport_tool_port(struct bport *, struct tool_port *ret);

/*
 * When the wait after a pending frame ends, on the monotonic clock:
 * expires (wall-clock ms) plus BPORT_PENDING_GRACE_MS, at least
 * BPORT_PENDING_MIN_MS after now. now_wall and now_mono are the same
 * instant on both clocks. Apart so that tests can check it exactly.
 */
int64_t	bport_pending_deadline(int64_t expires, int64_t now_wall,
	    int64_t now_mono);

#endif
