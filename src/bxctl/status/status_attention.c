/*
 * status_attention.c: the lines of `bxctl status` for what needs the
 * owner (status.h), apart so that each part of status that finds
 * something (status_facts.c, status_bridge.c) adds its own.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "bxctl/status/status.h"

/* One more line for the owner (dropped past STATUS_ATTENTION_MAX). */
void
status_attention(struct status *st, const char *fmt, ...)
{
	va_list ap;
	char *line;

	va_start(ap, fmt);
	if (st->nattention < STATUS_ATTENTION_MAX &&
	    vasprintf(&line, fmt, ap) != -1)
		st->attention[st->nattention++] = line;
	va_end(ap);
}
