/*
 * grants.c: the grant set. Reads the grants directory afresh on every call
 * (no cache: a change applies to the next decision), hands each *.toml
 * file to grantfile.c, keeps the valid grants and every problem, and sorts
 * both so that a set and its fingerprint do not depend on the order the
 * directory lists its files in.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/grantfile.h"
#include "brokerd/grants.h"
#include "proto/readfile.h"
#include "proto/sha256.h"

#define SUFFIX		".toml"
#define SUFFIX_LEN	(sizeof(SUFFIX) - 1)
/* How much of the directory listing is read at a time. */
#define GRANTS_DIRBUF	16384

/* Where grantfile.c's problems for one file go. */
struct file_ctx {
	struct grants	*fc_set;
	const char	*fc_file;
};

int
grants_new(struct grants **ret, struct bx_error *err)
{
	struct grants *g;

	if ((g = calloc(1, sizeof(*g))) == NULL)
		return bx_fail(err, "out of memory");
	*ret = g;
	return 0;
}

void
grants_free(struct grants *g)
{
	size_t i;

	if (g == NULL)
		return;
	for (i = 0; i < g->gs_len; i++)
		grant_clear(&g->gs_grants[i]);
	for (i = 0; i < g->gs_nproblems; i++) {
		free(g->gs_problems[i].gp_file);
		free(g->gs_problems[i].gp_problem);
	}
	free(g->gs_grants);
	free(g->gs_problems);
	free(g);
}

bool
grants_valid(const struct grants *g)
{
	return g->gs_nproblems == 0;
}

/*
 * A copy of s with every control character (C0, DEL, C1) written as
 * \u00XX: problems quote what the grant files and their names hold, and
 * each is printed as one line that cannot move the cursor. NULL when out
 * of memory.
 */
static char *
printable(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = 0;
	char *out;

	/* Six bytes at most for each byte of s. */
	if ((out = malloc(strlen(s) * 6 + 1)) == NULL)
		return NULL;
	for (; *p != '\0'; p++) {
		if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
			n += (size_t)sprintf(out + n, "\\u%04X", *++p);
		else if (*p < 0x20 || *p == 0x7f)
			n += (size_t)sprintf(out + n, "\\u%04X", *p);
		else
			out[n++] = (char)*p;
	}
	out[n] = '\0';
	return out;
}

int
grants_add_problem(struct grants *g, const char *file, int64_t line,
    const char *problem, struct bx_error *err)
{
	struct grant_problem *p;
	size_t cap;

	if (g->gs_finished)
		return bx_fail(err, "the grant set is already finished");
	if (g->gs_nproblems == g->gs_pcap) {
		cap = g->gs_pcap == 0 ? 4 : g->gs_pcap * 2;
		p = reallocarray(g->gs_problems, cap, sizeof(*p));
		if (p == NULL)
			return bx_fail(err, "out of memory");
		g->gs_problems = p;
		g->gs_pcap = cap;
	}
	p = &g->gs_problems[g->gs_nproblems];
	p->gp_line = line;
	p->gp_file = printable(file);
	p->gp_problem = printable(problem);
	if (p->gp_file == NULL || p->gp_problem == NULL) {
		free(p->gp_file);
		free(p->gp_problem);
		return bx_fail(err, "out of memory");
	}
	g->gs_nproblems++;
	return 0;
}

static int
sink_problem(void *ctx, int64_t line, const char *problem)
{
	struct file_ctx *fc = ctx;

	return grants_add_problem(fc->fc_set, fc->fc_file, line, problem,
	    NULL);
}

/*
 * Decodes buf (len bytes and a NUL, taken: a valid grant keeps it as its
 * bytes, anything else frees it) into the set.
 */
static int
add_file_taking(struct grants *g, const char *file, char *buf, size_t len,
    struct bx_error *err)
{
	struct file_ctx fc = { g, file };
	struct grantfile_sink sink = { sink_problem, &fc };
	struct grant one;
	struct grant *p;
	bool valid;
	size_t cap;
	int rc = -1;

