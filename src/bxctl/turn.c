/*
 * turn.c: one chat turn (turn.h). The loop reads events until the final
 * one, in ticks that look for Ctrl-C and redraw the status line; each
 * event type has a small printer, and approval_pending also shows the
 * approval and, interactively, asks (turn_ask.c). The model's text_delta
 * events open a "model: " line that the next other event closes; the
 * text or reply that repeats it is then not printed.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "bxctl/cli.h"
#include "bxctl/compact.h"
#include "bxctl/escape.h"
#include "bxctl/interrupt.h"
#include "bxctl/jsonout.h"
#include "bxctl/peer.h"
#include "bxctl/show.h"
#include "bxctl/sock.h"
#include "bxctl/statusline.h"
#include "bxctl/turn.h"
#include "proto/clock.h"
#include "proto/json.h"

/* What a turn remembers between its events. */
struct turn_state {
	const struct turn_opts	*opts;
	char			*session;
	char			*last_text;	/* the last model line shown */
	int			 timeout_ms;	/* for the next event */
	bool			 failed;
	bool			 in_deltas;	/* a line of deltas is open */
	bool			 from_deltas;	/* last_text was that line */
	struct escape_stream	 es;
	char			*streamed;	/* the open line's text */
	size_t			 streamed_len;
	bool			 streamed_cut;	/* past TURN_STREAM_MAX */
	bool			 stopped;	/* by the owner's Ctrl-C */
	struct statusline	 sl;
};

int
turn_json(FILE *fp, const char *line, size_t len)
{
	json_t *obj;
	int rc;

	if (bx_json_parse(line, len, &obj, NULL) == -1)
		return -1;
	rc = jsonout_print(fp, obj);
	json_decref(obj);
	return rc;
}

/* "model: <text>", escaped, on one line. */
static void
print_model(const char *text)
{
	printf("model: ");
	escape_puts(stdout, text);
	printf("\n");
}

/* Keeps the open line's text, to know the text event that repeats it. */
static void
keep_delta(struct turn_state *ts, const char *text, size_t len)
{
	char *grown;

	if (ts->streamed_cut)
		return;
	if (ts->streamed_len + len > TURN_STREAM_MAX ||
	    (grown = realloc(ts->streamed, ts->streamed_len + len + 1)) ==
	    NULL) {
		ts->streamed_cut = true;
		return;
	}
	memcpy(grown + ts->streamed_len, text, len);
	ts->streamed_len += len;
	grown[ts->streamed_len] = '\0';
	ts->streamed = grown;
}

/* One piece of the model's text, escaped across pieces (escape.h). */
static void
print_delta(struct turn_state *ts, const char *text)
{
	size_t len = strlen(text);

	if (!ts->in_deltas) {
		printf("model: ");
		escape_stream_init(&ts->es);
		ts->in_deltas = true;
		ts->streamed_len = 0;
		ts->streamed_cut = false;
		keep_delta(ts, "", 0);
	}
	escape_stream_write(&ts->es, stdout, text, len);
	keep_delta(ts, text, len);
}

/* Closes a line of deltas; its text is then the last one shown. */
static void
end_deltas(struct turn_state *ts)
{
	if (!ts->in_deltas)
		return;
	escape_stream_end(&ts->es, stdout);
	printf("\n");
	ts->in_deltas = false;
	free(ts->last_text);
	ts->last_text = ts->streamed_cut ? NULL : ts->streamed;
	ts->streamed = NULL;
	ts->from_deltas = !ts->streamed_cut;
	fflush(stdout);
}

/* A call: one line, compact or whole. */
static void
print_call(struct turn_state *ts, const struct bx_turn_event *ev)
{
	if (ts->opts->compact) {
		compact_call(stdout, ev->tool, ev->arguments);
		return;
	}
	printf("call ");
	escape_puts(stdout, ev->call);
	printf(": ");
	escape_puts(stdout, ev->tool);
	printf(" ");
	escape_puts(stdout, ev->arguments);
	printf("\n");
}

static void
print_result(struct turn_state *ts, const struct bx_turn_event *ev)
{
	if (ts->opts->compact) {
		compact_result(stdout, ev->status, ev->content);
		return;
	}
	printf("result ");
	escape_puts(stdout, ev->call);
	printf(": %s (%s%s): ", bx_status_name(ev->status),
	    bx_class_name(ev->class), ev->untrusted ? ", untrusted" : "");
	escape_puts(stdout, ev->content);
	printf("\n");
}

/*
 * An approval: its lines, and the question when asking. A Ctrl-C at the
 * question stops the turn; the status line waits with the owner.
 */
