/*
 * grantwrite.c: grant files written and removed for the owner
 * (grantwrite.h). The steps that put a file in place and take it away are
 * putfile.h's, with a rename that cannot replace anything, so that a
 * crash leaves either no grant or the whole grant, never a different one.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxctl/common/putfile.h"
#include "bxctl/common/tomlquote.h"
#include "bxctl/grants/grantwrite.h"
#include "proto/types.h"
#include "proto/readfile.h"
#include "proto/writefile.h"

/* key = ["a", "b"] */
static void
string_array(FILE *f, const char *key, const char *const *list, size_t n)
{
	size_t i;

	fprintf(f, "%s = [", key);
	for (i = 0; i < n; i++) {
		if (i > 0)
			fputs(", ", f);
		tomlquote_file(f, list[i]);
	}
	fputs("]\n", f);
}

/* Each line of the comment, as "# line". */
static void
comment(FILE *f, const char *text)
{
	size_t n;

	while (*text != '\0') {
		n = strcspn(text, "\n");
		fprintf(f, "# %.*s\n", (int)n, text);
		text += n;
		if (*text == '\n')
			text++;
	}
}

int
grantwrite_text(const struct grant_text *gt, char **ret, size_t *ret_len,
    struct bx_error *err)
{
	char expires[BX_TIME_LEN + 1];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	if (gt->gt_expires < BX_TIME_MIN_MS || gt->gt_expires > BX_TIME_MAX_MS)
		return bx_fail(err, "the expiry is out of range");
	bx_time_format(gt->gt_expires, expires);
	if ((f = open_memstream(&text, &len)) == NULL)
		return bx_fail(err, "out of memory");
	if (gt->gt_comment != NULL)
		comment(f, gt->gt_comment);
	fputs("tool = ", f);
	tomlquote_file(f, gt->gt_tool);
	fputs("\nmode = ", f);
	tomlquote_file(f, gt->gt_mode);
	fputs("\nmax_taint = ", f);
	tomlquote_file(f, gt->gt_max_taint);
	fputs("\nresult_class = ", f);
	tomlquote_file(f, gt->gt_class);
	fprintf(f, "\nuntrusted = %s\nexpires = \"%s\"\n",
	    gt->gt_untrusted ? "true" : "false", expires);
	if (gt->gt_secret != NULL) {
		fputs("secret = ", f);
		tomlquote_file(f, gt->gt_secret);
		fputc('\n', f);
	}
	if (gt->gt_npaths > 0 || gt->gt_nhosts > 0)
		fputs("\n[constraints]\n", f);
	if (gt->gt_npaths > 0)
		string_array(f, "paths", gt->gt_paths, gt->gt_npaths);
	if (gt->gt_nhosts > 0)
		string_array(f, "hosts", gt->gt_hosts, gt->gt_nhosts);
	if (fclose(f) != 0) {
		free(text);
		return bx_fail(err, "out of memory");
	}
	*ret = text;
	*ret_len = len;
	return 0;
}

/* <dir>/<id><suffix> into buf (PATH_MAX bytes), id checked first. */
static int
file_name(const char *dir, const char *id, const char *suffix, char *buf,
    struct bx_error *err)
{
	struct bx_error e;

	if (bx_grant_id_check(id, &e) == -1)
		return bx_fail(err, "'%s' is not a valid grant id (1 to %d "
		    "characters of a-z, 0-9 and -)", id, BX_ID_MAX);
	if ((size_t)snprintf(buf, PATH_MAX, "%s/%s%s", dir, id, suffix) >=
	    PATH_MAX)
		return bx_fail(err, "%s: the path is too long", dir);
	return 0;
}

int
grantwrite_check(const char *dir, const char *id, const char *buf,
    size_t len, struct grants **ret, struct bx_error *err)
{
	char file[PATH_MAX];
	struct grants *set;

	if (file_name(dir, id, ".toml", file, err) == -1)
		return -1;
	if (grants_new(&set, err) == -1)
		return -1;
	if (grants_add_file(set, file, buf, len, err) == -1) {
		grants_free(set);
		return -1;
	}
	grants_finish(set);
	*ret = set;
	return 0;
}

/* The loader's verdict on the text, its first problem in err. */
static int
judge(const char *dir, const char *id, const char *buf, size_t len,
    struct bx_error *err)
{
	struct grants *set;
	char text[BX_ERROR_MAX];
	int rc = 0;

	if (grantwrite_check(dir, id, buf, len, &set, err) == -1)
		return -1;
	if (!grants_valid(set)) {
		grants_problem_format(&set->gs_problems[0], text,
		    sizeof(text));
		rc = bx_fail(err, "%s", text);
	}
	grants_free(set);
	return rc;
}

int
grantwrite_put(const char *dir, const char *id, const char *buf, size_t len,
    struct bx_error *err)
{
	char file[PATH_MAX];

	if (file_name(dir, id, ".toml", file, err) == -1 ||
	    judge(dir, id, buf, len, err) == -1)
		return -1;
	return putfile_put(dir, strrchr(file, '/') + 1, buf, len, false, err);
}

int
grantwrite_remove(const char *dir, const char *id, struct bx_error *err)
{
	char file[PATH_MAX], what[BX_ID_MAX + 8];

	if (file_name(dir, id, ".toml", file, err) == -1)
		return -1;
	snprintf(what, sizeof(what), "grant %s", id);
	return putfile_remove(dir, strrchr(file, '/') + 1, what, err);
}

/* Whether the file at path holds exactly bytes; -1 if it cannot be read. */
static int
holds(const char *path, const char *bytes, size_t len, struct bx_error *err)
{
	char *now;
	size_t now_len;
	int same;

	if (bx_readfile(path, GRANTS_FILE_MAX, &now, &now_len, NULL, err) == -1)
		return -1;
	same = now_len == len && memcmp(now, bytes, len) == 0;
	free(now);
	return same;
}

int
grantwrite_remove_same(const char *dir, const char *id, const char *bytes,
    size_t len, bool *ret_removed, struct bx_error *err)
{
	char file[PATH_MAX], aside[PATH_MAX];
	struct stat st;
	int same;

	if (file_name(dir, id, ".toml", file, err) == -1)
		return -1;
	if ((size_t)snprintf(aside, PATH_MAX, "%s/.%s.toml.pruned", dir,
	    id) >= PATH_MAX)
		return bx_fail(err, "%s: the path is too long", dir);
	if (lstat(file, &st) == -1 || !S_ISREG(st.st_mode))
		return bx_fail(err, "%s is no longer a regular file; it was "
		    "not removed", file);
	if (putfile_rename_noreplace(file, aside) == -1)
		return bx_fail(err, "cannot move %s aside: %s", file,
		    strerror(errno));
	if ((same = holds(aside, bytes, len, err)) != 1) {
		/* Changed since it was read, or unreadable: it stays. */
		if (putfile_rename_noreplace(aside, file) == -1)
			return bx_fail(err, "%s changed while it was being "
			    "removed and cannot be put back from %s: %s", file,
			    aside, strerror(errno));
		(void)bx_fsync_dir(dir);
		if (same == -1)
			return -1;
		*ret_removed = false;
		return 0;
	}
	if (unlink(aside) == -1)
		return bx_fail(err, "cannot remove %s: %s", aside,
		    strerror(errno));
	if (bx_fsync_dir(dir) == -1)
		return bx_fail(err, "removed %s, but cannot sync %s: %s", file,
		    dir, strerror(errno));
	*ret_removed = true;
	return 0;
}
