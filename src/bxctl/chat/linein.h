/*
 * linein.h: lines read plainly from a descriptor (a pipe, a file), for
 * bxctl chat when stdin is no terminal. Every wait polls for Ctrl-C too
 * (interrupt.h), which stdio's getline cannot do. A line longer than
 * LINEIN_MAX bytes is returned cut there, and the rest of it is dropped;
 * the caller's own limit then refuses it. A last line without a newline
 * is a line.
 *
 * Ownership: linein_open() allocates, linein_close() frees (NULL is
 * fine); a line returned is the reader's until the next linein_read().
 */
#ifndef BXCTL_LINEIN_H
#define BXCTL_LINEIN_H

#include <stddef.h>

/* Four times chat's longest message: a longer line is refused anyway. */
#define LINEIN_MAX	(256 * 1024)

struct linein;

/* A reader of fd (not closed by the reader); NULL when out of memory. */
struct linein	*linein_open(int fd);
void		 linein_close(struct linein *);
/*
 * The next line, NUL-terminated, without its newline: 1; 0 at end of
 * file; -1 if a Ctrl-C came first (interrupt_pending()) or reading
 * failed (errno).
 */
int		 linein_read(struct linein *, const char **ret_line,
		    size_t *ret_len);

#endif
