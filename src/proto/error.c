/*
 * error.c: filling struct bx_error. A NULL error pointer is allowed, for
 * callers that only need the status.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "proto/error.h"

int
bx_fail(struct bx_error *err, const char *fmt, ...)
{
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(err->msg, sizeof(err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

int
bx_error_prefix(struct bx_error *err, const char *fmt, ...)
{
	char prefix[BX_ERROR_MAX], old[BX_ERROR_MAX];
	va_list ap;

	if (err == NULL)
		return -1;
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	memcpy(old, err->msg, sizeof(old));
	snprintf(err->msg, sizeof(err->msg), "%s: %s", prefix, old);
	return -1;
}
