/*
 * memory.c: reading memory/core.md. A file that is there but cannot be
 * used refuses every turn rather than giving the model a prompt other
 * than the one the owner wrote.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "loopd/memory.h"

#define CORE_MEMORY_RUNBOOK	"see docs/runbook.md#core-memory-unreadable"

/* The length of the sequence a lead byte starts, or 0 if it starts none. */
static size_t
utf8_len(unsigned char c)
{
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		return 2;
	if (c >= 0xe0 && c <= 0xef)
		return 3;
	if (c >= 0xf0 && c <= 0xf4)
		return 4;
	return 0;
}

bool
memory_utf8_valid(const char *str, size_t len, size_t *ret_bad)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n, k;

	while (i < len) {
		n = utf8_len(s[i]);
		if (n == 0 || s[i] == 0 || i + n > len)
			goto bad;
		for (k = 1; k < n; k++)
			if ((s[i + k] & 0xc0) != 0x80)
				goto bad;
		/* Overlong three- and four-byte forms, surrogates, > U+10FFFF. */
		if ((s[i] == 0xe0 && s[i + 1] < 0xa0) ||
		    (s[i] == 0xed && s[i + 1] > 0x9f) ||
		    (s[i] == 0xf0 && s[i + 1] < 0x90) ||
		    (s[i] == 0xf4 && s[i + 1] > 0x8f))
			goto bad;
		i += n;
	}
	return true;
bad:
	*ret_bad = i;
	return false;
}

static int
unreadable(struct bx_error *err, const char *path, const char *why)
{
	return bx_fail(err, "%s cannot be read (%s): no turn runs until it is "
	    "fixed or removed; " CORE_MEMORY_RUNBOOK, path, why);
}

static int
read_all(int fd, const char *path, char *buf, size_t want,
    struct bx_error *err)
{
	size_t have = 0;
	ssize_t n;

	while (have < want) {
		n = read(fd, buf + have, want - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return unreadable(err, path, strerror(errno));
		if (n == 0)
			return unreadable(err, path, "it shrank while read");
		have += (size_t)n;
	}
	return 0;
}

int
memory_load(const char *home, char **ret_text, struct bx_error *err)
{
	char path[PATH_MAX], why[64], *buf = NULL;
	struct stat st;
	size_t bad;
	int fd, r = -1;

	if ((size_t)snprintf(path, sizeof(path), "%s/memory/core.md", home) >=
	    sizeof(path))
		return bx_fail(err, "the home (%zu bytes) is too long for "
		    "memory/core.md", strlen(home));
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) == -1) {
		if (errno == ENOENT) {
			*ret_text = NULL;
			return 0;
		}
		return unreadable(err, path, strerror(errno));
	}
	if (fstat(fd, &st) == -1) {
		unreadable(err, path, strerror(errno));
		goto out;
	}
	if (!S_ISREG(st.st_mode)) {
		unreadable(err, path, S_ISDIR(st.st_mode) ? "it is a directory" :
		    "it is not a regular file");
		goto out;
	}
	if (st.st_size > CORE_MEMORY_MAX) {
		snprintf(why, sizeof(why), "larger than %d bytes",
		    CORE_MEMORY_MAX);
		unreadable(err, path, why);
		goto out;
	}
	if ((buf = malloc((size_t)st.st_size + 1)) == NULL) {
		unreadable(err, path, "out of memory");
		goto out;
	}
	if (read_all(fd, path, buf, (size_t)st.st_size, err) == -1)
		goto out;
	buf[st.st_size] = '\0';
	if (!memory_utf8_valid(buf, (size_t)st.st_size, &bad)) {
		snprintf(why, sizeof(why), "not UTF-8 at byte %zu", bad);
		unreadable(err, path, why);
		goto out;
	}
	*ret_text = buf;
	buf = NULL;
	r = 0;
out:
	free(buf);
	close(fd);
	return r;
}
