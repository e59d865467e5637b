/*
 * jsonout.c: ASCII-only JSON lines (jsonout.h).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "proto/escape.h"
#include "bxctl/common/jsonout.h"
#include "proto/types.h"

/*
 * jansson writes \uXXXX with uppercase hex digits; bxctl's escapes are
 * lowercase everywhere. In ASCII-only JSON a backslash occurs only inside
 * strings, so walking escape by escape is exact.
 */
static void
lower_hex(char *s)
{
	size_t i;

	while ((s = strchr(s, '\\')) != NULL) {
		if (s[1] != 'u') {
			s += s[1] == '\0' ? 1 : 2;
			continue;
		}
		for (i = 2; i < 6 && s[i] != '\0'; i++)
			s[i] = (char)tolower((unsigned char)s[i]);
		s += i;
	}
}

int
jsonout_print(FILE *fp, const json_t *obj)
{
	char *s;
	int rc;

	s = json_dumps(obj, JSON_COMPACT | JSON_ENSURE_ASCII |
	    JSON_PRESERVE_ORDER);
	if (s == NULL)
		return -1;
	lower_hex(s);
	/* On ASCII-only JSON the escaper changes only DEL, into \u007f. */
	rc = escape_puts(fp, s);
	free(s);
	if (rc == 0 && fputc('\n', fp) == EOF)
		rc = -1;
	return rc;
}

json_t *
jsonout_time(int64_t ms)
{
	char buf[BX_TIME_LEN + 1];

	bx_time_format(ms, buf);
	return json_string(buf);
}
