/*
 * table.h: how the console commands (log, sessions, grants list, status,
 * explain) lay out rows for a person. Every cell's text is printed as data
 * (escape.h). Columns are padded to their width; on a terminal (or with
 * COLUMNS set) a cell longer than its width is cut to it and ends in
 * "...", and the last column takes what the line has left; without a
 * width nothing is cut, so a pipe gets every byte. Colour is used only
 * when the stream is a terminal and NO_COLOR is not set.
 *
 * Nothing here allocates that outlives a call.
 */
#ifndef BXCTL_TABLE_H
#define BXCTL_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

/* SGR sequences of the few colours used. */
#define TABLE_RED	"\033[31m"
#define TABLE_GREEN	"\033[32m"
#define TABLE_YELLOW	"\033[33m"
#define TABLE_BOLD	"\033[1m"
/* Narrower than this, the last column still gets this many characters. */
#define TABLE_LAST_MIN	6
/* Between two columns. */
#define TABLE_GAP	"  "

struct table {
	FILE	*fp;
	size_t	 width;		/* characters a line may hold; 0: any */
	bool	 colour;
	size_t	 used;		/* characters of the current line so far */
};

/*
 * A column: the width it prefers and the least it may be cut to; width is
 * what table_layout gives it. The last column of a row takes the rest.
 */
struct table_col {
	const char	*title;
	size_t		 pref, min;
	unsigned	 keep;		/* the lower, the sooner it is cut */
	size_t		 width;
};

/*
 * Starts a table on fp: the width is $COLUMNS when it is a number, else
 * the terminal's when fp is one, else none.
 */
void	table_open(struct table *, FILE *fp);

/*
 * One cell: text (untrusted) in width characters, cut and padded as above;
 * width 0 is the last column, which is never padded. colour is one of the
 * TABLE_* sequences, or NULL.
 */
void	table_cell(struct table *, const char *text, size_t width,
	    const char *colour);

/*
 * Gives each of the n columns but the last its preferred width, and when
 * the line would pass the table's width, cuts them down towards their
 * minimum, the lowest keep first, until the last column has at least
 * its minimum. A line that is still too wide wraps: nothing is dropped.
 */
void	table_layout(const struct table *, struct table_col *cols, size_t n);

/* The titles of the columns as a row (bold on a terminal). */
void	table_header(struct table *, const struct table_col *cols, size_t n);

/* Ends the row. */
void	table_end(struct table *);

/* The number of characters (code points) in s, valid UTF-8. */
size_t	table_chars(const char *s);

#endif
