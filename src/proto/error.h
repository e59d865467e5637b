/*
 * error.h: the error every Boxmaker library function fills when it fails.
 *
 * Library code never prints or exits. A function that can fail returns 0 on
 * success or -1 on failure, and on failure fills a struct bx_error with a
 * message a person can act on (what, and where: file, line, field). Callers
 * own the struct, usually on the stack; it holds no heap memory.
 */
#ifndef BX_ERROR_H
#define BX_ERROR_H

#include <stddef.h>

/* Long enough for a path, a line number and a sentence. */
#define BX_ERROR_MAX 1024

struct bx_error {
	char	msg[BX_ERROR_MAX];
};

/* Sets the message (printf-style) and returns -1, so `return bx_fail(...)`. */
int	bx_fail(struct bx_error *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

/* Puts "prefix: " in front of the message already in err; returns -1. */
int	bx_error_prefix(struct bx_error *err, const char *fmt, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
