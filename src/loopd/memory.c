/*
 * memory.c: reading memory/core.md. A file that is there but cannot be
 * used refuses every turn rather than giving the model a prompt other
 * than the one the owner wrote.
 */

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loopd/memory.h"
#include "proto/readfile.h"
#include "proto/utf8.h"

#define CORE_MEMORY_RUNBOOK	"see docs/runbook.md#core-memory-unreadable"

bool
memory_utf8_valid(const char *str, size_t len, size_t *ret_bad)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0, n;

	while (i < len) {
		if (s[i] == 0 || (n = bx_utf8_len(s + i, len - i)) == 0) {
			*ret_bad = i;
			return false;
		}
		i += n;
	}
	return true;
}

static int
unreadable(struct bx_error *err, const char *path, const char *why)
{
	return bx_fail(err, "%s cannot be read (%s): no turn runs until it is "
	    "fixed or removed; " CORE_MEMORY_RUNBOOK, path, why);
}

/* Why core.md could not be read, in the words of unreadable(). */
static int
refused(struct bx_error *err, const char *path, enum bx_readfile_why what,
    int errnum)
{
	char why[64];

	switch (what) {
	case BX_READFILE_DIRECTORY:
		return unreadable(err, path, "it is a directory");
	case BX_READFILE_NOT_REGULAR:
		return unreadable(err, path, "it is not a regular file");
	case BX_READFILE_TOO_LARGE:
		snprintf(why, sizeof(why), "larger than %d bytes",
		    CORE_MEMORY_MAX);
		return unreadable(err, path, why);
	case BX_READFILE_NOMEM:
		return unreadable(err, path, "out of memory");
	default:
		return unreadable(err, path, strerror(errnum));
	}
}

int
memory_load(const char *home, char **ret_text, struct bx_error *err)
{
	enum bx_readfile_why what;
	struct bx_error rf;
	char path[PATH_MAX], why[64], *buf;
	size_t len, bad;

	if ((size_t)snprintf(path, sizeof(path), "%s/memory/core.md", home) >=
	    sizeof(path))
		return bx_fail(err, "the home (%zu bytes) is too long for "
		    "memory/core.md", strlen(home));
	if (bx_readfile(path, CORE_MEMORY_MAX, &buf, &len, &what, &rf) == -1) {
		if (what == BX_READFILE_OPEN && errno == ENOENT) {
			*ret_text = NULL;
			return 0;
		}
		return refused(err, path, what, errno);
	}
	if (!memory_utf8_valid(buf, len, &bad)) {
		free(buf);
		snprintf(why, sizeof(why), "not UTF-8 at byte %zu", bad);
		return unreadable(err, path, why);
	}
	*ret_text = buf;
	return 0;
}
