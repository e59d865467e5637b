/*
 * egress_report.c: one line of the egress proxy's report (egress_report_line,
 * runner_egress.h). The lines quote the host names the model asked for, so
 * this is the one part of runner_egress.c's work that parses bytes of the
 * model's choosing; runner_egress.c reads the report and calls it per line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "brokerd/runner/runner_egress.h"

void
egress_report_line(char *line, struct egress_report *r)
{
	const char *sp;
	char *p;

	for (p = line; *p != '\0'; p++)
		if ((unsigned char)*p < 0x20 || (unsigned char)*p >= 0x7f)
			*p = '?';
	if (strncmp(line, "limit ", 6) == 0) {
		r->er_limit = strtoll(line + 6, NULL, 10);
		return;
	}
	if (strncmp(line, "refused ", 8) != 0 ||
	    (sp = strchr(line + 8, ' ')) == NULL)
		return;
	free(r->er_refusal);
	if (asprintf(&r->er_refusal, "egress refused %.*s: %s",
	    (int)(sp - (line + 8)), line + 8, sp + 1) == -1)
		r->er_refusal = NULL;
}
