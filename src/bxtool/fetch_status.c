/*
 * fetch_status.c: the parsing of what curl hands bxtool fetch, all of it
 * a remote server's to shape (fetch_status.h).
 *
 * curl's header dump holds a block per response: the status line, the
 * headers, an empty line. A header may read like a status line, and so
 * may a trailer: curl writes a chunked body's trailers into the dump too,
 * after the empty line, with no empty line of their own (curl 7.88). So
 * the dump is read as curl follows the chain: after a 1xx or a 3xx
 * (which --location follows) the next status line is the first line
 * that reads like one, the lines before it a redirect body's trailers;
 * after any other block nothing counts, it was the final response. Only
 * a redirect's trailer that reads like a status line still passes for
 * one, a status the server chose either way.
 */
#include <stdbool.h>
#include <string.h>

#include "bxtool/fetch_status.h"

/* Three digits from 100 to 599, or 0. */
static int
code_of(const char *s)
{
	if (s[0] < '1' || s[0] > '5' || s[1] < '0' || s[1] > '9' ||
	    s[2] < '0' || s[2] > '9')
		return 0;
	return (s[0] - '0') * 100 + (s[1] - '0') * 10 + (s[2] - '0');
}

/*
 * The status of a line "HTTP/<version> NNN ...", or 0; line holds the
 * first len bytes, and cut says the line goes on past them.
 */
static int
status_of(const char *line, size_t len, bool cut)
{
	const char *sp;
	size_t end;

	if (len < 5 || memcmp(line, "HTTP/", 5) != 0 ||
	    (sp = memchr(line, ' ', len)) == NULL)
		return 0;
	/* The byte after the code must be kept, or be the line's end. */
	end = (size_t)(sp - line) + 4;
	if (end > len || (end == len && cut))
		return 0;
	if (end < len && line[end] != ' ' && line[end] != '\r')
		return 0;
	return code_of(sp + 1);
}

void
fetch_head_init(struct fetch_head *h)
{
	memset(h, 0, sizeof(*h));
	h->fh_state = FETCH_HEAD_STATUS;
}

/*
 * A whole line of the dump, as far as it was kept; never one past the
 * final block, where fetch_head_feed stops.
 */
static void
head_line(struct fetch_head *h)
{
	int c;

	if (h->fh_state == FETCH_HEAD_STATUS) {
		if ((c = status_of(h->fh_line, h->fh_len, h->fh_cut)) != 0) {
			h->fh_code = c;
			h->fh_state = FETCH_HEAD_BLOCK;
		}
		return;
	}
	/* A header, or the empty line that ends the block. */
	if (h->fh_len > 1 || (h->fh_len == 1 && h->fh_line[0] != '\r'))
		return;
	if (h->fh_code / 100 == 1 || h->fh_code / 100 == 3)
		h->fh_state = FETCH_HEAD_STATUS;
	else
		h->fh_state = FETCH_HEAD_DONE;
}

/* A line the dump does not end yet is not judged. */
void
fetch_head_feed(struct fetch_head *h, const char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < len && h->fh_state != FETCH_HEAD_DONE; i++) {
		if (buf[i] != '\n') {
			if (h->fh_len < FETCH_HEAD_MAX)
				h->fh_line[h->fh_len++] = buf[i];
			else
				h->fh_cut = true;
			continue;
		}
		head_line(h);
		h->fh_len = 0;
		h->fh_cut = false;
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
	static const char mark[] = "\n" FETCH_CODE_MARK;
	const size_t mlen = sizeof(mark) - 1;
	char *p, *found = NULL, *nl, *end, *stop = err + *len;
	int code = 0;

	for (p = err; (p = memmem(p, (size_t)(stop - p), mark, mlen)) != NULL;
	    p++)
		found = p;
	if (found == NULL)
		return 0;
	p = found + mlen;
	nl = memchr(p, '\n', (size_t)(stop - p));
	end = nl != NULL ? nl + 1 : stop;
	if ((nl != NULL ? nl : stop) - p == 3)
		code = code_of(p);
	memmove(found, end, (size_t)(stop - end));
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