static void
on_approval(struct turn_state *ts, const struct bx_turn_event *ev)
{
	int64_t wait;

	turn_show_approval(ts->opts, ev);
	if (ts->opts->ask) {
		if (turn_ask(ts->opts, ev->approval) == -1) {
			ts->stopped = true;
			return;
		}
		statusline_tool(&ts->sl, ev->tool, show_now());
	} else
		statusline_approval(&ts->sl, ev->approval, ev->expires,
		    show_now());
	/* loopd waits for brokerd until the expiry and then some. */
	wait = ev->expires - show_now() + TURN_EXPIRY_GRACE_MS;
	if (wait > ts->timeout_ms)
		ts->timeout_ms = wait > INT32_MAX ? INT32_MAX : (int)wait;
}

static void
on_event(struct turn_state *ts, const struct bx_turn_event *ev)
{
	statusline_clear(&ts->sl);
	if (ev->type != BX_EVENT_TEXT_DELTA)
		end_deltas(ts);
	switch (ev->type) {
	case BX_EVENT_STARTED:
		if (strcmp(ts->session, ev->session) != 0) {
			printf("session ");
			escape_puts(stdout, ev->session);
			printf("\n");
		}
		snprintf(ts->session, BX_ID_MAX + 1, "%s", ev->session);
		break;
	case BX_EVENT_TEXT_DELTA:
		print_delta(ts, ev->text);
		statusline_set(&ts->sl, STATUS_NONE, show_now());
		break;
	case BX_EVENT_TEXT:
		/* The same text just streamed is not shown twice. */
		if (!ts->from_deltas || ts->last_text == NULL ||
		    strcmp(ts->last_text, ev->text) != 0)
			print_model(ev->text);
		free(ts->last_text);
		ts->last_text = strdup(ev->text);
		statusline_set(&ts->sl, STATUS_THINKING, show_now());
		break;
	case BX_EVENT_TOOL_CALL:
		print_call(ts, ev);
		statusline_tool(&ts->sl, ev->tool, show_now());
		break;
	case BX_EVENT_TOOL_RESULT:
		print_result(ts, ev);
		statusline_set(&ts->sl, STATUS_THINKING, show_now());
		break;
	case BX_EVENT_APPROVAL_PENDING:
		on_approval(ts, ev);
		break;
	case BX_EVENT_TOOL_RUNNING:
		/* Approved: no longer waiting for the owner. */
		statusline_tool(&ts->sl, ev->tool, show_now());
		break;
	case BX_EVENT_DONE:
		/* A reply already shown as the last text is not shown twice. */
		if (ts->last_text == NULL ||
		    strcmp(ts->last_text, ev->text) != 0)
			print_model(ev->text);
		break;
	case BX_EVENT_ERROR:
		printf("error: ");
		escape_puts(stdout, ev->text);
		printf("\n");
		ts->failed = true;
		break;
	default:
		break;
	}
	if (ev->type != BX_EVENT_TEXT_DELTA)
		ts->from_deltas = false;
	if (ev->type == BX_EVENT_DONE || ev->type == BX_EVENT_ERROR)
		statusline_set(&ts->sl, STATUS_NONE, show_now());
	fflush(stdout);
	statusline_draw(&ts->sl, show_now());
}

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
			turn_json(stdout, line, len);
			fflush(stdout);
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
			on_event(ts, &msg->turn_event);
		final = bx_msg_is_final(msg);
		bx_msg_free(msg);
		if (final || ts->stopped)
			return 0;
	}
}

/* What the owner sees of a stop; loopd learns it from the close. */
static void
print_stopped(struct turn_state *ts)
{
	statusline_clear(&ts->sl);
	end_deltas(ts);
	if (ts->opts->json)
		return;
	printf("stopped (Ctrl-C): the turn ends here; what it did so far is "
	    "kept\n");
	fflush(stdout);
}

int
turn_run(const struct turn_opts *opts, char *session, const char *text,
    enum turn_end *ret_end, struct bx_error *err)
{
	struct turn_state ts = { .opts = opts, .session = session,
	    .timeout_ms = TURN_EVENT_TIMEOUT_MS };
	struct bx_frame_reader fr;
	struct bx_msg *chat;
	int fd, rc = -1;

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
	statusline_init(&ts.sl, stdout, opts->status, opts->color);
	statusline_set(&ts.sl, STATUS_THINKING, show_now());
	statusline_draw(&ts.sl, show_now());
	/* A line of deltas that loopd broke off is ended before its error. */
	if (events(&ts, &fr, err) == -1) {
		statusline_clear(&ts.sl);
		end_deltas(&ts);
		goto out;
	}
	if (ts.stopped)
		print_stopped(&ts);
	statusline_clear(&ts.sl);
	*ret_end = ts.stopped ? TURN_STOPPED : ts.failed ? TURN_FAILED :
	    TURN_DONE;
	rc = 0;
out:
	bx_msg_free(chat);
	free(ts.last_text);
	free(ts.streamed);
	bx_frame_reader_free(&fr);
	close(fd);
	return rc;
}
