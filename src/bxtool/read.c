/*
 * read.c: bxtool read --max N PATH, the read_file tool. The content is the
 * file's first N bytes at most, cut back to a whole UTF-8 sequence, and
 * only if it is UTF-8 text; a longer file ends in "truncated".
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/utf8.h"
#include "proto/writefile.h"

/* The longest UTF-8 sequence. */
#define UTF8_SEQ_MAX	4
/* The byte each missing continuation byte is tried as (see cut_prefix). */
#define CONT_LOW	0x80
#define CONT_HIGH	0xbf

/* One more byte than the limit, to learn whether the file goes on. */
static unsigned char content[BXT_CONTENT_MAX + 1];

/*
 * Opens PATH without blocking (a FIFO must not hang), following symlinks:
 * inside the sandbox every target is the sandbox's.
 */
static int
open_file(const char *path, struct stat *st, struct bxt_outcome *out)
{
	int fd;

	fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd == -1) {
		if (errno == ENOENT)
			bxt_fail(out, "no such file: %s", path);
		else if (errno == EACCES || errno == EPERM)
			bxt_fail(out, "permission denied: %s", path);
		else if (errno == EISDIR)
			bxt_fail(out, "is a directory: %s", path);
		else if (errno == ENXIO)
			/* A socket, or a device with nothing behind it. */
			bxt_fail(out, "not a regular file: %s", path);
		else
			bxt_fail(out, "cannot open %s: %s", path,
			    strerror(errno));
		return -1;
	}
	if (fstat(fd, st) == -1) {
		bxt_fail(out, "cannot open %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (!S_ISREG(st->st_mode)) {
		bxt_fail(out, S_ISDIR(st->st_mode) ? "is a directory: %s" :
		    "not a regular file: %s", path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Reads until want bytes or the end, whichever comes first. */
static ssize_t
read_upto(int fd, unsigned char *buf, size_t want)
{
	size_t have = 0;
	ssize_t n;

	while (have < want) {
		n = read(fd, buf + have, want - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			break;
		have += (size_t)n;
	}
	return (ssize_t)have;
}

/*
 * Whether the avail bytes at p, too few for a sequence, begin a valid one.
 * A continuation byte may be CONT_LOW to CONT_HIGH, except the second of
 * a few leads (0xe0, 0xed, 0xf0, 0xf4), whose narrower range still holds
 * one of those two ends: so if any filling of the missing bytes makes a
 * valid sequence, filling them all with one end or the other does.
 */
static int
cut_prefix(const unsigned char *p, size_t avail)
{
	unsigned char seq[UTF8_SEQ_MAX];

	memcpy(seq, p, avail);
	memset(seq + avail, CONT_LOW, sizeof(seq) - avail);
	if (bx_utf8_len(seq, sizeof(seq)) > avail)
		return 1;
	memset(seq + avail, CONT_HIGH, sizeof(seq) - avail);
	return bx_utf8_len(seq, sizeof(seq)) > avail;
}

/*
 * The length of the UTF-8 text in buf, len shortened to drop a sequence
 * the cut at the limit left incomplete; -1 if it is not UTF-8. A NUL byte
 * is valid UTF-8 but not text, and the answer is a C string to brokerd:
 * a file that holds one is refused rather than cut short silently.
 */
static ssize_t
text_len(const unsigned char *buf, size_t len, int cut)
{
	size_t i = 0, n;

	while (i < len) {
		n = buf[i] == '\0' ? 0 : bx_utf8_len(buf + i, len - i);
		if (n > 0) {
			i += n;
			continue;
		}
		if (cut && len - i < UTF8_SEQ_MAX && cut_prefix(buf + i,
		    len - i))
			return (ssize_t)i;
		return -1;
	}
	return (ssize_t)len;
}

void
bxt_read(const struct bxt_args *args, struct bxt_outcome *out)
{
	struct stat st;
	ssize_t have, len;
	int fd, cut;

	if ((fd = open_file(args->a_path, &st, out)) == -1)
		return;
	have = read_upto(fd, content, args->a_max + 1);
	if (have == -1) {
		bxt_fail(out, "cannot read %s: %s", args->a_path,
		    strerror(errno));
		close(fd);
		return;
	}
	close(fd);
	cut = (size_t)have > args->a_max;
	len = text_len(content, cut ? args->a_max : (size_t)have, cut);
	if (len == -1) {
		bxt_fail(out, "not UTF-8 text (%jd bytes)", (intmax_t)st.st_size);
		return;
	}
	if (bx_write_all(STDOUT_FILENO, content, (size_t)len) == -1) {
		bxt_fail(out, "cannot write the content: %s", strerror(errno));
		return;
	}
	out->o_final = cut ? BXT_TRUNCATED : BXT_OK;
}
