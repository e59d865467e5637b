/*
 * table.c: rows for a person (table.h). A cell is escaped first, so its
 * width is counted on what is printed: escapes are ASCII, and what is
 * left is valid UTF-8, counted a character a column.
 */
#include <sys/ioctl.h>

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/escape.h"
#include "bxctl/common/table.h"

void
table_open(struct table *t, FILE *fp)
{
	const char *cols = getenv("COLUMNS");
	struct winsize ws;
	bool tty = isatty(fileno(fp));
	char *end;
	long n;

	t->fp = fp;
	t->used = 0;
	t->width = 0;
	t->colour = tty && getenv("NO_COLOR") == NULL;
	if (cols != NULL && cols[0] != '\0') {
		n = strtol(cols, &end, 10);
		if (*end == '\0' && n > 0 && n < 100000) {
			t->width = (size_t)n;
			return;
		}
	}
	if (tty && ioctl(fileno(fp), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 0)
		t->width = ws.ws_col;
}

size_t
table_chars(const char *s)
{
	size_t n = 0;

	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			n++;
	return n;
}

/* The byte offset of character n of s (valid UTF-8, at least n long). */
static size_t
char_offset(const char *s, size_t n)
{
	size_t i = 0;

	for (;;) {
		if (((unsigned char)s[i] & 0xc0) != 0x80 && n-- == 0)
			return i;
		i++;
	}
}

/* Prints the first len bytes of s, cut to fit room characters. */
static void
put_fitted(struct table *t, const char *s, size_t chars, size_t room)
{
	if (chars <= room) {
		fputs(s, t->fp);
		t->used += chars;
		return;
	}
	if (room < 4) {
		fwrite(s, 1, char_offset(s, room), t->fp);
		t->used += room;
		return;
	}
	fwrite(s, 1, char_offset(s, room - 3), t->fp);
	fputs("...", t->fp);
	t->used += room;
}

/* Whether s is all printable ASCII, which is printed as it is. */
static bool
plain(const char *s, size_t *ret_len)
{
	const unsigned char *p = (const unsigned char *)s;

	while (*p >= 0x20 && *p < 0x7f)
		p++;
	*ret_len = (size_t)(p - (const unsigned char *)s);
	return *p == '\0';
}

/* n spaces. */
static void
pad(struct table *t, size_t n)
{
	static const char spaces[] = "                                ";

	t->used += n;
	for (; n > sizeof(spaces) - 1; n -= sizeof(spaces) - 1)
		fwrite(spaces, 1, sizeof(spaces) - 1, t->fp);
	fwrite(spaces, 1, n, t->fp);
}

void
table_cell(struct table *t, const char *text, size_t width,
    const char *colour)
{
	char *shown = NULL;
	size_t chars, room;

	/* Most cells need no escape: no copy for them. */
	if (plain(text, &chars))
		shown = (char *)text;
	else if ((shown = escape_string(text, strlen(text))) != NULL)
		chars = table_chars(shown);
	else {
		fputs("?", t->fp);
		return;
	}
	if (t->used > 0) {
		fputs(TABLE_GAP, t->fp);
		t->used += sizeof(TABLE_GAP) - 1;
	}
	if (width == 0)
		room = t->width == 0 ? chars : t->width > t->used +
		    TABLE_LAST_MIN ? t->width - t->used : TABLE_LAST_MIN;
	else
		room = t->width == 0 && chars > width ? chars : width;
	if (colour != NULL && t->colour)
		fputs(colour, t->fp);
	put_fitted(t, shown, chars, room);
	if (colour != NULL && t->colour)
		fputs("\033[0m", t->fp);
	if (width > chars)
		pad(t, width - chars);
	if (shown != text)
		free(shown);
}

void
table_end(struct table *t)
{
	fputc('\n', t->fp);
	t->used = 0;
}

void
table_layout(const struct table *t, struct table_col *cols, size_t n)
{
	size_t i, total = 0, excess, give;
	unsigned keep;

	for (i = 0; i + 1 < n; i++) {
		cols[i].width = cols[i].pref;
		total += cols[i].pref + sizeof(TABLE_GAP) - 1;
	}
	cols[n - 1].width = 0;
	total += cols[n - 1].min;
	if (t->width == 0 || total <= t->width)
		return;
	excess = total - t->width;
	for (keep = 0; keep <= n && excess > 0; keep++)
		for (i = 0; i + 1 < n && excess > 0; i++) {
			if (cols[i].keep != keep)
				continue;
			give = cols[i].pref - cols[i].min;
			if (give > excess)
				give = excess;
			cols[i].width -= give;
			excess -= give;
		}
}

void
table_header(struct table *t, const struct table_col *cols, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		table_cell(t, cols[i].title, i + 1 < n ? cols[i].width : 0,
		    TABLE_BOLD);
	table_end(t);
}
