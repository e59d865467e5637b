/*
 * turn.h: one chat turn with loopd (baseline.md section 7): send
 * chat {session, text} on loop.sock and print each turn_event as it
 * arrives, until the final one. A person sees one line per event, with
 * everything from the model or a tool escaped (escape.h), so no line the
 * model wrote can pass for one of bxctl's:
 *
 *	session chat-1758200000000		(once, when it is new)
 *	model: Let me look.			(text, and the final reply)
 *	call call_0: shell {"command": "ls"}
 *	<the two lines of show.h>		(approval_pending)
 *	result call_0: failed (public): timed out after 30 s
 *	error: the model server is unavailable	(the turn failed)
 *
 * With json, each frame loopd sent is printed instead as one line of
 * ASCII-only JSON (turn_json()), and nothing else.
 *
 * Nothing here allocates that outlives a call.
 */
#ifndef BXCTL_TURN_H
#define BXCTL_TURN_H

#include <stdbool.h>
#include <stdio.h>

#include "proto/error.h"
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
/* How long loopd may take to take the chat frame. */
#define TURN_SEND_TIMEOUT_MS	30000
/* The longest answer line to "approve N? [y/N]" that is read whole. */
#define TURN_ANSWER_MAX		256

struct turn_opts {
	const char	*loop_path;
	const char	*admin_path;
	bool		 json;		/* JSON lines instead of text */
	bool		 ask;		/* ask about each approval on stderr */
	FILE		*answers;	/* where the y/N answers are read */
};

/*
 * Runs one turn. session holds the session to go on with ("" for a new
 * one, BX_ID_MAX + 1 bytes) and is set from the started event. Returns 0
 * when the turn ended, with *ret_failed true if it ended in an error
 * event; -1 with err if loopd could not be reached or broke off.
 */
int	turn_run(const struct turn_opts *, char *session, const char *text,
	    bool *ret_failed, struct bx_error *);

/*
 * Prints the frame line[0..len) on fp as compact JSON with every non-ASCII
 * character and every control escaped (JSON_ENSURE_ASCII, hex digits
 * made lowercase), and DEL, which jansson leaves raw, as \u007f: still
 * valid JSON, and pure printable ASCII. Returns 0, or -1 if the line is not JSON.
 */
int	turn_json(FILE *fp, const char *line, size_t len);

/*
 * Prints the line of event ev on fp (the lines above), every string in it
 * escaped; approval_pending's block is not this function's (it asks
 * admin.sock). session is the session already shown, and last_text the
 * last text event's (NULL: none), which a done event does not repeat.
 */
void	turn_print_event(FILE *fp, const struct bx_turn_event *ev,
	    const char *session, const char *last_text);

#endif