	if (g->gs_finished) {
		bx_fail(err, "the grant set is already finished");
		goto out;
	}
	if (grantfile_decode(file, buf, len, &sink, &one, &valid, err) == -1)
		goto out;
	rc = 0;
	if (!valid)
		goto out;
	if (g->gs_len == g->gs_cap) {
		cap = g->gs_cap == 0 ? 16 : g->gs_cap * 2;
		if ((p = reallocarray(g->gs_grants, cap, sizeof(*p))) == NULL) {
			grant_clear(&one);
			rc = bx_fail(err, "out of memory");
			goto out;
		}
		g->gs_grants = p;
		g->gs_cap = cap;
	}
	one.g_bytes = buf;
	one.g_len = len;
	buf = NULL;
	g->gs_grants[g->gs_len++] = one;
out:
	free(buf);
	return rc;
}

int
grants_add_file(struct grants *g, const char *file, const char *buf,
    size_t len, struct bx_error *err)
{
	char *copy;

	if ((copy = malloc(len + 1)) == NULL)
		return bx_fail(err, "out of memory");
	memcpy(copy, buf, len);
	copy[len] = '\0';
	return add_file_taking(g, file, copy, len, err);
}

int
grant_sha256(const struct grant *gr, struct bx_hash *ret,
    struct bx_error *err)
{
	return bx_sha256(gr->g_bytes, gr->g_len, ret, err);
}

static int
grant_cmp(const void *a, const void *b)
{
	const struct grant *x = a, *y = b;

	return strcmp(x->g_id, y->g_id);
}

static int
problem_cmp(const void *a, const void *b)
{
	const struct grant_problem *x = a, *y = b;
	int c;

	if ((c = strcmp(x->gp_file, y->gp_file)) != 0)
		return c;
	if (x->gp_line != y->gp_line)
		return x->gp_line < y->gp_line ? -1 : 1;
	return strcmp(x->gp_problem, y->gp_problem);
}

void
grants_finish(struct grants *g)
{
	if (g->gs_len > 1)
		qsort(g->gs_grants, g->gs_len, sizeof(*g->gs_grants),
		    grant_cmp);
	if (g->gs_nproblems > 1)
		qsort(g->gs_problems, g->gs_nproblems, sizeof(*g->gs_problems),
		    problem_cmp);
	g->gs_finished = true;
}

/*
 * Reads the file name in the directory dfd into *ret_buf. Returns 0 when
 * read, 1 after adding a problem for a file that cannot be read, -1 when
 * memory runs out.
 */
static int
read_one(struct grants *g, int dfd, const char *name, const char *file,
    char **ret_buf, size_t *ret_len, struct bx_error *err)
{
	enum bx_readfile_why why;
	struct bx_error rf;
	char text[BX_ERROR_MAX];
	int saved;

	if (bx_readfile_at(dfd, name, file, 0, GRANTS_FILE_MAX, ret_buf,
	    ret_len, &why, &rf) == 0)
		return 0;
	saved = errno;
	switch (why) {
	case BX_READFILE_NOMEM:
		return bx_fail(err, "out of memory");
	case BX_READFILE_OPEN:
		snprintf(text, sizeof(text), "cannot be opened: %s",
		    strerror(saved));
		break;
	case BX_READFILE_READ:
		snprintf(text, sizeof(text), "cannot be read: %s",
		    strerror(saved));
		break;
	case BX_READFILE_TOO_LARGE:
		snprintf(text, sizeof(text), "is larger than %d bytes",
		    GRANTS_FILE_MAX);
		break;
	default:
		snprintf(text, sizeof(text), "is not a regular file");
		break;
	}
	return grants_add_problem(g, file, 0, text, err) == -1 ? -1 : 1;
}

static bool
is_grant_name(const char *name)
{
	size_t len = strlen(name);

	return len >= SUFFIX_LEN && strcmp(name + len - SUFFIX_LEN, SUFFIX) == 0;
}

/* Reads the entry name of the directory dfd into g; file is its path. */
static int
load_entry(struct grants *g, int dfd, const char *name, const char *file,
    struct bx_error *err)
{
	char *buf = NULL;
	size_t len = 0;
	int rc;

	rc = read_one(g, dfd, name, file, &buf, &len, err);
	if (rc == 0)
		rc = add_file_taking(g, file, buf, len, err);
	return rc == -1 ? -1 : 0;
}

