/*
 * broker_port.c: BrokerPort. The socket is non-blocking so that a broker
 * whose backlog is full is "unavailable" at once rather than a hang, and
 * every wait is cut into slices so that loopd can stop while a call waits
 * for the owner.
 */
#include <sys/un.h>

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopd/broker_port.h"
#include "proto/clock.h"
#include "proto/frame.h"
#include "proto/unixsock.h"

#define BPORT_RUNBOOK	"see docs/runbook.md#broker-unavailable"
/* A sockaddr_un's path, with its NUL. */
#define BPORT_PATH_MAX	sizeof(((struct sockaddr_un *)0)->sun_path)

struct bport {
	char				 bp_path[BPORT_PATH_MAX];
	const atomic_int		*bp_stop;
};

int
bport_new(const char *path, const atomic_int *stop,
    struct bport **ret, struct bx_error *err)
{
	struct bport *bp;

	if (strlen(path) >= sizeof(bp->bp_path))
		return bx_fail(err, "broker socket path %s is too long", path);
	if ((bp = calloc(1, sizeof(*bp))) == NULL)
		return bx_fail(err, "out of memory");
	memcpy(bp->bp_path, path, strlen(path) + 1);
	bp->bp_stop = stop;
	*ret = bp;
	return 0;
}

void
bport_free(struct bport *bp)
{
	free(bp);
}

int64_t
bport_pending_deadline(int64_t expires, int64_t now_wall, int64_t now_mono)
{
	int64_t left = expires + BPORT_PENDING_GRACE_MS - now_wall;

	return now_mono + (left > BPORT_PENDING_MIN_MS ? left :
	    BPORT_PENDING_MIN_MS);
}

/* A failed answer for the model and the notice for the operator. */
static struct bx_msg *
unavailable(const struct bport *bp, struct bx_error *notice, const char *why)
{
	bx_fail(notice, "the tool broker at %s is unavailable (%s); "
	    BPORT_RUNBOOK, bp->bp_path, why);
	return bx_msg_failed(BPORT_UNAVAILABLE);
}

static int
connect_broker(const struct bport *bp, struct bx_error *err)
{
	struct bx_error why;
	int fd;

	/* The notice names the path already: only the reason here. */
	if (bx_unix_connect(bp->bp_path, BX_UNIX_NONBLOCK, &fd, &why) == -1)
		return bx_fail(err, "connect: %s", strerror(errno));
	return fd;
}

/* One call's wait: its deadline, and whether the owner may give it up. */
struct bwait {
	int64_t			 bw_deadline;	/* monotonic ms */
	const atomic_int	*bw_cancel;	/* the turn's, or NULL */
	bool			 bw_pending;	/* waits for an approval */
	bool			 bw_approved;	/* approved: runs, is not given up */
	bool			 bw_given_up;	/* bw_cancel ended it */
};

/*
 * Reads the next frame before the deadline, in slices, so that the stop
 * flag is seen, and the turn's cancel while an approval waits (a call
 * that runs, auto or approved, is left to end). Returns the frame status.
 */
static enum bx_frame_status
read_frame(const struct bport *bp, struct bx_frame_reader *rd,
    struct bwait *w, const char **line, size_t *len, struct bx_error *err)
{
	enum bx_frame_status st;
	int64_t left;

	for (;;) {
		if (bp->bp_stop != NULL && atomic_load(bp->bp_stop)) {
			bx_fail(err, "loopd is stopping");
			return BX_FRAME_IO;
		}
		if (w->bw_pending && w->bw_cancel != NULL &&
		    atomic_load(w->bw_cancel)) {
			w->bw_given_up = true;
			bx_fail(err, "the owner stopped the turn");
			return BX_FRAME_IO;
		}
		left = w->bw_deadline - bx_clock_mono_ms();
		if (left <= 0) {
			bx_fail(err, "no answer in time");
			return BX_FRAME_TIMEOUT;
		}
		st = bx_frame_read(rd, left < BPORT_STOP_POLL_MS ? (int)left :
		    BPORT_STOP_POLL_MS, line, len, err);
		if (st != BX_FRAME_TIMEOUT)
			return st;
	}
}

/* What an error frame from brokerd becomes. */
static struct bx_msg *
broker_error(const struct bport *bp, const struct bx_msg *m,
    struct bx_error *notice)
{
	char why[BX_ERROR_MAX];

