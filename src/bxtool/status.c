/*
 * status.c: the status lines bxtool writes on stderr (see bxtool.h).
 * brokerd reads them line by line, so a message is made one line of
 * printable UTF-8 here, whatever a file name put in it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/utf8.h"
#include "proto/writefile.h"

#define STATUS_PREFIX	"bxtool: "
/*
 * The final line starts a line of its own: a command may have left half a
 * line on stderr (through /proc/1/fd/2) that would otherwise swallow it.
 */
#define FINAL_PREFIX	"\n" STATUS_PREFIX
/* The prefix, the longest word ("truncated", "failed "), a message, "\n". */
#define STATUS_LINE_MAX	(sizeof(FINAL_PREFIX) + 16 + BXT_MSG_MAX + 1)
/* What replaces a byte that is a control character or not UTF-8. */
#define STATUS_BAD	'?'
/* U+0080 to U+009F, the C1 controls, are 0xc2 0x80 to 0xc2 0x9f. */
#define C1_LEAD		0xc2
#define C1_LAST		0x9f

void
bxt_fail(struct bxt_outcome *out, const char *fmt, ...)
{
	va_list ap;

	out->o_final = BXT_FAILED;
	va_start(ap, fmt);
	(void)vsnprintf(out->o_msg, sizeof(out->o_msg), fmt, ap);
	va_end(ap);
}

/*
 * Appends msg to line (of which used bytes are taken), each control
 * character and each byte that starts no valid sequence made STATUS_BAD.
 * A sequence cut by vsnprintf's limit is such a byte too.
 */
static size_t
append_clean(char *line, size_t used, size_t size, const char *msg)
{
	const unsigned char *p = (const unsigned char *)msg;
	size_t left = strlen(msg), n;

	while (left > 0 && used + 4 < size) {
		n = bx_utf8_len(p, left);
		if (n == 0 || (n == 1 && (*p < 0x20 || *p == 0x7f)) ||
		    (n == 2 && p[0] == C1_LEAD && p[1] <= C1_LAST)) {
			line[used++] = STATUS_BAD;
			n = n == 0 ? 1 : n;
		} else {
			memcpy(line + used, p, n);
			used += n;
		}
		p += n;
		left -= n;
	}
	return used;
}

static int
put_line(const char *line, size_t len)
{
	return bx_write_all(STDERR_FILENO, line, len);
}

int
bxt_status_started(void)
{
	static const char line[] = STATUS_PREFIX "started\n";

	return put_line(line, sizeof(line) - 1);
}

int
bxt_status_final(const struct bxt_outcome *out)
{
	char line[STATUS_LINE_MAX];
	int n;

	switch (out->o_final) {
	case BXT_OK:
		n = snprintf(line, sizeof(line), FINAL_PREFIX "ok\n");
		break;
	case BXT_TRUNCATED:
		n = snprintf(line, sizeof(line), FINAL_PREFIX "truncated\n");
		break;
	case BXT_EXIT:
		n = snprintf(line, sizeof(line), FINAL_PREFIX "exit %d\n",
		    out->o_code);
		break;
	case BXT_HTTP:
		n = snprintf(line, sizeof(line), FINAL_PREFIX "http %d%s\n",
		    out->o_code, out->o_truncated ? " truncated" : "");
		break;
	case BXT_SIGNAL:
		n = snprintf(line, sizeof(line), FINAL_PREFIX "signal %d\n",
		    out->o_code);
		break;
	default:
		n = snprintf(line, sizeof(line), FINAL_PREFIX "failed ");
		n = (int)append_clean(line, (size_t)n, sizeof(line),
		    out->o_msg);
		line[n++] = '\n';
		break;
	}
	return put_line(line, (size_t)n);
}
