/*
 * secretvalue.h: a secret's value as the owner gives it to `bxctl secrets
 * add`: typed at the terminal with echo off when standard input is one,
 * else read from standard input to its end (a pipe, a file), where one
 * trailing newline is not part of the value.
 *
 * At the terminal the mode is put back on every path out: the value read,
 * an error, end of input, and SIGINT, SIGTERM, SIGHUP and SIGQUIT (which
 * then end bxctl as they would have). SIGTSTP is ignored while the value
 * is read, so that the shell never gets the terminal back with echo off.
 *
 * Nothing here prints but the prompt (on standard error) or allocates: the
 * value goes into the caller's buffer, which the caller wipes.
 */
#ifndef BXCTL_SECRETVALUE_H
#define BXCTL_SECRETVALUE_H

#include <stddef.h>

#include "brokerd/secret.h"
#include "proto/error.h"

/* Room for the longest value, a newline, one byte more and the NUL. */
#define SECRETVALUE_BUF		(SECRET_VALUE_MAX + 3)

/*
 * Reads the value into buf (SECRETVALUE_BUF bytes), NUL-terminated, its
 * length in *ret_len; prompt is shown first at a terminal. Fails, saying
 * why, on no value, a NUL in it, a value too long to be one, or a read
 * that fails; the form of the value is left to brokerd's reader.
 */
int	secretvalue_read(const char *prompt, char *buf, size_t *ret_len,
	    struct bx_error *err);

#endif