	snprintf(why, sizeof(why), "it answered error %s: %s",
	    bx_code_name(m->error.code), m->error.message);
	return unavailable(bp, notice, why);
}

/*
 * A frame before the answer: pending_approval at most once, then approved
 * at most once after it. From approved on, the call runs: the turn's stop
 * no longer gives it up, and the wait is an auto call's again.
 */
static int
not_final(struct bwait *w, const struct bx_msg *m, struct bx_error *err)
{
	const struct bx_tool_response *r = &m->tool_response;

	if (r->status == BX_STATUS_PENDING_APPROVAL) {
		if (w->bw_pending || w->bw_approved)
			return bx_fail(err, "it sent a second pending_approval "
			    "frame");
		w->bw_pending = true;
		w->bw_deadline = bport_pending_deadline(r->expires,
		    bx_clock_wall_ms(), bx_clock_mono_ms());
		return 0;
	}
	if (!w->bw_pending)
		return bx_fail(err, "it sent an approved frame without a "
		    "pending_approval frame waiting");
	w->bw_pending = false;
	w->bw_approved = true;
	w->bw_deadline = bx_clock_mono_ms() + BPORT_ANSWER_TIMEOUT_MS;
	return 0;
}

/* The wait after the request has gone out; returns the final answer. */
static struct bx_msg *
await_answer(const struct bport *bp, int fd, tool_progress_fn *on_progress,
    void *arg, const atomic_int *cancel, struct bx_error *notice)
{
	struct bwait w = { .bw_deadline = bx_clock_mono_ms() +
	    BPORT_ANSWER_TIMEOUT_MS, .bw_cancel = cancel };
	struct bx_frame_reader rd;
	enum bx_frame_status st;
	struct bx_msg *m = NULL, *out = NULL;
	struct bx_error why;
	const char *line;
	size_t len;

	bx_frame_reader_init(&rd, fd);
	while (out == NULL) {
		st = read_frame(bp, &rd, &w, &line, &len, &why);
		if (w.bw_given_up) {
			/* Not the broker's fault: no notice. */
			out = bx_msg_failed(atomic_load(cancel) ==
			    TURN_STOP_MAX_S ? TOOL_GIVEN_UP_MAX_S :
			    TOOL_GIVEN_UP);
			break;
		}
		if (st != BX_FRAME_OK) {
			out = unavailable(bp, notice, st == BX_FRAME_EOF ?
			    "it closed the connection before answering" :
			    why.msg);
			break;
		}
		if (bx_msg_decode(line, len, &m, &why) == -1) {
			out = unavailable(bp, notice, why.msg);
			break;
		}
		if (m->kind == BX_MSG_ERROR) {
			out = broker_error(bp, m, notice);
		} else if (m->kind != BX_MSG_TOOL_RESPONSE) {
			out = unavailable(bp, notice, "it sent a message that "
			    "is not a tool_response");
		} else if (bx_status_is_final(m->tool_response.status)) {
			out = m;
			m = NULL;
		} else if (not_final(&w, m, &why) == -1) {
			out = unavailable(bp, notice, why.msg);
		} else {
			on_progress(arg, &m->tool_response);
		}
		bx_msg_free(m);
		m = NULL;
	}
	bx_frame_reader_free(&rd);
	return out;
}

static struct bx_msg *
bport_call(void *ctx, const struct bx_tool_request *req,
    tool_progress_fn *on_progress, void *arg, const atomic_int *cancel,
    struct bx_error *notice)
{
	const struct bport *bp = ctx;
	struct bx_msg *msg, *out;
	struct bx_error why;
	int fd;

	notice->msg[0] = '\0';
	if ((fd = connect_broker(bp, &why)) == -1)
		return unavailable(bp, notice, why.msg);
	msg = bx_msg_tool_request(req->session, req->call, req->tool,
	    req->arguments);
	if (msg == NULL) {
		close(fd);
		return NULL;
	}
	if (bx_msg_send(fd, msg, BPORT_WRITE_TIMEOUT_MS, &why) == -1)
		out = unavailable(bp, notice, why.msg);
	else
		out = await_answer(bp, fd, on_progress, arg, cancel, notice);
	bx_msg_free(msg);
	close(fd);
	return out;
}

void
bport_tool_port(struct bport *bp, struct tool_port *ret)
{
	ret->tp_call = bport_call;
	ret->tp_ctx = bp;
}
