/*
 * fetch_status.c: the parsing of what curl hands bxtool fetch, all of it
 * a remote server's to shape (fetch_status.h). In curl's header dump only
 * a line that starts a header block counts as a status line, so that a
 * header or trailer that reads like one is not; curl writes each block
 * before the next request, so the last block is the final response's.
 */
#include <stdbool.h>
#include <string.h>

#include "bxtool/fetch_status.h"

/* Three digits from 100 to 599 and the end of the line, or 0. */
static int
status_of_code(const char *s)
{
	if (s[0] < '1' || s[0] > '5' || s[1] < '0' || s[1] > '9' ||
	    s[2] < '0' || s[2] > '9' || (s[3] != '\n' && s[3] != '\0'))
		return 0;
	return (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
}

/* The status of a line "HTTP/<version> NNN ...", or 0. */
static int
status_of(const char *line)
{
	const char *sp;

	if (strncmp(line, "HTTP/", 5) != 0 || (sp = strchr(line, ' ')) == NULL)
		return 0;
	if (sp[1] < '1' || sp[1] > '5' || sp[2] < '0' || sp[2] > '9' ||
	    sp[3] < '0' || sp[3] > '9' ||
	    (sp[4] != ' ' && sp[4] != '\r' && sp[4] != '\0'))
		return 0;
	return (sp[1] - '0') * 100 + (sp[2] - '0') * 10 + (sp[3] - '0');
}

void
fetch_head_init(struct fetch_head *h)
{
	memset(h, 0, sizeof(*h));
	h->fh_block_start = true;
}

/*
 * A status line counts only where a header block starts, at the top of
 * the dump or after the empty line that ends the block before it; a line
 * the dump does not end yet is not judged.
 */
void
fetch_head_feed(struct fetch_head *h, const char *buf, size_t len)
{
	size_t i;
	int c;

	for (i = 0; i < len; i++) {
		if (buf[i] != '\n') {
			if (h->fh_len < FETCH_HEAD_MAX)
				h->fh_line[h->fh_len++] = buf[i];
			continue;
		}
		h->fh_line[h->fh_len] = '\0';
		if (h->fh_block_start && (c = status_of(h->fh_line)) != 0)
			h->fh_code = c;
		h->fh_block_start = h->fh_len == 0 ||
		    (h->fh_len == 1 && h->fh_line[0] == '\r');
		h->fh_len = 0;
	}
}

int
fetch_head_status(const struct fetch_head *h)
{
	return h->fh_code;
}

/* The last one counts: curl writes it after all else it says. */
int
fetch_curl_code(char *err, size_t *len)
{
	char *mark, *found = NULL, *end, *stop;
	int code;

	err[*len] = '\0';
	stop = err + *len;
	for (mark = err; (mark = strstr(mark, "\n" FETCH_CODE_MARK)) != NULL;
	    mark++)
		found = mark;
	if (found == NULL)
		return 0;
	code = status_of_code(found + 1 + strlen(FETCH_CODE_MARK));
	end = strchr(found + 1, '\n');
	end = end != NULL ? end + 1 : stop;
	memmove(found, end, (size_t)(stop - end) + 1);
	*len -= (size_t)(end - found);
	return code;
}

/* The words become a C string, so a NUL ends them too. */
size_t
fetch_err_line(const char *err, size_t len)
{
	size_t n;

	for (n = 0; n < len && err[n] != '\n' && err[n] != '\0'; n++)
		;
	return n;
}
