/*
 * turn.c: one chat turn (turn.h): the chat frame sent, then loopd's events
 * read until the final one, in ticks that look for Ctrl-C and redraw the
 * status line. What each event prints is turn_print.c's; this file calls
 * it and nothing there calls back.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

#include "bxctl/chat/interrupt.h"
#include "bxctl/chat/turn_print.h"
#include "bxctl/common/peer.h"
#include "bxctl/common/show.h"
#include "bxctl/common/sock.h"
#include "proto/clock.h"

/*
 * The next frame, waited for in ticks: 1 with *ret, 0 if the owner's
 * Ctrl-C came first (ts->stopped), -1 with err.
 */
static int
next_frame(struct turn_state *ts, struct bx_frame_reader *fr,
    struct bx_msg **ret, const char **line, size_t *len, struct bx_error *err)
{
	int64_t deadline = bx_clock_mono_ms() + ts->timeout_ms, left;
	enum bx_frame_status st;

	for (;;) {
		if (interrupt_take()) {
			ts->stopped = true;
			return 0;
		}
		if ((left = deadline - bx_clock_mono_ms()) <= 0)
			return bx_fail(err, "loopd sent nothing for %d s",
			    ts->timeout_ms / 1000);
		st = bx_frame_read(fr, left < TURN_TICK_MS ? (int)left :
		    TURN_TICK_MS, line, len, err);
		if (st == BX_FRAME_OK)
			break;
		/* The other ends are final: peer_read says them again. */
		if (st != BX_FRAME_TIMEOUT)
			return peer_read(fr, 0, "loopd", ret, NULL, NULL, err);
		statusline_draw(&ts->sl, show_now());
	}
	if (bx_msg_decode(*line, *len, ret, err) == -1)
		return bx_error_prefix(err, "loopd sent a frame bxctl cannot "
		    "read");
	return 1;
}

/* Reads and prints events until the final one. */
static int
events(struct turn_state *ts, struct bx_frame_reader *fr,
    struct bx_error *err)
{
	const char *line;
	struct bx_msg *msg;
	size_t len;
	bool final;
	int r;

	for (;;) {
		if ((r = next_frame(ts, fr, &msg, &line, &len, err)) != 1)
			return r;
		if (ts->opts->json) {
			turn_json(ts->out, line, len);
			fflush(ts->out);
		}
		if (msg->kind == BX_MSG_ERROR) {
			peer_error(msg, "loopd", err);
			bx_msg_free(msg);
			return -1;
		}
		if (msg->kind != BX_MSG_TURN_EVENT) {
			bx_fail(err, "loopd answered %s to chat",
			    bx_msg_kind_name(msg->kind));
			bx_msg_free(msg);
			return -1;
		}
		ts->timeout_ms = TURN_EVENT_TIMEOUT_MS;
		if (ts->opts->json) {
			if (msg->turn_event.type == BX_EVENT_STARTED)
				snprintf(ts->session, BX_ID_MAX + 1, "%s",
				    msg->turn_event.session);
			if (msg->turn_event.type == BX_EVENT_ERROR)
				ts->failed = true;
		} else
			turn_print_event(ts, &msg->turn_event);
		final = bx_msg_is_final(msg);
		bx_msg_free(msg);
		if (final || ts->stopped)
			return 0;
	}
}

int
turn_run(const struct turn_opts *opts, char *session, const char *text,
    enum turn_end *ret_end, struct bx_error *err)
{
	struct turn_state ts;
	struct bx_frame_reader fr;
	struct bx_msg *chat;
	int fd, rc = -1;

	turn_print_init(&ts, opts, session, stdout);
	if (sock_connect(opts->loop_path, "loopd", &fd, err) == -1)
		return -1;
	bx_frame_reader_init(&fr, fd);
	chat = bx_msg_chat(session[0] == '\0' ? NULL : session, text);
	if (chat == NULL) {
		bx_fail(err, "out of memory");
		goto out;
	}
	if (bx_msg_send(fd, chat, TURN_SEND_TIMEOUT_MS, err) == -1) {
		bx_error_prefix(err, "sending chat to loopd at %s",
		    opts->loop_path);
		goto out;
	}
	statusline_set(&ts.sl, STATUS_THINKING, show_now());
	statusline_draw(&ts.sl, show_now());
	/* A line of deltas that loopd broke off is ended before its error. */
	if (events(&ts, &fr, err) == -1) {
		turn_print_end(&ts);
		goto out;
	}
	if (ts.stopped)
		turn_print_stopped(&ts);
	statusline_clear(&ts.sl);
	*ret_end = ts.stopped ? TURN_STOPPED : ts.failed ? TURN_FAILED :
	    TURN_DONE;
	rc = 0;
out:
	bx_msg_free(chat);
	turn_print_free(&ts);
	bx_frame_reader_free(&fr);
	close(fd);
	return rc;
}
