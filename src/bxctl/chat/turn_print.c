/*
 * turn_print.c: a turn's events as bxctl chat prints them (turn_print.h).
 * Each event type has a small printer; approval_pending also shows the
 * approval and, interactively, asks (turn_ask.c). The model's text_delta
 * events open a "model: " line that the next other event closes; the
 * text or reply that repeats it is then not printed. turn.c, which reads
 * the events, calls here; nothing here calls turn.c.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bxctl/chat/compact.h"
#include "bxctl/chat/turn_print.h"
#include "bxctl/common/jsonout.h"
#include "bxctl/common/show.h"
#include "proto/json.h"

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

void
turn_print_init(struct turn_state *ts, const struct turn_opts *opts,
    char *session, FILE *out)
{
	memset(ts, 0, sizeof(*ts));
	ts->opts = opts;
	ts->out = out;
	ts->session = session;
	ts->timeout_ms = TURN_EVENT_TIMEOUT_MS;
	statusline_init(&ts->sl, out, opts->status, opts->color);
}

void
turn_print_free(struct turn_state *ts)
{
	free(ts->last_text);
	free(ts->streamed);
	ts->last_text = NULL;
	ts->streamed = NULL;
}

/* "model: <text>", escaped, on one line. */
static void
print_model(struct turn_state *ts, const char *text)
{
	fprintf(ts->out, "model: ");
	escape_puts(ts->out, text);
	fprintf(ts->out, "\n");
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
		fprintf(ts->out, "model: ");
		escape_stream_init(&ts->es);
		ts->in_deltas = true;
		ts->streamed_len = 0;
		ts->streamed_cut = false;
		keep_delta(ts, "", 0);
	}
	escape_stream_write(&ts->es, ts->out, text, len);
	keep_delta(ts, text, len);
}

/* Closes a line of deltas; its text is then the last one shown. */
static void
end_deltas(struct turn_state *ts)
{
	if (!ts->in_deltas)
		return;
	escape_stream_end(&ts->es, ts->out);
	fprintf(ts->out, "\n");
	ts->in_deltas = false;
	free(ts->last_text);
	ts->last_text = ts->streamed_cut ? NULL : ts->streamed;
	ts->streamed = NULL;
	ts->from_deltas = !ts->streamed_cut;
	fflush(ts->out);
}

/* A call: one line, compact or whole. */
static void
print_call(struct turn_state *ts, const struct bx_turn_event *ev)
{
	if (ts->opts->compact) {
		compact_call(ts->out, ev->tool, ev->arguments);
		return;
	}
	fprintf(ts->out, "call ");
	escape_puts(ts->out, ev->call);
	fprintf(ts->out, ": ");
	escape_puts(ts->out, ev->tool);
	fprintf(ts->out, " ");
	escape_puts(ts->out, ev->arguments);
	fprintf(ts->out, "\n");
}

static void
print_result(struct turn_state *ts, const struct bx_turn_event *ev)
{
	if (ts->opts->compact) {
		compact_result(ts->out, ev->status, ev->content);
		return;
	}
	fprintf(ts->out, "result ");
	escape_puts(ts->out, ev->call);
	fprintf(ts->out, ": %s (%s%s): ", bx_status_name(ev->status),
	    bx_class_name(ev->class), ev->untrusted ? ", untrusted" : "");
	escape_puts(ts->out, ev->content);
	fprintf(ts->out, "\n");
}

/*
 * An approval: its lines, and the question when asking. A Ctrl-C at the
 * question stops the turn; the status line waits with the owner.
 */
static void
on_approval(struct turn_state *ts, const struct bx_turn_event *ev)
{
	int64_t wait;

	turn_show_approval(ts->opts, ts->out, ev);
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

void
turn_print_event(struct turn_state *ts, const struct bx_turn_event *ev)
{
	statusline_clear(&ts->sl);
	if (ev->type != BX_EVENT_TEXT_DELTA)
		end_deltas(ts);
	switch (ev->type) {
	case BX_EVENT_STARTED:
		if (strcmp(ts->session, ev->session) != 0) {
			fprintf(ts->out, "session ");
			escape_puts(ts->out, ev->session);
			fprintf(ts->out, "\n");
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
			print_model(ts, ev->text);
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
			print_model(ts, ev->text);
		break;
	case BX_EVENT_ERROR:
		fprintf(ts->out, "error: ");
		escape_puts(ts->out, ev->text);
		fprintf(ts->out, "\n");
		ts->failed = true;
		break;
	default:
		break;
	}
	if (ev->type != BX_EVENT_TEXT_DELTA)
		ts->from_deltas = false;
	if (ev->type == BX_EVENT_DONE || ev->type == BX_EVENT_ERROR)
		statusline_set(&ts->sl, STATUS_NONE, show_now());
	fflush(ts->out);
	statusline_draw(&ts->sl, show_now());
}

void
turn_print_end(struct turn_state *ts)
{
	statusline_clear(&ts->sl);
	end_deltas(ts);
}

void
turn_print_stopped(struct turn_state *ts)
{
	turn_print_end(ts);
	if (ts->opts->json)
		return;
	fprintf(ts->out, "stopped (Ctrl-C): the turn ends here; what it did "
	    "so far is kept\n");
	fflush(ts->out);
}
