/*
 * statusline.h: what bxctl chat shows, on a terminal only, while a turn
 * has nothing to print: one line, redrawn in place once a second and
 * erased before anything else is printed, so it never mixes with the
 * output or stays in a scrollback:
 *
 *	thinking, 3 s					(the model works)
 *	read_file running, 2 s				(a call, until its result)
 *	waiting for your approval 41, expires in 14 min
 *
 * It is dim, unless NO_COLOR is set, which turns off the colour and
 * nothing else. When the output is not a terminal nothing is drawn. The
 * tool name is printed as data (escape.h) and cut to STATUS_TOOL_MAX.
 *
 * Nothing here allocates.
 */
#ifndef BXCTL_STATUSLINE_H
#define BXCTL_STATUSLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The longest tool name shown, escaped, with its "...". */
#define STATUS_TOOL_MAX		48
/* The longest status line. */
#define STATUS_TEXT_MAX		160

enum status_what {
	STATUS_NONE,		/* nothing: text streams, or a prompt is open */
	STATUS_THINKING,
	STATUS_TOOL,
	STATUS_APPROVAL
};

struct statusline {
	FILE			*sl_fp;
	bool			 sl_on;		/* a terminal: drawn at all */
	bool			 sl_color;
	bool			 sl_shown;	/* a line is on the screen */
	enum status_what	 sl_what;
	int64_t			 sl_since;	/* wall ms */
	char			 sl_tool[STATUS_TOOL_MAX];
	uint64_t		 sl_approval;
	int64_t			 sl_expires;	/* wall ms */
	char			 sl_drawn[STATUS_TEXT_MAX];
};

/* on: fp is a terminal; color: and NO_COLOR is not set. */
void	statusline_init(struct statusline *, FILE *fp, bool on, bool color);
void	statusline_set(struct statusline *, enum status_what, int64_t now);
void	statusline_tool(struct statusline *, const char *tool, int64_t now);
void	statusline_approval(struct statusline *, uint64_t id,
	    int64_t expires, int64_t now);
/* The line for now into buf (STATUS_TEXT_MAX); "" for STATUS_NONE. */
void	statusline_text(const struct statusline *, int64_t now, char *buf);
/* Draws the line for now if it is not the one on the screen. */
void	statusline_draw(struct statusline *, int64_t now);
/* Erases the line, if one is shown. */
void	statusline_clear(struct statusline *);

#endif
