/*
 * sandbox_dir.c: a call's directory on the host, <home>/broker/runner/<seq>.
 * For podman it holds the read-only skeleton that is the sandbox's "/"
 * (sandbox_root.c), its generated /etc, and the empty directory that
 * covers Boxmaker's own paths. Every mount point the view needs is made
 * here, before podman starts, because it binds read-only directories in
 * which it cannot make one. bwrap builds all that in its own tmpfs, and
 * its call directory is empty unless http_fetch's proxy uses it.
 * Removal walks depth first without following links: a link a runtime
 * made (podman's etc/mtab) is removed, never followed.
 */
#include <sys/stat.h>

#include <dirent.h>
#include <ftw.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "brokerd/runner/sandbox.h"
#include "proto/writefile.h"

/* Descriptors the removal walk holds at once. */
#define SANDBOX_DIR_FDS		16

/* Makes every missing directory of rel (relative) under base, 0755. */
static int
mkdirs(const char *base, const char *rel, bool last_is_file,
    struct bx_error *err)
{
	char path[8192], *p;
	int fd;

	if ((size_t)snprintf(path, sizeof(path), "%s/%s", base, rel) >=
	    sizeof(path))
		return bx_fail(err, "sandbox: path too long under %s", base);
	for (p = path + strlen(base) + 1; (p = strchr(p, '/')) != NULL; p++) {
		*p = '\0';
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return bx_fail(err, "sandbox: mkdir %s: %s", path,
			    strerror(errno));
		*p = '/';
	}
	if (!last_is_file) {
		if (mkdir(path, 0755) == -1 && errno != EEXIST)
			return bx_fail(err, "sandbox: mkdir %s: %s", path,
			    strerror(errno));
		return 0;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd == -1 && errno != EEXIST)
		return bx_fail(err, "sandbox: create %s: %s", path,
		    strerror(errno));
	if (fd != -1)
		close(fd);
	return 0;
}

static int
write_file(const char *dir, const char *name,
    const struct sandbox_etc_file *file, struct bx_error *err)
{
	char path[8192];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
	    0644);
	if (fd == -1)
		return bx_fail(err, "sandbox: create %s: %s", path,
		    strerror(errno));
	rc = bx_write_all(fd, file->ef_text, file->ef_len);
	if (rc == -1)
		bx_fail(err, "sandbox: write %s: %s", path, strerror(errno));
	close(fd);
	return rc;
}

static int
make_etc(const struct sandbox_view *v, struct bx_error *err)
{
	struct sandbox_etc_file files[SANDBOX_ETC_FILES];
	char etc[8192];
	size_t i;

	snprintf(etc, sizeof(etc), "%s/etc", v->v_calldir);
	if (mkdir(etc, 0755) == -1)
		return bx_fail(err, "sandbox: mkdir %s: %s", etc,
		    strerror(errno));
	sandbox_etc(v, files);
	for (i = 0; i < SANDBOX_ETC_FILES; i++)
		if (write_file(etc, sandbox_etc_names[i], &files[i],
		    err) == -1)
			return -1;
	return 0;
}

static int
make_skeleton(const struct sandbox_view *v, struct bx_error *err)
{
	char target[64], link[8192];
	size_t i;

	if (mkdir(v->v_rootfs, 0755) == -1)
		return bx_fail(err, "sandbox: mkdir %s: %s", v->v_rootfs,
		    strerror(errno));
	for (i = 0; sandbox_skeleton_dirs[i] != NULL; i++)
		if (mkdirs(v->v_rootfs, sandbox_skeleton_dirs[i], false,
		    err) == -1)
			return -1;
	for (i = 0; i < v->v_nlinks; i++) {
		snprintf(target, sizeof(target), "usr/%s", v->v_links[i]);
		snprintf(link, sizeof(link), "%s/%s", v->v_rootfs,
		    v->v_links[i]);
		if (symlink(target, link) == -1)
			return bx_fail(err, "sandbox: symlink %s: %s", link,
			    strerror(errno));
	}
	return 0;
}

/* The op before op i whose destination holds op i's most closely, or NULL. */
static const struct sandbox_op *
parent_op(const struct sandbox_view *v, size_t i)
{
	const struct sandbox_op *best = NULL;
	size_t j;

	for (j = 0; j < i; j++)
		if (strcmp(v->v_ops[j].o_dst, v->v_ops[i].o_dst) != 0 &&
		    args_path_inside(v->v_ops[j].o_dst, v->v_ops[i].o_dst) &&
		    (best == NULL ||
		    strlen(v->v_ops[j].o_dst) > strlen(best->o_dst)))
			best = &v->v_ops[j];
	return best;
}

