/*
 * turn_print.h: what bxctl chat prints of a turn's events (the lines of
 * turn.h), apart from how they are read. turn.c reads loopd's frames, in
 * ticks that look for Ctrl-C, and hands each event here; the turn-event
 * fuzzer hands decoded events to a state of its own, with out a memstream.
 *
 * A state lives for one turn: turn_print_init, an event at a time, then
 * turn_print_free. Between events it holds the open line of text_delta
 * pieces (and the escape_stream that spans them), the last model line
 * shown, and the status line. An approval_pending event looks the
 * approval up on admin.sock and, with opts->ask, asks (turn_ask.c).
 *
 * Ownership: turn_print_free frees what the state allocated; session and
 * opts stay the caller's.
 */
#ifndef BXCTL_TURN_PRINT_H
#define BXCTL_TURN_PRINT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "bxctl/chat/statusline.h"
#include "bxctl/chat/turn.h"
#include "proto/escape.h"
#include "proto/message.h"

/* What a turn remembers between its events. */
struct turn_state {
	const struct turn_opts	*opts;
	FILE			*out;		/* stdout for bxctl */
	char			*session;	/* BX_ID_MAX + 1 bytes */
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

/*
 * A new turn's state, printing on out; timeout_ms is
 * TURN_EVENT_TIMEOUT_MS, and the status line is set up from opts.
 */
void	turn_print_init(struct turn_state *, const struct turn_opts *,
	    char *session, FILE *out);

/*
 * Prints one event. A started event sets session; an error event sets
 * failed; an approval_pending event may lengthen timeout_ms, or set
 * stopped if the owner's Ctrl-C came instead of an answer.
 */
void	turn_print_event(struct turn_state *, const struct bx_turn_event *);

/* Erases the status line and closes a line of deltas left open. */
void	turn_print_end(struct turn_state *);

/* turn_print_end, and what the owner sees of a stop (not with json). */
void	turn_print_stopped(struct turn_state *);

void	turn_print_free(struct turn_state *);

/*
 * Prints the frame line[0..len) on fp as compact JSON with every non-ASCII
 * character and every control escaped (JSON_ENSURE_ASCII, hex digits
 * made lowercase), and DEL, which jansson leaves raw, as \u007f: still
 * valid JSON, and pure printable ASCII. Returns 0, or -1 if the line is not JSON.
 */
int	turn_json(FILE *fp, const char *line, size_t len);

#endif
