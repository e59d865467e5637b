/*
 * statusline.c: the one line of what is happening (statusline.h). It is
 * drawn as CR, the text and "erase to the end of the line", and erased
 * as CR and the same: the cursor stays at the start of an empty line, as
 * if nothing had been drawn.
 */
#include <sys/ioctl.h>

#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/chat/statusline.h"
#include "proto/escape.h"
#include "bxctl/common/show.h"

#define ERASE_LINE	"\r\033[K"
#define DIM		"\033[2m"
#define PLAIN		"\033[0m"

void
statusline_init(struct statusline *sl, FILE *fp, bool on, bool color)
{
	memset(sl, 0, sizeof(*sl));
	sl->sl_fp = fp;
	sl->sl_on = on;
	sl->sl_color = color;
}

void
statusline_set(struct statusline *sl, enum status_what what, int64_t now)
{
	sl->sl_what = what;
	sl->sl_since = now;
}

void
statusline_tool(struct statusline *sl, const char *tool, int64_t now)
{
	escape_buf(tool, sl->sl_tool, sizeof(sl->sl_tool));
	statusline_set(sl, STATUS_TOOL, now);
}

void
statusline_approval(struct statusline *sl, uint64_t id, int64_t expires,
    int64_t now)
{
	sl->sl_approval = id;
	sl->sl_expires = expires;
	statusline_set(sl, STATUS_APPROVAL, now);
}

void
statusline_text(const struct statusline *sl, int64_t now, char *buf)
{
	char d[SHOW_DURATION_MAX];

	buf[0] = '\0';
	switch (sl->sl_what) {
	case STATUS_NONE:
		break;
	case STATUS_THINKING:
		show_duration(now - sl->sl_since, d);
		snprintf(buf, STATUS_TEXT_MAX, "thinking, %s", d);
		break;
	case STATUS_TOOL:
		show_duration(now - sl->sl_since, d);
		snprintf(buf, STATUS_TEXT_MAX, "%s running, %s", sl->sl_tool,
		    d);
		break;
	case STATUS_APPROVAL:
		show_duration(sl->sl_expires - now, d);
		snprintf(buf, STATUS_TEXT_MAX, "waiting for your approval %"
		    PRIu64 ", expires in %s", sl->sl_approval, d);
		break;
	}
}

/* The terminal's columns, less one so that the line never wraps. */
static size_t
room(FILE *fp)
{
	struct winsize ws;

	if (ioctl(fileno(fp), TIOCGWINSZ, &ws) == -1 || ws.ws_col < 2)
		return STATUS_TEXT_MAX - 1;
	return (size_t)ws.ws_col - 1;
}

void
statusline_draw(struct statusline *sl, int64_t now)
{
	char text[STATUS_TEXT_MAX];
	size_t max;

	if (!sl->sl_on)
		return;
	statusline_text(sl, now, text);
	if (text[0] == '\0') {
		statusline_clear(sl);
		return;
	}
	/* Cut to the width, after a whole UTF-8 character. */
	max = room(sl->sl_fp);
	if (strlen(text) > max) {
		while (max > 0 && ((unsigned char)text[max] & 0xc0) == 0x80)
			max--;
		text[max] = '\0';
	}
	if (sl->sl_shown && strcmp(text, sl->sl_drawn) == 0)
		return;
	fprintf(sl->sl_fp, ERASE_LINE "%s%s%s", sl->sl_color ? DIM : "", text,
	    sl->sl_color ? PLAIN : "");
	fflush(sl->sl_fp);
	memcpy(sl->sl_drawn, text, sizeof(text));
	sl->sl_shown = true;
}

void
statusline_clear(struct statusline *sl)
{
	if (!sl->sl_shown)
		return;
	fputs(ERASE_LINE, sl->sl_fp);
	fflush(sl->sl_fp);
	sl->sl_shown = false;
}
