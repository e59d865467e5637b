/* testutil.c: the loopd tests' shared helpers (see testutil.h). */
#include <sys/stat.h>

#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

char *
tu_tmpdir(void)
{
	const char *base = getenv("TMPDIR");
	char *path;

	if (asprintf(&path, "%s/loopd-test-XXXXXX",
	    base != NULL ? base : "/tmp") == -1)
		abort();
	if (mkdtemp(path) == NULL)
		abort();
	return path;
}

static int
remove_one(const char *path, const struct stat *st, int flag,
    struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

void
tu_rmtree(char *path)
{
	if (path == NULL)
		return;
	nftw(path, remove_one, 16, FTW_DEPTH | FTW_PHYS);
	free(path);
}

void
tu_write(const char *dir, const char *name, const char *data, size_t len)
{
	char path[PATH_MAX], *slash;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	for (slash = strchr(path + strlen(dir) + 1, '/'); slash != NULL;
	    slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0700);
		*slash = '/';
	}
	if ((f = fopen(path, "we")) == NULL)
		abort();
	if (fwrite(data, 1, len, f) != len || fclose(f) != 0)
		abort();
}

char *
tu_read(const char *dir, const char *name)
{
	char path[PATH_MAX], *buf;
	long len;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((f = fopen(path, "re")) == NULL)
		return NULL;
	fseek(f, 0, SEEK_END);
	len = ftell(f);
	fseek(f, 0, SEEK_SET);
	if ((buf = malloc((size_t)len + 1)) == NULL)
		abort();
	if (fread(buf, 1, (size_t)len, f) != (size_t)len)
		abort();
	buf[len] = '\0';
	fclose(f);
	return buf;
}

void
tu_record(void *arg, struct bx_msg *ev)
{
	struct tu_events *e = arg;
	struct bx_msg **grown;

	grown = realloc(e->ev, (e->n + 1) * sizeof(*grown));
	if (grown == NULL)
		abort();
	e->ev = grown;
	e->ev[e->n++] = ev;
}

void
tu_events_free(struct tu_events *e)
{
	size_t i;

	for (i = 0; i < e->n; i++)
		bx_msg_free(e->ev[i]);
	free(e->ev);
	e->ev = NULL;
	e->n = 0;
}

const struct bx_turn_event *
tu_find(const struct tu_events *e, enum bx_event type, size_t from)
{
	size_t i;

	for (i = from; i < e->n; i++)
		if (e->ev[i]->kind == BX_MSG_TURN_EVENT &&
		    e->ev[i]->turn_event.type == type)
			return &e->ev[i]->turn_event;
	return NULL;
}

size_t
tu_count(const struct tu_events *e, enum bx_event type)
{
	size_t i, n = 0;

	for (i = 0; i < e->n; i++)
		if (e->ev[i]->kind == BX_MSG_TURN_EVENT &&
		    e->ev[i]->turn_event.type == type)
			n++;
	return n;
}
