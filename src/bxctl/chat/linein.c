/*
 * linein.c: plain lines from a descriptor, Ctrl-C heard while waiting
 * (linein.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/chat/interrupt.h"
#include "bxctl/chat/linein.h"

struct linein {
	int	 li_fd;
	char	*li_buf;	/* LINEIN_MAX + 1 bytes */
	size_t	 li_start;	/* where the next line begins */
	size_t	 li_len;	/* bytes held */
	bool	 li_eof;
	bool	 li_dropping;	/* the rest of a cut line */
};

struct linein *
linein_open(int fd)
{
	struct linein *li;

	if ((li = calloc(1, sizeof(*li))) == NULL)
		return NULL;
	if ((li->li_buf = malloc(LINEIN_MAX + 1)) == NULL) {
		free(li);
		return NULL;
	}
	li->li_fd = fd;
	return li;
}

void
linein_close(struct linein *li)
{
	if (li == NULL)
		return;
	free(li->li_buf);
	free(li);
}

/* Hands out li_buf[li_start, end) as a line; the next one starts at next. */
static int
give(struct linein *li, size_t end, size_t next, const char **ret_line,
    size_t *ret_len)
{
	li->li_buf[end] = '\0';
	*ret_line = li->li_buf + li->li_start;
	*ret_len = end - li->li_start;
	li->li_start = next;
	return 1;
}

/* A whole line held (1), the end of the input (0), or a need for more (2). */
static int
held_line(struct linein *li, const char **ret_line, size_t *ret_len)
{
	char *nl;
	size_t end;

	nl = memchr(li->li_buf + li->li_start, '\n', li->li_len - li->li_start);
	if (nl != NULL) {
		end = (size_t)(nl - li->li_buf);
		if (!li->li_dropping)
			return give(li, end, end + 1, ret_line, ret_len);
		li->li_dropping = false;
		li->li_start = end + 1;
		return held_line(li, ret_line, ret_len);
	}
	if (li->li_dropping)
		li->li_start = li->li_len;
	if (li->li_eof) {
		if (li->li_len > li->li_start)
			return give(li, li->li_len, li->li_len, ret_line,
			    ret_len);
		return 0;
	}
	memmove(li->li_buf, li->li_buf + li->li_start,
	    li->li_len - li->li_start);
	li->li_len -= li->li_start;
	li->li_start = 0;
	if (li->li_len == LINEIN_MAX) {
		li->li_dropping = true;
		return give(li, LINEIN_MAX, LINEIN_MAX, ret_line, ret_len);
	}
	return 2;
}

int
linein_read(struct linein *li, const char **ret_line, size_t *ret_len)
{
	ssize_t n;
	int r;

	for (;;) {
		if ((r = held_line(li, ret_line, ret_len)) != 2)
			return r;
		if ((r = interrupt_wait(li->li_fd)) != 1)
			return -1;
		n = read(li->li_fd, li->li_buf + li->li_len,
		    LINEIN_MAX - li->li_len);
		if (n > 0)
			li->li_len += (size_t)n;
		else if (n == 0)
			li->li_eof = true;
		else if (errno != EINTR && errno != EAGAIN)
			return -1;
	}
}
