/*
 * tomlquote.h: a string written as a TOML basic string, as bxctl writes
 * the files a person also reads (grant files, secret files). Everything
 * but printable ASCII is escaped (\", \\, \n, \t, \u00XX, \uXXXX,
 * \UXXXXXXXX), so a path the model chose cannot put a control character,
 * a bidi override or a zero-width space into a file the owner reads; a
 * byte that is not UTF-8 is written as it is, and brokerd's loader then
 * refuses the file in its own words.
 *
 * Nothing here allocates: tomlquote() writes into the caller's buffer and
 * keeps no copy anywhere else, so a buffer that holds a secret's value is
 * the only place it is written to.
 */
#ifndef BXCTL_TOMLQUOTE_H
#define BXCTL_TOMLQUOTE_H

#include <stddef.h>
#include <stdio.h>

/* The most bytes one input byte can become ("\u001F"). */
#define TOMLQUOTE_GROWTH	6

/*
 * Writes s, quotes included, into buf as snprintf() does: at most size
 * bytes with the NUL; returns the length the whole needs, without the NUL.
 */
size_t	tomlquote(char *buf, size_t size, const char *s);

/* Writes s, quotes included, on f. */
void	tomlquote_file(FILE *f, const char *s);

#endif
