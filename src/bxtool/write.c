/*
 * write.c: bxtool write PATH, the write_file tool. The content comes on
 * stdin; it replaces PATH whole or not at all (a temporary file in the
 * same directory, synced, renamed over PATH, the directory synced), and
 * the directories above PATH are made if they are missing.
 */
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bxtool/bxtool.h"
#include "proto/writefile.h"

#define NEW_FILE_MODE	0644
#define NEW_DIR_MODE	0755
#define MODE_BITS	07777
#define TMP_SUFFIX	".bxtool-XXXXXX"
/*
 * How much of the file's name a temporary name keeps: it is ".", that,
 * and TMP_SUFFIX, and must fit in NAME_MAX.
 */
#define TMP_BASE_MAX	(NAME_MAX - 1 - (int)(sizeof(TMP_SUFFIX) - 1))

/* One more byte than the limit, to learn that the content is longer. */
static char content[BXT_CONTENT_MAX + 1];

/* PATH split: the directory that holds it and its last name. */
struct target {
	const char	*t_path;
	char		 t_dir[PATH_MAX];
	const char	*t_base;
};

static int
read_content(size_t *ret_len, struct bxt_outcome *out)
{
	size_t have = 0;
	ssize_t n;

	while (have < sizeof(content)) {
		n = read(STDIN_FILENO, content + have, sizeof(content) - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			bxt_fail(out, "cannot read the content: %s",
			    strerror(errno));
			return -1;
		}
		if (n == 0)
			break;
		have += (size_t)n;
	}
	if (have > BXT_CONTENT_MAX) {
		bxt_fail(out, "content is larger than %d bytes",
		    BXT_CONTENT_MAX);
		return -1;
	}
	*ret_len = have;
	return 0;
}

static int
split(const char *path, struct target *t, struct bxt_outcome *out)
{
	const char *slash;
	size_t dirlen;

	t->t_path = path;
	if ((slash = strrchr(path, '/')) == NULL) {
		dirlen = 0;
		t->t_base = path;
	} else {
		/* The root keeps its slash; any other directory drops it. */
		dirlen = slash == path ? 1 : (size_t)(slash - path);
		t->t_base = slash + 1;
	}
	if (*t->t_base == '\0' || strcmp(t->t_base, ".") == 0 ||
	    strcmp(t->t_base, "..") == 0) {
		bxt_fail(out, "not a file name: %s", path);
		return -1;
	}
	if (strlen(path) >= sizeof(t->t_dir)) {
		bxt_fail(out, "cannot write: %s: %s", path,
		    strerror(ENAMETOOLONG));
		return -1;
	}
	if (dirlen == 0)
		(void)strcpy(t->t_dir, ".");
	else {
		memcpy(t->t_dir, path, dirlen);
		t->t_dir[dirlen] = '\0';
	}
	return 0;
}

/* One directory made, or found to be there already. */
static int
make_dir(const char *dir, struct bxt_outcome *out)
{
	struct stat st;
	int saved;

	if (mkdir(dir, NEW_DIR_MODE) == 0)
		return 0;
	saved = errno;
	if (stat(dir, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			return 0;
		bxt_fail(out, "not a directory: %s", dir);
		return -1;
	}
	bxt_fail(out, "cannot create directory: %s: %s", dir,
	    strerror(saved));
	return -1;
}

/* Each directory on the way to t_dir, from the top down. */
static int
make_parents(struct target *t, struct bxt_outcome *out)
{
	char *p;

	for (p = t->t_dir + 1; *p != '\0'; p++) {
		if (*p != '/' || p[-1] == '/')
			continue;
		*p = '\0';
		if (make_dir(t->t_dir, out) == -1) {
			*p = '/';
			return -1;
		}
		*p = '/';
	}
	return make_dir(t->t_dir, out);
}

/*
 * The mode the new file gets: an existing regular file's own, otherwise
 * NEW_FILE_MODE. lstat, so that a symlink is replaced, never followed.
 */
static int
target_mode(const struct target *t, mode_t *ret, struct bxt_outcome *out)
{
	struct stat st;

	*ret = NEW_FILE_MODE;
	if (lstat(t->t_path, &st) == -1) {
		if (errno == ENOENT)
			return 0;
		bxt_fail(out, "cannot stat: %s: %s", t->t_path,
		    strerror(errno));
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		bxt_fail(out, "is a directory: %s", t->t_path);
		return -1;
	}
	if (S_ISREG(st.st_mode))
		*ret = st.st_mode & MODE_BITS;
	return 0;
}

/* The content into fd, with its mode, synced and closed. */
static int
fill(int fd, const struct target *t, size_t len, mode_t mode,
    struct bxt_outcome *out)
{
	const char *what = NULL;

	if (bx_write_all(fd, content, len) == -1)
		what = "cannot write";
	else if (fchmod(fd, mode) == -1)
		what = "cannot set the mode of";
	else if (fsync(fd) == -1)
		what = "cannot sync";
	if (what != NULL) {
		bxt_fail(out, "%s: %s: %s", what, t->t_path, strerror(errno));
		close(fd);
		return -1;
	}
	if (close(fd) == -1) {
		bxt_fail(out, "cannot close: %s: %s", t->t_path,
		    strerror(errno));
		return -1;
	}
	return 0;
}

static int
replace(const struct target *t, size_t len, mode_t mode,
    struct bxt_outcome *out)
{
	char tmp[PATH_MAX];
	int fd, n;

	n = snprintf(tmp, sizeof(tmp), "%s/.%.*s%s", t->t_dir, TMP_BASE_MAX,
	    t->t_base, TMP_SUFFIX);
	if (n < 0 || (size_t)n >= sizeof(tmp)) {
		bxt_fail(out, "cannot write: %s: %s", t->t_path,
		    strerror(ENAMETOOLONG));
		return -1;
	}
	if ((fd = mkostemp(tmp, O_CLOEXEC)) == -1) {
		bxt_fail(out, "cannot create a temporary file: %s: %s",
		    t->t_dir, strerror(errno));
		return -1;
	}
	if (fill(fd, t, len, mode, out) == -1)
		goto fail;
	if (rename(tmp, t->t_path) == -1) {
		bxt_fail(out, "cannot rename into place: %s: %s", t->t_path,
		    strerror(errno));
		goto fail;
	}
	return 0;
fail:
	(void)unlink(tmp);
	return -1;
}

void
bxt_write(const struct bxt_args *args, struct bxt_outcome *out)
{
	static struct target t;
	size_t len;
	mode_t mode;

	/* All of the content first, so that one refused changes nothing. */
	if (read_content(&len, out) == -1)
		return;
	if (split(args->a_path, &t, out) == -1)
		return;
	if (make_parents(&t, out) == -1)
		return;
	if (target_mode(&t, &mode, out) == -1)
		return;
	if (replace(&t, len, mode, out) == -1)
		return;
	if (bx_fsync_dir(t.t_dir) == -1) {
		bxt_fail(out, "cannot sync directory: %s: %s", t.t_dir,
		    strerror(errno));
		return;
	}
	out->o_final = BXT_OK;
	/* The file is in place; a reader that left changes nothing of that. */
	(void)dprintf(STDOUT_FILENO, "wrote %zu bytes to %s", len, t.t_path);
}
