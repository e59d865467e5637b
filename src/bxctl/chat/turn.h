/*
 * turn.h: one chat turn with loopd (baseline.md section 7): send
 * chat {session, text} on loop.sock and print each turn_event as it
 * arrives, until the final one. A person sees one line per event, with
 * everything from the model or a tool escaped (escape.h), so no line the
 * model wrote can pass for one of bxctl's:
 *
 *	session chat-1758200000000		(once, when it is new)
 *	model: Let me look.			(text, and the final reply)
 *						(or the same line printed
 *						piece by piece as text_delta
 *						events arrive; the text or
 *						reply that repeats it is not
 *						printed again)
 *	call call_0: shell {"command": "ls"}
 *	<the two lines of show.h>		(approval_pending)
 *	result call_0: failed (public): timed out after 30 s
 *	error: the model server is unavailable	(the turn failed)
 *	stopped (Ctrl-C): ...			(the owner stopped it)
 *
 * With compact (a terminal, without --verbose), a call and its result
 * are one line each, ids left out (compact.h); with status, the status
 * line shows what the turn is doing while nothing is printed
 * (statusline.h).
 *
 * With json, each frame loopd sent is printed instead as one line of
 * ASCII-only JSON (turn_json(), turn_print.h), and nothing else.
 *
 * Ctrl-C (interrupt.h) stops the turn: bxctl closes its connection, which
 * is how loopd is told (protocol.md), and the turn ends as TURN_STOPPED.
 * bxctl reads loopd in slices of TURN_TICK_MS, so that it sees the
 * SIGINT and redraws the status line.
 *
 * Nothing here allocates that outlives a call.
 */
#ifndef BXCTL_TURN_H
#define BXCTL_TURN_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "proto/error.h"
#include "proto/frame.h"
#include "proto/message.h"
#include "proto/types.h"

/*
 * Longest gap between two events of a turn, unless an approval waits:
 * loopd.toml's largest timeout_s (3600 s, one model request) and a minute.
 * loopd bounds each of its waits itself; this only keeps bxctl from
 * giving up on a turn that a slow model is still working on.
 */
#define TURN_EVENT_TIMEOUT_MS	(3660 * 1000)
/* After an approval's expiry, how long loopd may take to go on. */
#define TURN_EXPIRY_GRACE_MS	60000
/*
 * The most of a line of deltas kept to compare with the text that ends
 * it (which one frame bounds); past it, that text is printed again.
 */
#define TURN_STREAM_MAX		BX_FRAME_MAX
/* How long loopd may take to take the chat frame. */
#define TURN_SEND_TIMEOUT_MS	30000
/* The longest answer line to "approve N? ..." that is read whole. */
#define TURN_ANSWER_MAX		256
/* How often a turn looks for Ctrl-C and redraws the status line. */
#define TURN_TICK_MS		250
/* [f]or a while, when the owner just presses Enter. */
#define TURN_FOR_DEFAULT	"1h"

struct linein;
struct prompt;

struct turn_opts {
	const char	*loop_path;
	const char	*admin_path;
	const char	*config;	/* brokerd.toml, for [f]; NULL: default */
	bool		 json;		/* JSON lines instead of text */
	bool		 ask;		/* ask about each approval on stderr */
	bool		 compact;	/* a line per call and result, no ids */
	bool		 status;	/* draw the status line */
	bool		 color;		/* in colour (no NO_COLOR) */
	struct linein	*answers;	/* where lines are read plainly */
	struct prompt	*prompt;	/* NULL: from answers, not edited */
};

enum turn_end {
	TURN_DONE,
	TURN_FAILED,		/* it ended in an error event */
	TURN_STOPPED		/* the owner's Ctrl-C stopped it */
};

/*
 * Runs one turn. session holds the session to go on with ("" for a new
 * one, BX_ID_MAX + 1 bytes) and is set from the started event. Returns 0
 * when the turn ended, and how; -1 with err if loopd could not be reached
 * or broke off.
 */
int	turn_run(const struct turn_opts *, char *session, const char *text,
	    enum turn_end *ret_end, struct bx_error *);

/* The two lines of an approval_pending event on out (turn_ask.c). */
void	turn_show_approval(const struct turn_opts *, FILE *out,
	    const struct bx_turn_event *);
/*
 * Asks the owner about approval id and answers brokerd: [y]es once,
 * [f]or a while, [N]o. Returns 0, or -1 if a Ctrl-C came instead of an
 * answer (nothing was answered).
 */
int	turn_ask(const struct turn_opts *, uint64_t id);

#endif
