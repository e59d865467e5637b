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
#include <strings.h>
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

/*
 * Whether the kept line is a Content-Encoding header whose value is not
 * "identity" alone (spaces, tabs and a CR around it allowed). A line too
 * long to keep whole is not identity.
 */
static bool
encoding_line(const struct fetch_head *h)
{
	static const char name[] = "content-encoding:";
	const size_t nlen = sizeof(name) - 1;
	size_t b, e;

	if (h->fh_len < nlen || strncasecmp(h->fh_line, name, nlen) != 0)
		return false;
	if (h->fh_cut)
		return true;
	for (b = nlen; b < h->fh_len && (h->fh_line[b] == ' ' ||
	    h->fh_line[b] == '\t'); b++)
		;
	for (e = h->fh_len; e > b && (h->fh_line[e - 1] == ' ' ||
	    h->fh_line[e - 1] == '\t' || h->fh_line[e - 1] == '\r'); e--)
		;
	return !(e - b == 8 && strncasecmp(h->fh_line + b, "identity", 8) ==
	    0);
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
			h->fh_encoded = false;
			h->fh_state = FETCH_HEAD_BLOCK;
		}
		return;
	}
	if (encoding_line(h))
		h->fh_encoded = true;
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

bool
fetch_head_encoded(const struct fetch_head *h)
{
	return h->fh_encoded;
}

/*
 * The last line in err[0..*len) that starts with mark (after a newline),
 * taken out of err: its length (up to the newline or the end) in *ret_len
 * and, when shorter than size, its text in copy. False when there is none.
 */
static bool
take_mark_line(char *err, size_t *len, const char *mark, char *copy,
    size_t size, size_t *ret_len)
{
	const size_t mlen = strlen(mark);
	char *p, *found = NULL, *nl, *end, *stop = err + *len;
	size_t n;

	for (p = err; (p = memmem(p, (size_t)(stop - p), mark, mlen)) != NULL;
	    p++)
		found = p;
	if (found == NULL)
		return false;
	p = found + mlen;
	nl = memchr(p, '\n', (size_t)(stop - p));
	end = nl != NULL ? nl + 1 : stop;
	n = (size_t)((nl != NULL ? nl : stop) - p);
	*ret_len = n;
	if (n < size) {
		memcpy(copy, p, n);
		copy[n] = '\0';
	}
	memmove(found, end, (size_t)(stop - end));
	*len -= (size_t)(end - found);
	return true;
}

int
fetch_curl_redirect(char *err, size_t *len, char *out, size_t size)
{
	size_t n;

	if (!take_mark_line(err, len, "\n" FETCH_REDIRECT_MARK, out, size, &n))
		return 0;
	if (n >= size)
		return -1;
	return n > 0 ? 1 : 0;
}

int
fetch_url_host(const char *url, char *out, size_t size)
{
	size_t n;

	if (strncasecmp(url, "https://", 8) != 0)
		return -1;
	url += 8;
	n = strcspn(url, ":/?#@");
	if (n == 0 || n >= size || url[n] == '@' ||
	    memchr(url, '@', strcspn(url, "/?#")) != NULL)
		return -1;
	memcpy(out, url, n);
	out[n] = '\0';
	return 0;
}

bool
fetch_same_host(const char *url, const char *host)
{
	size_t n = strlen(host);

	if (strncasecmp(url, "https://", 8) != 0)
		return false;
	url += 8;
	if (memchr(url, '@', strcspn(url, "/?#")) != NULL ||
	    strncasecmp(url, host, n) != 0)
		return false;
	url += n;
	if (strncmp(url, ":443", 4) == 0)
		url += 4;
	return *url == '\0' || *url == '/' || *url == '?' || *url == '#';
}

/* The last one counts: curl writes it after all else it says. */
int
fetch_curl_code(char *err, size_t *len)
{
	char code[4];
	size_t n;

	if (!take_mark_line(err, len, "\n" FETCH_CODE_MARK, code, sizeof(code),
	    &n) || n != 3)
		return 0;
	return code_of(code);
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