/* Adds the problem "the grants directory cannot be read" for errno e. */
static int
unreadable(struct grants *g, const char *dir, int e, struct bx_error *err)
{
	char text[BX_ERROR_MAX];

	snprintf(text, sizeof(text), "the grants directory cannot be read: "
	    "%s", strerror(e));
	return grants_add_problem(g, dir, 0, text, err);
}

/*
 * Reads every *.toml entry of the directory dfd into g. The listing is
 * read with getdents64(2) into a buffer on the stack: readdir(3) would
 * allocate 32 KiB at every decision, and an allocation that large also
 * makes glibc consolidate its heap each time.
 */
static int
load_entries(struct grants *g, int dfd, const char *dir, struct bx_error *err)
{
	union {
		struct dirent64	 first;
		char		 bytes[GRANTS_DIRBUF];
	} list;
	char text[BX_ERROR_MAX], *file;
	struct dirent64 *de;
	size_t count = 0, dlen = strlen(dir);
	ssize_t n, off;
	int rc = 0;

	/*
	 * Each file's path is dir, a slash unless dir ends in one, and the
	 * entry's name, built in one buffer rather than allocated per file.
	 */
	if ((file = malloc(dlen + 1 + sizeof(de->d_name))) == NULL)
		return bx_fail(err, "out of memory");
	memcpy(file, dir, dlen);
	if (dir[dlen - 1] != '/')
		file[dlen++] = '/';
	for (;;) {
		n = getdents64(dfd, list.bytes, sizeof(list.bytes));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (off = 0; off < n; off += de->d_reclen) {
			de = (struct dirent64 *)(list.bytes + off);
			if (!is_grant_name(de->d_name))
				continue;
			if (++count > GRANTS_MAX_FILES) {
				snprintf(text, sizeof(text), "the grants "
				    "directory holds more than %d .toml files",
				    GRANTS_MAX_FILES);
				rc = grants_add_problem(g, dir, 0, text, err);
				goto out;
			}
			memcpy(file + dlen, de->d_name, strlen(de->d_name) + 1);
			if ((rc = load_entry(g, dfd, de->d_name, file,
			    err)) == -1)
				goto out;
		}
	}
	/* A listing cut short may have skipped a deny grant. */
	if (n == -1)
		rc = unreadable(g, dir, errno, err);
out:
	free(file);
	return rc;
}

int
grants_load(const char *dir, struct grants **ret, struct bx_error *err)
{
	struct grants *g = NULL;
	int fd, rc = -1;

	if (grants_new(&g, err) == -1)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		if (unreadable(g, dir, errno, err) == -1)
			goto out;
	} else if (load_entries(g, fd, dir, err) == -1)
		goto out;
	grants_finish(g);
	*ret = g;
	g = NULL;
	rc = 0;
out:
	if (fd != -1)
		close(fd);
	grants_free(g);
	return rc;
}

int
grants_problem_format(const struct grant_problem *p, char *buf, size_t len)
{
	if (p->gp_line > 0)
		return snprintf(buf, len, "%s:%" PRId64 ": %s", p->gp_file,
		    p->gp_line, p->gp_problem);
	return snprintf(buf, len, "%s: %s", p->gp_file, p->gp_problem);
}

int
grants_fingerprint(const struct grants *g, struct bx_hash *ret,
    struct bx_error *err)
{
	char *text = NULL;
	size_t len = 0, i;
	FILE *f;
	int rc;

	if (g->gs_nproblems == 0) {
		memset(ret, 0, sizeof(*ret));
		return 0;
	}
	if ((f = open_memstream(&text, &len)) == NULL)
		return bx_fail(err, "out of memory");
	for (i = 0; i < g->gs_nproblems; i++)
		fprintf(f, "%s\n%" PRId64 "\n%s\n", g->gs_problems[i].gp_file,
		    g->gs_problems[i].gp_line, g->gs_problems[i].gp_problem);
	if (fclose(f) != 0) {
		free(text);
		return bx_fail(err, "out of memory");
	}
	rc = bx_sha256(text, len, ret, err);
	free(text);
	return rc;
}
