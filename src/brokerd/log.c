/*
 * log.c: one formatted line to brokerd's log sink (log.h), shared by the
 * broker and the runner so that neither formats for the other.
 */
#include <stdarg.h>
#include <stdio.h>

#include "brokerd/log.h"
#include "proto/error.h"

void
log_vsay(const struct broker_log *log, const char *fmt, va_list ap)
{
	char line[2 * BX_ERROR_MAX];

	if (log == NULL)
		return;
	vsnprintf(line, sizeof(line), fmt, ap);
	log->line(log->ctx, line);
}

void
log_say(const struct broker_log *log, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vsay(log, fmt, ap);
	va_end(ap);
}
