/*
 * compact.c: one line per call and per result (compact.h).
 */
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "bxctl/chat/compact.h"
#include "proto/escape.h"
#include "proto/json.h"

/* The arguments that say the most about a call, in order. */
static const char *const telling[] = {
	"path", "url", "command", "host", "query", "name", NULL
};

void
compact_size(size_t len, char *buf)
{
	if (len < 1024)
		snprintf(buf, COMPACT_SIZE_MAX, "%zu B", len);
	else if (len < 1024 * 1024)
		snprintf(buf, COMPACT_SIZE_MAX, "%.1f KB", len / 1024.0);
	else
		snprintf(buf, COMPACT_SIZE_MAX, "%.1f MB",
		    len / (1024.0 * 1024.0));
}

size_t
compact_cut(const char *s, size_t max)
{
	size_t n = strcspn(s, "\n");

	if (n <= max)
		return n;
	/* Back to the start of the character that would be cut. */
	while (max > 0 && ((unsigned char)s[max] & 0xc0) == 0x80)
		max--;
	return max;
}

/* Prints s cut as compact_cut() says, and "(… size)" if that cut it. */
static void
cut_line(FILE *fp, const char *s, size_t max)
{
	char size[COMPACT_SIZE_MAX];
	size_t len = strlen(s), n = compact_cut(s, max);

	escape_write(fp, s, n);
	if (n < len) {
		compact_size(len, size);
		fprintf(fp, "%s(\u2026 %s)", n > 0 ? " " : "", size);
	}
}

void
compact_call(FILE *fp, const char *tool, const char *arguments)
{
	json_t *args = NULL, *v;
	size_t i;

	escape_puts(fp, tool);
	if (bx_json_parse(arguments, strlen(arguments), &args, NULL) == 0 &&
	    json_is_object(args)) {
		for (i = 0; telling[i] != NULL; i++) {
			v = json_object_get(args, telling[i]);
			if (json_is_string(v)) {
				fputc(' ', fp);
				cut_line(fp, json_string_value(v),
				    COMPACT_ARGS_MAX);
				break;
			}
		}
		if (telling[i] == NULL && json_object_size(args) > 0) {
			fputc(' ', fp);
			cut_line(fp, arguments, COMPACT_ARGS_MAX);
		}
	} else if (arguments[0] != '\0') {
		fputc(' ', fp);
		cut_line(fp, arguments, COMPACT_ARGS_MAX);
	}
	fputc('\n', fp);
	json_decref(args);
}

void
compact_result(FILE *fp, enum bx_status status, const char *content)
{
	fputs("  ", fp);
	if (status == BX_STATUS_FAILED)
		fputs("failed: ", fp);
	cut_line(fp, content, COMPACT_RESULT_MAX);
	fputc('\n', fp);
}