/*
 * A mount point is needed where the destination lies in the skeleton or in
 * the generated /etc; under a host bind it exists already (the same path),
 * and under a tmpfs the runtime makes it.
 */
static int
make_mount_point(const struct sandbox_view *v, size_t i,
    struct bx_error *err)
{
	const struct sandbox_op *op = &v->v_ops[i], *parent;
	char etc[8192];
	struct stat st;
	bool file;

	parent = parent_op(v, i);
	file = op->o_kind == SB_HELPER || (op->o_kind == SB_BIND &&
	    stat(op->o_src, &st) == 0 && !S_ISDIR(st.st_mode));
	snprintf(etc, sizeof(etc), "%s/etc", v->v_calldir);
	if (parent == NULL)
		return mkdirs(v->v_rootfs, op->o_dst + 1, file, err);
	if (parent->o_kind == SB_ETC)
		return mkdirs(etc, op->o_dst + strlen("/etc/"), file, err);
	return 0;
}

int
sandbox_dir_prepare(const struct sandbox_view *v, bool root_on_disk,
    struct bx_error *err)
{
	char cover[8192];
	struct bx_error ignored;
	size_t i;

	err->msg[0] = '\0';
	if (mkdir(v->v_calldir, 0755) == -1)
		return bx_fail(err, "sandbox: mkdir %s: %s", v->v_calldir,
		    strerror(errno));
	if (!root_on_disk)
		return 0;
	snprintf(cover, sizeof(cover), "%s/cover", v->v_calldir);
	if (mkdir(cover, 0555) == -1) {
		bx_fail(err, "sandbox: mkdir %s: %s", cover, strerror(errno));
		goto fail;
	}
	if (make_skeleton(v, err) == -1 || make_etc(v, err) == -1)
		goto fail;
	for (i = 0; i < v->v_nops; i++)
		if (make_mount_point(v, i, err) == -1)
			goto fail;
	return 0;
fail:
	sandbox_dir_remove(v->v_calldir, &ignored);
	return -1;
}

/* nftw's callback: each entry after what it holds, none followed. */
static int
remove_entry(const char *path, const struct stat *st, int type,
    struct FTW *ftw)
{
	(void)st;
	(void)ftw;
	if (type == FTW_DP)
		return rmdir(path) == -1 ? -1 : 0;
	return unlink(path) == -1 ? -1 : 0;
}

int
sandbox_dir_remove(const char *calldir, struct bx_error *err)
{
	struct stat st;

	if (lstat(calldir, &st) == -1)
		return errno == ENOENT ? 0 : bx_fail(err, "sandbox: %s: %s",
		    calldir, strerror(errno));
	/*
	 * By path, depth first, not following links and not crossing into
	 * another filesystem: only brokerd and the runtime write here (the
	 * skeleton is read-only to the tool), and a grant's mount point may
	 * nest as deep as a path allows.
	 */
	if (nftw(calldir, remove_entry, SANDBOX_DIR_FDS,
	    FTW_DEPTH | FTW_PHYS | FTW_MOUNT) != 0)
		return bx_fail(err, "sandbox: cannot remove %s: %s", calldir,
		    strerror(errno));
	return 0;
}

int
sandbox_dir_sweep(const char *runner_dir, size_t *ret_removed,
    struct bx_error *err)
{
	char path[8192];
	struct dirent *e;
	struct bx_error first;
	size_t removed = 0;
	DIR *d;

	first.msg[0] = '\0';
	if ((d = opendir(runner_dir)) == NULL)
		return errno == ENOENT ? (*ret_removed = 0, 0) :
		    bx_fail(err, "sandbox: %s: %s", runner_dir,
		    strerror(errno));
	/* One that cannot go does not keep the others. */
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", runner_dir, e->d_name);
		if (sandbox_dir_remove(path, first.msg[0] == '\0' ? &first :
		    err) == 0)
			removed++;
	}
	closedir(d);
	if (first.msg[0] != '\0') {
		*err = first;
		return -1;
	}
	*ret_removed = removed;
	return 0;
}
