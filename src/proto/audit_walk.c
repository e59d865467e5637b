/*
 * audit_walk.c: feeding the audit directory to a ChainVerifier, now and
 * as it grows (audit_walk.h). The walker remembers the file it is in and
 * how many of its bytes were fed; each step lists the directory again,
 * goes on in that file and then in every later one.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proto/audit_files.h"
#include "proto/audit_walk.h"

struct bx_audit_walk {
	int		 dirfd;
	char		 name[NAME_MAX + 1];	/* the file being read; "" */
	size_t		 off;			/* of it, the bytes fed */
	const char	*held;			/* the mapping the chain may */
	size_t		 heldlen;		/* still point into */
};

int
bx_audit_walk_open(const char *dir, struct bx_audit_walk **ret,
    struct bx_error *err)
{
	struct bx_audit_walk *w;

	if ((w = calloc(1, sizeof(*w))) == NULL)
		return bx_fail(err, "audit: out of memory");
	w->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (w->dirfd == -1) {
		bx_fail(err, "cannot open %s: %s", dir, strerror(errno));
		free(w);
		return -1;
	}
	*ret = w;
	return 0;
}

/* Makes buf the mapping kept for the chain, releasing the one before. */
static void
hold(struct bx_audit_walk *w, const char *buf, size_t len)
{
	bx_audit_unmap(w->held, w->heldlen);
	w->held = buf;
	w->heldlen = len;
}

/*
 * Feeds what file name holds past what was fed; whole when nothing more
 * can be added to it (the end of a walk, or a later file exists).
 */
static int
feed_file(struct bx_audit_walk *w, struct bx_chain *c, const char *name,
    bool whole, struct bx_error *err)
{
	const char *buf;
	size_t len, used;

	if (strcmp(name, w->name) != 0) {
		bx_chain_file(c, name);
		snprintf(w->name, sizeof(w->name), "%s", name);
		w->off = 0;
	}
	if (bx_audit_map(w->dirfd, name, &buf, &len, err) == -1)
		return -1;
	if (len < w->off) {
		bx_audit_unmap(buf, len);
		return bx_fail(err, "audit: %s shrank from %zu to %zu bytes "
		    "while it was read; the log is only ever appended to",
		    name, w->off, len);
	}
	used = bx_audit_feed_lines(c, buf + w->off, len - w->off, whole);
	w->off += used;
	if (used > 0)
		hold(w, buf, len);
	else
		bx_audit_unmap(buf, len);
	return 0;
}

/* The index of the first name at or after the current file. */
static int
resume_at(const struct bx_audit_walk *w, char **names, size_t n,
    size_t *ret, struct bx_error *err)
{
	size_t i;

	for (i = 0; i < n && strcmp(names[i], w->name) < 0; i++)
		continue;
	if (w->name[0] != '\0' && (i == n || strcmp(names[i], w->name) != 0))
		return bx_fail(err, "audit: %s went away while it was read; "
		    "the log is only ever appended to", w->name);
	*ret = i;
	return 0;
}

int
bx_audit_walk_step(struct bx_audit_walk *w, struct bx_chain *c, bool live,
    struct bx_error *err)
{
	char **names;
	size_t i = 0, n;
	int rc = -1;

	if (bx_audit_list(w->dirfd, &names, &n, err) == -1)
		return -1;
	if (resume_at(w, names, n, &i, err) == -1)
		goto out;
	for (; i < n; i++)
		if (feed_file(w, c, names[i], !live || i + 1 < n, err) == -1)
			goto out;
	if (live)
		(void)bx_chain_settle(c, false);
	rc = 0;
out:
	bx_audit_names_free(names, n);
	return rc;
}

void
bx_audit_walk_close(struct bx_audit_walk *w)
{
	if (w == NULL)
		return;
	hold(w, NULL, 0);
	close(w->dirfd);
	free(w);
}
